package conform

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Outcome is the verdict of one check.
type Outcome string

// The outcomes. Info reports what a target does where the contract leaves
// the clause open: it is neither a pass nor a failure.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Info Outcome = "info"
	// NotApplicable is a clause the target cannot be held to: it lacks what
	// the clause is about (a version parameter, an idempotency key, a tool,
	// versions with an order), as Detail says.
	NotApplicable Outcome = "n/a"
)

// Exchange is one call as it went: the tool, the arguments sent and the reply
// received, or the error the call ended in. For a session that traces its
// calls (a profile's) these are the server's own tools and replies; for any
// other they are the contract's tool, the typed request as JSON and the
// result object (a contract outcome's as the tools report it).
type Exchange struct {
	Tool    string          `json:"tool"`
	Request json.RawMessage `json:"request"`
	Reply   json.RawMessage `json:"reply,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// Check is one clause checked.
type Check struct {
	Name    string  `json:"name"`
	Clause  string  `json:"clause"`
	Outcome Outcome `json:"outcome"`
	// Detail says what was seen, in a sentence.
	Detail string `json:"detail"`
	// Evidence holds, for a failure, the exchanges that show it.
	Evidence []Exchange `json:"evidence,omitempty"`
}

// Report is every check of one target, in order.
type Report struct {
	Target   string `json:"target"`
	Describe string `json:"describe"`
	// VersionFormat names the target's versions as what they are (counter,
	// ms, us-suffix, digest, opaque); empty when the target does not say.
	VersionFormat contract.VersionFormat `json:"version_format,omitempty"`
	// Protocol is the MCP protocol version the checks ran on, and Replicas
	// how many replicas they reached; empty for an embedded target.
	Protocol string  `json:"protocol,omitempty"`
	Replicas int     `json:"replicas,omitempty"`
	Checks   []Check `json:"checks"`
	Passed   int     `json:"passed"`
	Failed   int     `json:"failed"`
	Info     int     `json:"info"`
	// NotApplicable counts the clauses the target cannot be held to.
	NotApplicable int `json:"not_applicable"`
}

// Options configure a run.
type Options struct {
	// Name names the target in the report; empty means its Describe.
	Name string
	// Variant is passed to Target.Open: the zero Variant is the one the target
	// serves. An embedded target serves the one asked for.
	Variant contract.Variant
	// Writers is how many sessions race in the concurrent check; 0 means 8.
	Writers int
	// Pause separates writes whose versions must come from distinct commit
	// instants (a millisecond timestamp would otherwise collide); 0 means
	// 2 ms.
	Pause time.Duration
	// FastTime bounds how long the within-a-millisecond check writes when
	// too few of its writes come within a millisecond of each other to
	// decide; 0 means DefaultFastTime.
	FastTime time.Duration
}

// DefaultFastTime is how long the within-a-millisecond check writes, at
// most, when Options.FastTime is 0.
const DefaultFastTime = 10 * time.Second

func (o Options) withDefaults() Options {
	if o.Writers <= 0 {
		o.Writers = 8
	}
	if o.Pause <= 0 {
		o.Pause = 2 * time.Millisecond
	}
	if o.FastTime <= 0 {
		o.FastTime = DefaultFastTime
	}
	return o
}

// ToolLister is a target that lists its tools over the wire, as
// mcpclient.Target does. A target without it is checked against the
// contract's own tools/list.
type ToolLister interface {
	ListedTools() []contract.Tool
	SchemaProblems() []string
}

// mappingOf is what target's writes can be held to. For the contract's own
// tools, the version format is what the Mapping says, else what the server
// says it serves (contract.Served), else, on a target that serves the
// variant asked for (an embedded one), that variant's.
func mappingOf(target contract.Target, opts Options) Mapping {
	var m Mapping
	if t, ok := target.(contract.Mapped); ok {
		m = t.Mapping()
	}
	if !m.Native() {
		return m
	}
	m = Mapping{VersionCheck: true, Key: true, VersionOmittable: true, VersionFormat: m.VersionFormat}
	if m.VersionFormat != "" {
		return m
	}
	if s, ok := target.(contract.Served); ok {
		if v, ok := s.Served(); ok {
			m.VersionFormat = v.WithDefaults().VersionFormat
		}
		return m
	}
	m.VersionFormat = opts.Variant.WithDefaults().VersionFormat
	return m
}

// Mapping is what a target's writes carry (contract.Mapping).
type Mapping = contract.Mapping

// noteID is the Note conform writes to, as the run names it.
const noteID = "conform"

// Run checks target clause by clause and returns the report. A clause whose
// calls end in an outcome it does not expect fails, with the requests and
// replies as evidence, and the run goes on to the next. An error means
// notesbench could not run at all: ctx ended, or the target could not open
// a run, its Note or a first session.
func Run(ctx context.Context, target contract.Target, opts Options) (Report, error) {
	opts = opts.withDefaults()
	m := mappingOf(target, opts)
	rep := Report{Target: opts.Name, Describe: target.Describe(), VersionFormat: m.VersionFormat}
	if w, ok := target.(contract.Wired); ok {
		wire := w.Wire()
		rep.Protocol, rep.Replicas = wire.Protocol, wire.Replicas
	}
	if rep.Target == "" {
		rep.Target = rep.Describe
	}
	fill := strings.NewReplacer("{writers}", strconv.Itoa(opts.Writers), "{pause}", opts.Pause.String(), "{tools}", listedTools(m))
	capable, _ := target.(contract.Capable)
	// Without a read and a write there is nothing to hold the server to:
	// the tools/list clause fails, naming what it lacks, and no other runs.
	lacking := capable != nil && capable.Require("conform", contract.CapRead, contract.CapWrite) != nil
	r := &runner{ctx: ctx, target: target, capable: capable, opts: opts, m: m, now: time.Now}
	defer r.close()
	for _, cl := range clauses {
		if cl.replicas && rep.Replicas < 2 {
			continue
		}
		c := Check{Name: cl.name, Clause: fill.Replace(cl.text)}
		switch why := cl.notApplicable(capable, m); {
		case cl.onTarget:
		case lacking:
			why = "not run: the server lacks the tools to read and write"
			fallthrough
		case why != "":
			c.Outcome, c.Detail = NotApplicable, why
			rep.Checks = append(rep.Checks, c)
			continue
		default:
			if err := r.open(); err != nil {
				return rep, err
			}
		}
		c, err := r.check(cl, c)
		if err != nil {
			return rep, err
		}
		rep.Checks = append(rep.Checks, c)
	}
	rep.count()
	return rep, nil
}

// count counts the outcomes of the checks.
func (rep *Report) count() {
	for _, c := range rep.Checks {
		switch c.Outcome {
		case Pass:
			rep.Passed++
		case Fail:
			rep.Failed++
		case NotApplicable:
			rep.NotApplicable++
		default:
			rep.Info++
		}
	}
}
