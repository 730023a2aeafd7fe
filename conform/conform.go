package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	// the clause is about (a version parameter, an idempotency key, a tool),
	// as Detail says.
	NotApplicable Outcome = "n/a"
)

// Exchange is one call as it went: the tool, the arguments sent and the result
// object received, or the protocol error the server answered with.
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
	Target   string  `json:"target"`
	Describe string  `json:"describe"`
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
	// decide; 0 means 10 s.
	FastTime time.Duration
}

// ToolLister is a target that lists its tools over the wire, as
// mcpclient.Target does. A target without it is checked against the
// contract's own tools/list.
type ToolLister interface {
	ListedTools() []contract.Tool
	SchemaProblems() []string
}

// Caller is a session that sends JSON arguments as they are, as
// mcpclient's sessions do. Other sessions are called through contract.Call,
// the JSON layer an embedded server applies.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
}

// refusal is an error by which the server refused a call with a JSON-RPC
// error (mcpclient.ProtocolError): recorded as the reply, not a failure of
// the run.
type refusal interface {
	error
	JSONRPCCode() int64
}

// noteID is the Note conform writes to, as the run names it.
const noteID = "conform"

// Run checks target clause by clause and returns the report. An error means
// the target failed (it died, it could not open a session or a Note), not that
// a check failed.
func Run(ctx context.Context, target contract.Target, opts Options) (Report, error) {
	if opts.Writers <= 0 {
		opts.Writers = 8
	}
	if opts.Pause <= 0 {
		opts.Pause = 2 * time.Millisecond
	}
	if opts.FastTime <= 0 {
		opts.FastTime = 10 * time.Second
	}
	rep := Report{Target: opts.Name, Describe: target.Describe()}
	if rep.Target == "" {
		rep.Target = rep.Describe
	}
	if c, ok := target.(contract.Capable); ok {
		// Without a read and a write there is nothing to hold the server
		// to: the tools/list clause fails, naming what it lacks.
		if err := c.Require("conform", contract.CapRead, contract.CapWrite); err != nil {
			rep.Checks = append(rep.Checks, Check{Name: "tools/list", Clause: toolsClause(target), Outcome: Fail, Detail: err.Error()})
			for _, name := range clauseNames {
				rep.Checks = append(rep.Checks, Check{Name: name[0], Clause: name[1], Outcome: NotApplicable, Detail: "not run: the server lacks the tools to read and write"})
			}
			rep.count()
			return rep, nil
		}
	}
	if m, ok := isMapped(target); ok {
		if err := runMapped(ctx, target, m, opts, &rep); err != nil {
			return rep, err
		}
		rep.count()
		return rep, nil
	}
	b, err := target.Open(ctx, contract.RunSpec{Name: "conform", Variant: opts.Variant})
	if err != nil {
		return rep, err
	}
	defer b.Close()
	if err := b.CreateNote(ctx, noteID); err != nil {
		return rep, err
	}
	s, err := b.Session(ctx)
	if err != nil {
		return rep, err
	}
	defer s.Close()
	r := &runner{ctx: ctx, b: b, s: s, opts: opts, now: time.Now}
	rep.Checks = append(rep.Checks, checkTools(target))
	capable, _ := target.(contract.Capable)
	for i, check := range []func() (Check, error){
		r.staleVersion, r.missingVersion, r.sameKeyResend, r.lostReplyCreate, r.versionsIncrease,
		r.versionsWithinMillisecond, r.perTabVersions, r.concurrentWriters,
		r.sameKeyOtherArgs, r.sameKeyOtherTool, r.staleResendOrder,
	} {
		if capable != nil {
			if err := capable.Require("the clause", clauseNeeds[i]...); err != nil {
				rep.Checks = append(rep.Checks, Check{Name: clauseNames[i][0], Clause: clauseNames[i][1], Outcome: NotApplicable, Detail: "not run: " + err.Error()})
				continue
			}
		}
		c, err := check()
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

// clauseNames are the name and clause of each check after tools/list, in
// order; the checks fill in the clause where it depends on the options.
var clauseNames = [][2]string{
	{"stale version", "a write with a stale expected_version is refused with a conflict that reports the current version, and changes nothing"},
	{"no expected_version", "a write without expected_version is refused by the schema and changes nothing"},
	{"same-key resend", "a resend with the same idempotency key returns the first result and writes once"},
	{"lost reply, create", "a create whose reply was lost, resent with the same key, creates one tab, not two"},
	{"versions increase", "versions strictly increase across writes"},
	{"writes within a millisecond", "two writes committed within the same millisecond get distinct versions"},
	{"per-tab versions", "when versions are per tab, a write to one tab does not conflict with a reader of another"},
	{"concurrent writers", "writers with the same expected version at once: exactly one wins, the others conflict naming its version"},
	{"same key, other arguments", "a key sent again with other arguments (the write-ups leave it open)"},
	{"same key, other tool", "a key used by one tool, sent to another (the write-ups leave it open)"},
	{"resend after the version moved", "a resend whose expected version went stale meanwhile: key checked first, or version first (the write-ups differ)"},
}

// clauseNeeds are the capabilities each check of clauseNames calls.
var clauseNeeds = [][]contract.Capability{
	{contract.CapRead, contract.CapWrite},
	{contract.CapRead, contract.CapWrite},
	{contract.CapRead, contract.CapWrite},
	{contract.CapCreate, contract.CapList},
	{contract.CapRead, contract.CapWrite},
	{contract.CapRead, contract.CapWrite},
	{contract.CapCreate, contract.CapList, contract.CapEditTabs},
	{contract.CapRead, contract.CapWrite},
	{contract.CapRead, contract.CapWrite},
	{contract.CapRead, contract.CapWrite, contract.CapAddSource},
	{contract.CapCreate, contract.CapList},
}

// toolsClause is the tools/list clause for target.
func toolsClause(target contract.Target) string {
	if m, ok := isMapped(target); ok {
		name, _, _ := m.ProfileMapping()
		return "tools/list carries the tools profile " + name + " calls"
	}
	return "tools/list carries the seven tools, with expected_version and idempotency_key required on the three writes"
}

// checkTools checks the seven tools and their required fields.
func checkTools(target contract.Target) Check {
	c := Check{Name: "tools/list", Clause: "tools/list carries the seven tools, with expected_version and idempotency_key required on the three writes"}
	lister, ok := target.(ToolLister)
	if !ok {
		c.Outcome, c.Detail = Pass, "the embedded contract's own tools/list: the seven tools as published"
		return c
	}
	listed := lister.ListedTools()
	problems := lister.SchemaProblems()
	var names []string
	for _, t := range listed {
		names = append(names, t.Name)
	}
	if len(listed) < len(contract.Tools()) {
		problems = append(problems, fmt.Sprintf("%d of the seven tools listed: %s", len(listed), strings.Join(names, ", ")))
	}
	if len(problems) == 0 {
		c.Outcome, c.Detail = Pass, "the seven tools, each with the contract's required fields"
		return c
	}
	c.Outcome, c.Detail = Fail, strings.Join(problems, "; ")
	bad, _, _ := strings.Cut(problems[0], ":")
	for _, t := range listed {
		if t.Name == bad {
			c.Evidence = []Exchange{{Tool: "tools/list", Request: json.RawMessage(`{}`), Reply: t.InputSchema}}
		}
	}
	return c
}

// runner holds what the checks share: the Note's backend and one session.
type runner struct {
	ctx  context.Context
	b    contract.Backend
	s    contract.Session
	opts Options
	keys int
	log  []Exchange // the exchanges of the check running
	// now tells the time of a reply: time.Now, or a test's clock.
	now func() time.Time
}

// reply is any result object, read for what the checks look at.
type reply struct {
	Error          string             `json:"error"`
	Field          string             `json:"field"`
	CurrentVersion contract.Version   `json:"current_version"`
	Version        contract.Version   `json:"version"`
	TabID          string             `json:"tab_id"`
	Replayed       bool               `json:"replayed"`
	Data           json.RawMessage    `json:"data"`
	Tabs           []contract.TabInfo `json:"tabs"`
	refused        string             // the JSON-RPC error the server answered with
}

func (p reply) ok() bool { return p.Error == "" && p.refused == "" }

func (p reply) String() string {
	if p.refused != "" {
		return p.refused
	}
	if p.Error == contract.ErrVersionConflict {
		return fmt.Sprintf("version_conflict (current %s)", p.CurrentVersion)
	}
	if p.Error != "" {
		return strings.TrimSpace(p.Error + " " + p.Field)
	}
	if p.Replayed {
		return "the first result, replayed"
	}
	return "ok"
}

// call makes one call on s through the JSON layer and records it.
func (r *runner) call(s contract.Session, tool string, args any) (reply, error) {
	req, err := json.Marshal(args)
	if err != nil {
		return reply{}, err
	}
	var out json.RawMessage
	if c, ok := s.(Caller); ok {
		out, err = c.Call(r.ctx, tool, req)
	} else {
		out, err = contract.Call(r.ctx, s, tool, req)
	}
	ex := Exchange{Tool: tool, Request: req, Reply: out}
	var ref refusal
	switch {
	case errors.As(err, &ref):
		ex.Error = ref.Error()
		r.log = append(r.log, ex)
		return reply{refused: fmt.Sprintf("JSON-RPC error %d", ref.JSONRPCCode())}, nil
	case err != nil:
		return reply{}, err
	}
	r.log = append(r.log, ex)
	var p reply
	if err := json.Unmarshal(out, &p); err != nil {
		return reply{}, fmt.Errorf("%s: result %s: %w", tool, out, err)
	}
	return p, nil
}

func (r *runner) key(what string) string {
	r.keys++
	return fmt.Sprintf("conform-%s-%d-%d", what, time.Now().UnixNano(), r.keys)
}

func (r *runner) pause() { time.Sleep(r.opts.Pause) }

func (r *runner) readText(s contract.Session) (reply, error) {
	return r.call(s, contract.ToolReadNoteTab, map[string]any{"note_id": noteID, "tab_id": "markdown"})
}

// thenRead passes on a call's reply and error and, when the call did not
// fail, reads the markdown tab after it.
func (r *runner) thenRead(got reply, err error) (reply, reply, error) {
	if err != nil {
		return got, reply{}, err
	}
	after, err := r.readText(r.s)
	return got, after, err
}

func (r *runner) list() (reply, error) {
	return r.call(r.s, contract.ToolListNoteTabs, map[string]any{"note_id": noteID})
}

func (r *runner) writeText(s contract.Session, v contract.Version, key, text string) (reply, error) {
	return r.call(s, contract.ToolEditNoteTab, map[string]any{"note_id": noteID, "tab_id": "markdown",
		"expected_version": v, "idempotency_key": key, "operation": "replace_text", "text": text})
}

// writeCurrent reads the markdown tab and, a pause later, writes text over it
// with the version read and key: the read and the write's reply.
func (r *runner) writeCurrent(key, text string) (base, first reply, err error) {
	if base, err = r.readText(r.s); err != nil {
		return base, first, err
	}
	r.pause()
	first, err = r.writeText(r.s, base.Version, key, text)
	return base, first, err
}

// createTwice lists the Note and, a pause later, creates a tab of typ with
// the version listed and key, then sends the same request again after another
// pause: the request, and the first and second replies. It sends no second
// request when the first is refused.
func (r *runner) createTwice(key, typ, label string) (req map[string]any, first, again reply, err error) {
	l, err := r.list()
	if err != nil {
		return nil, first, again, err
	}
	req = map[string]any{"note_id": noteID, "expected_version": l.Version, "idempotency_key": key,
		"tab_type": typ, "label": label}
	r.pause()
	if first, err = r.call(r.s, contract.ToolCreateNoteTab, req); err != nil || !first.ok() {
		return req, first, again, err
	}
	r.pause()
	again, err = r.call(r.s, contract.ToolCreateNoteTab, req)
	return req, first, again, err
}

// start begins a check: a fresh log.
func (r *runner) start(name, clause string) Check {
	r.log = nil
	return Check{Name: name, Clause: clause}
}

// fail ends a check as failed, with the exchanges so far as evidence.
func (r *runner) fail(c Check, format string, args ...any) (Check, error) {
	c.Outcome, c.Detail, c.Evidence = Fail, fmt.Sprintf(format, args...), r.log
	return c, nil
}

func (r *runner) pass(c Check, format string, args ...any) (Check, error) {
	c.Outcome, c.Detail = Pass, fmt.Sprintf(format, args...)
	return c, nil
}

func (r *runner) info(c Check, format string, args ...any) (Check, error) {
	c.Outcome, c.Detail = Info, fmt.Sprintf(format, args...)
	return c, nil
}

// textOf returns the text a read_note_tab reply holds.
func textOf(p reply) string {
	var s string
	_ = json.Unmarshal(p.Data, &s)
	return s
}
