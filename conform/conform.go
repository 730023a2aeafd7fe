package conform

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

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
func mappingOf(target contract.Target, opts Options) contract.Mapping {
	var m contract.Mapping
	if t, ok := target.(contract.Mapped); ok {
		m = t.Mapping()
	}
	if !m.Native() {
		return m
	}
	m = contract.Mapping{VersionCheck: true, Key: true, VersionOmittable: true, VersionFormat: m.VersionFormat}
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

// noteID is the Note conform writes to, as the run names it.
const noteID = "conform"

// Run checks target clause by clause and returns the report. A clause whose
// calls end in an outcome it does not expect fails, with the requests and
// replies as evidence, and the run goes on to the next. An error means
// notesbench could not run at all: ctx ended, or the target could not open
// a run, its Note or a first session.
func Run(ctx context.Context, target contract.Target, opts Options) (results.ConformReport, error) {
	opts = opts.withDefaults()
	m := mappingOf(target, opts)
	rep := results.ConformReport{Target: opts.Name, Describe: target.Describe(), VersionFormat: m.VersionFormat}
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
		c := results.ConformCheck{Name: cl.name, Clause: fill.Replace(cl.text)}
		switch why := cl.notApplicable(capable, m); {
		case cl.onTarget:
		case lacking:
			why = "not run: the server lacks the tools to read and write"
			fallthrough
		case why != "":
			c.Outcome, c.Detail = results.ConformNotApplicable, why
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
	count(&rep)
	return rep, nil
}

// count counts the outcomes of the checks of rep.
func count(rep *results.ConformReport) {
	for _, c := range rep.Checks {
		switch c.Outcome {
		case results.ConformPass:
			rep.Passed++
		case results.ConformFail:
			rep.Failed++
		case results.ConformNotApplicable:
			rep.NotApplicable++
		default:
			rep.Info++
		}
	}
}
