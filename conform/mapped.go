package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Mapped is a target that maps the contract onto a server's own tools
// through a profile, as mcpclient does with one. ProfileMapping names the
// profile ("" when there is none: the contract's own tools), and says
// whether its write sends a version the server checks and an idempotency
// key. Such a target is checked through its typed Sessions, the calls the
// experiments make, and each clause it has nothing for is not applicable.
type Mapped interface {
	ProfileMapping() (name string, versionCheck, key bool)
}

// tracer is a Session that reports each call it makes to the server: the
// tool, its arguments and the reply, as the evidence of a clause.
type tracer interface {
	Trace(func(tool string, args json.RawMessage, reply string))
}

// refusal is an error result the server gave that is not a conflict.
type refusalResult interface {
	Refusal() string
}

// isMapped reports whether target maps the contract through a profile.
func isMapped(target contract.Target) (Mapped, bool) {
	m, ok := target.(Mapped)
	if !ok {
		return nil, false
	}
	name, _, _ := m.ProfileMapping()
	return m, name != ""
}

// mrunner checks a target through a profile.
type mrunner struct {
	ctx          context.Context
	b            contract.Backend
	s            contract.Session
	opts         Options
	versionCheck bool
	key          bool
	keys         int

	mu  sync.Mutex
	log []Exchange
}

// runMapped checks a target that maps the contract through a profile.
func runMapped(ctx context.Context, target contract.Target, m Mapped, opts Options, rep *Report) error {
	name, versionCheck, key := m.ProfileMapping()
	tools := Check{Name: "tools/list", Clause: toolsClause(target), Outcome: Pass}
	var lacks []string
	if c, ok := target.(contract.Capable); ok {
		for _, cp := range []contract.Capability{contract.CapCreate, contract.CapList} {
			if c.Require("", cp) != nil {
				lacks = append(lacks, string(cp))
			}
		}
	}
	tools.Detail = "the tools of profile " + name + "'s read and write are listed"
	if len(lacks) > 0 {
		tools.Detail += "; it maps no " + strings.Join(lacks, " or ") + " (or the server lacks its tool)"
	}
	rep.Checks = append(rep.Checks, tools)

	b, err := target.Open(ctx, contract.RunSpec{Name: "conform"})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.CreateNote(ctx, noteID); err != nil {
		return err
	}
	r := &mrunner{ctx: ctx, b: b, opts: opts, versionCheck: versionCheck, key: key}
	if r.s, err = r.session(); err != nil {
		return err
	}
	defer r.s.Close()
	noVersion := "no version: the server keeps none"
	for i, check := range []func(c Check) (Check, error){
		r.staleVersion,
		needs(versionCheck, "no version parameter: the profile's write sends no version to leave out", r.missingVersion),
		needs(key, "no idempotency key parameter: a resend is a new write", r.sameKeyResend),
		needs(len(lacks) == 0, "the profile maps no create and list (or the server lacks their tools)", r.lostReplyCreate),
		needs(versionCheck, noVersion, r.versionsIncrease),
		needs(versionCheck, noVersion, r.versionsWithinMillisecond),
		needs(false, "a profile's document is one text: there are no tabs to version apart", nil),
		r.concurrentWriters,
		needs(key, "no idempotency key parameter", r.sameKeyOtherArgs),
		needs(false, "a profile maps one write per kind: no key is shared between two tools", nil),
		needs(false, "not checked through a profile", nil),
	} {
		r.mu.Lock()
		r.log = nil
		r.mu.Unlock()
		c, err := check(Check{Name: clauseNames[i][0], Clause: clauseNames[i][1]})
		if err != nil {
			return err
		}
		rep.Checks = append(rep.Checks, c)
	}
	return nil
}

// session opens a session whose calls go into the log.
func (r *mrunner) session() (contract.Session, error) {
	s, err := r.b.Session(r.ctx)
	if err != nil {
		return nil, err
	}
	if t, ok := s.(tracer); ok {
		t.Trace(func(tool string, args json.RawMessage, reply string) {
			r.mu.Lock()
			r.log = append(r.log, Exchange{Tool: tool, Request: args, Reply: json.RawMessage(quoteIfNeeded(reply))})
			r.mu.Unlock()
		})
	}
	return s, nil
}

// quoteIfNeeded returns reply as JSON: itself when it is JSON, else a string.
func quoteIfNeeded(reply string) string {
	if json.Valid([]byte(reply)) {
		return reply
	}
	b, _ := json.Marshal(reply)
	return string(b)
}

// needs returns check when have is true, and else a check that finds its
// clause not applicable, saying why.
func needs(have bool, why string, check func(Check) (Check, error)) func(Check) (Check, error) {
	if have {
		return check
	}
	return func(c Check) (Check, error) {
		c.Outcome, c.Detail = NotApplicable, why
		return c, nil
	}
}

func (r *mrunner) fail(c Check, format string, args ...any) (Check, error) {
	r.mu.Lock()
	c.Outcome, c.Detail, c.Evidence = Fail, fmt.Sprintf(format, args...), r.log
	r.mu.Unlock()
	return c, nil
}

func pass(c Check, format string, args ...any) (Check, error) {
	c.Outcome, c.Detail = Pass, fmt.Sprintf(format, args...)
	return c, nil
}

func (r *mrunner) key1() string {
	r.keys++
	return fmt.Sprintf("conform-%d-%d", time.Now().UnixNano(), r.keys)
}

func (r *mrunner) pause() {
	p := r.opts.Pause
	if p <= 0 {
		p = 2 * time.Millisecond
	}
	time.Sleep(p)
}

// outcome is a write's outcome: ok, a conflict, or an error result the
// server refused it with.
type outcome struct {
	res      contract.EditResult
	conflict *contract.ConflictError
	refused  string
}

func (o outcome) ok() bool { return o.conflict == nil && o.refused == "" }

func (o outcome) String() string {
	switch {
	case o.conflict != nil:
		return fmt.Sprintf("a conflict (current %s)", o.conflict.Current)
	case o.refused != "":
		return "refused: " + o.refused
	}
	return "ok"
}

func (r *mrunner) read(s contract.Session) (contract.TabContent, error) {
	return s.ReadNoteTab(r.ctx, noteID, "markdown")
}

func (r *mrunner) write(s contract.Session, v contract.Version, key, text string) (outcome, error) {
	res, err := s.EditNoteTab(r.ctx, contract.EditRequest{NoteID: noteID, TabID: "markdown", ExpectedVersion: v,
		IdempotencyKey: key, Operation: contract.OpReplaceText, Text: text})
	var ce *contract.ConflictError
	var rr refusalResult
	switch {
	case errors.As(err, &ce):
		return outcome{conflict: ce}, nil
	case errors.As(err, &rr):
		return outcome{refused: rr.Refusal()}, nil
	case err != nil:
		return outcome{}, err
	}
	return outcome{res: res}, nil
}

// writeRead writes text with version v and key on the runner's session, and
// reads the text back after it.
func (r *mrunner) writeRead(v contract.Version, key, text string) (outcome, contract.TabContent, error) {
	w, err := r.write(r.s, v, key, text)
	if err != nil {
		return w, contract.TabContent{}, err
	}
	after, err := r.read(r.s)
	return w, after, err
}

func (r *mrunner) staleVersion(c Check) (Check, error) {
	base, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	r.pause()
	first, err := r.write(r.s, base.Version, r.key1(), base.Text+"\nconform: first write")
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "a write with the version just read was %s", first)
	}
	r.pause()
	before, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	stale, after, err := r.writeRead(base.Version, r.key1(), base.Text+"\nconform: stale write")
	if err != nil {
		return c, err
	}
	why := ""
	if !r.versionCheck {
		why = ": the profile's write sends no version the server checks, so a stale write cannot be refused"
	}
	switch {
	case stale.ok() && !strings.Contains(after.Text, "conform: first write"):
		return r.fail(c, "the write based on the stale read (version %s) got ok and replaced the line the first write added%s", base.Version, why)
	case stale.ok():
		return r.fail(c, "the write based on the stale read (version %s) got ok%s", base.Version, why)
	case stale.conflict == nil:
		return r.fail(c, "the stale write was %s, not a conflict%s", stale, why)
	case after.Text != before.Text:
		return r.fail(c, "the refused write changed the text%s", why)
	case stale.conflict.Current != "" && stale.conflict.Current != before.Version:
		return r.fail(c, "the conflict reports version %s; the current version is %s", stale.conflict.Current, before.Version)
	case stale.conflict.Current == "":
		return pass(c, "refused as a conflict that names no current version; text unchanged")
	}
	return pass(c, "a conflict naming current version %s; text unchanged", stale.conflict.Current)
}

func (r *mrunner) missingVersion(c Check) (Check, error) {
	before, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	got, after, err := r.writeRead("", r.key1(), before.Text+"\nconform: no version")
	if err != nil {
		return c, err
	}
	switch {
	case after.Text != before.Text:
		return r.fail(c, "the write without a version was applied (%s)", got)
	case got.ok():
		return r.fail(c, "the write without a version was answered as a success")
	}
	return pass(c, "%s; nothing changed", got)
}

func (r *mrunner) sameKeyResend(c Check) (Check, error) {
	base, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	key, text := r.key1(), base.Text+"\nconform: written once"
	first, err := r.write(r.s, base.Version, key, text)
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "the first write was %s", first)
	}
	r.pause()
	again, after, err := r.writeRead(base.Version, key, text)
	if err != nil {
		return c, err
	}
	switch {
	case !again.ok():
		return r.fail(c, "the resend (same key, same arguments) was %s instead of the first result", again)
	case again.res.Version != first.res.Version:
		return r.fail(c, "the resend returned version %s; the first write returned %s", again.res.Version, first.res.Version)
	case after.Version != first.res.Version || after.Text != text:
		return r.fail(c, "the resend wrote again: version %s after it, %s after the first", after.Version, first.res.Version)
	}
	return pass(c, "the first result (version %s); written once", again.res.Version)
}

func (r *mrunner) lostReplyCreate(c Check) (Check, error) {
	l, err := r.s.ListNoteTabs(r.ctx, noteID)
	if err != nil {
		return c, err
	}
	label := "conform lost " + r.key1()
	req := contract.CreateRequest{NoteID: noteID, ExpectedVersion: l.Version, IdempotencyKey: r.key1(), TabType: contract.TypeSheet, Label: label}
	// The first reply is lost: the client reads none of it, and resends.
	if _, err := r.s.CreateNoteTab(r.ctx, req); err != nil {
		return r.fail(c, "the create failed: %v", err)
	}
	r.pause()
	path := "the resend: ok"
	if _, err := r.s.CreateNoteTab(r.ctx, req); err != nil {
		path = "the resend: " + err.Error()
	}
	after, err := r.s.ListNoteTabs(r.ctx, noteID)
	if err != nil {
		return c, err
	}
	n := 0
	for _, t := range after.Tabs {
		if t.Label == label {
			n++
		}
	}
	if n != 1 {
		return r.fail(c, "%d items created for one intent (%s)", n, path)
	}
	return pass(c, "one item (%s)", path)
}

func (r *mrunner) versionsIncrease(c Check) (Check, error) {
	cur, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	seen := map[contract.Version]bool{cur.Version: true}
	v, text := cur.Version, cur.Text
	for i := range 5 {
		r.pause()
		text += fmt.Sprintf("\nconform: increase %d", i)
		w, err := r.write(r.s, v, r.key1(), text)
		if err != nil {
			return c, err
		}
		if !w.ok() {
			return r.fail(c, "write %d with the current version was %s", i+1, w)
		}
		if seen[w.res.Version] {
			return r.fail(c, "write %d got version %s, which an earlier state had", i+1, w.res.Version)
		}
		if a, b, ok := integers(v, w.res.Version); ok && b <= a {
			return r.fail(c, "write %d went from version %s to %s", i+1, v, w.res.Version)
		}
		seen[w.res.Version] = true
		v = w.res.Version
	}
	return pass(c, "%s to %s over 5 writes, each new", cur.Version, v)
}

func (r *mrunner) versionsWithinMillisecond(c Check) (Check, error) {
	cur, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	v, text := cur.Version, cur.Text
	shared, writes, last := 0.0, 0, time.Now()
	for began := last; writes < maxFastWrites && time.Since(began) < r.opts.FastTime && shared < wantShared; {
		text += "\nf"
		w, err := r.write(r.s, v, r.key1(), text)
		if err != nil {
			return c, err
		}
		now := time.Now()
		writes++
		if !w.ok() {
			return r.fail(c, "write %d with the current version was %s", writes, w)
		}
		if w.res.Version == v {
			return r.fail(c, "write %d got version %s, the version it replaced", writes, v)
		}
		if gap := now.Sub(last); writes > 1 && gap < time.Millisecond {
			shared += 1 - float64(gap)/float64(time.Millisecond)
		}
		v, last = w.res.Version, now
	}
	if shared < wantShared {
		c.Outcome, c.Detail = Info, fmt.Sprintf("not tested: in %d writes too few came within a millisecond of the one before", writes)
		return c, nil
	}
	return pass(c, "%d back-to-back writes: no version repeated", writes)
}

func (r *mrunner) concurrentWriters(c Check) (Check, error) {
	n := r.opts.Writers
	if n <= 0 {
		n = 8
	}
	c.Clause = fmt.Sprintf("%d writers with the same expected version at once: exactly one wins, the others conflict naming its version", n)
	sessions := make([]contract.Session, n)
	defer func() {
		for _, s := range sessions {
			if s != nil {
				s.Close()
			}
		}
	}()
	base := make([]contract.TabContent, n)
	for i := range sessions {
		s, err := r.session()
		if err != nil {
			return c, err
		}
		sessions[i] = s
		// Each writer reads, as a client must before it writes; nobody
		// writes between the reads, so all read the same version.
		if base[i], err = r.read(s); err != nil {
			return c, err
		}
	}
	outs := make([]outcome, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			<-start
			outs[i], errs[i] = r.write(s, base[i].Version, r.keyFor(i), base[i].Text+fmt.Sprintf("\nconform: racer %d", i))
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	var others []string
	for i, err := range errs {
		if err != nil {
			return c, err
		}
		if outs[i].ok() {
			winners++
		} else if outs[i].conflict == nil {
			others = append(others, outs[i].String())
		}
	}
	final, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	kept := 0
	for i := range n {
		if strings.Contains(final.Text, fmt.Sprintf("conform: racer %d", i)) {
			kept++
		}
	}
	switch {
	case winners != 1:
		return r.fail(c, "%d of %d writers won with version %s; the text kept %d of their lines", winners, n, base[0].Version, kept)
	case len(others) > 0:
		return r.fail(c, "one won; the others got %s", strings.Join(others, ", "))
	}
	return pass(c, "one won; %d conflicts", n-1)
}

func (r *mrunner) keyFor(i int) string {
	return fmt.Sprintf("conform-racer-%d-%d", time.Now().UnixNano(), i)
}

func (r *mrunner) sameKeyOtherArgs(c Check) (Check, error) {
	base, err := r.read(r.s)
	if err != nil {
		return c, err
	}
	key := r.key1()
	first, err := r.write(r.s, base.Version, key, "conform: first arguments")
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "the first write was %s", first)
	}
	r.pause()
	second, after, err := r.writeRead(first.res.Version, key, "conform: other arguments")
	if err != nil {
		return c, err
	}
	c.Outcome = Info
	switch {
	case second.ok() && after.Text == "conform: first arguments":
		c.Detail = "the first result replayed; the other arguments ignored"
	case second.ok() && after.Text == "conform: other arguments":
		c.Detail = fmt.Sprintf("the other arguments were applied as a new write (version %s)", second.res.Version)
	default:
		c.Detail = second.String()
	}
	return c, nil
}
