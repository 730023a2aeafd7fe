package conform

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
)

// The checks of the clauses, in the order of clauses. Each writes by adding
// a line to the text it read or wrote last, which every profile's write can
// express (a whole content, a patch or an append), and returns an error for
// a call that ended in an outcome it does not expect (see runner.check).

// tools checks the tools the target lists: the seven tools and their
// required fields, or, through a profile, the tools it calls.
func (r *runner) tools(c results.ConformCheck) (results.ConformCheck, error) {
	c.Outcome, c.Detail = r.listing()
	if c.Outcome == results.ConformFail {
		if lister, ok := r.target.(ToolLister); ok {
			bad, _, _ := strings.Cut(c.Detail, ":")
			for _, t := range lister.ListedTools() {
				if t.Name == bad {
					c.Evidence = []results.ConformExchange{{Tool: "tools/list", Request: json.RawMessage(`{}`), Reply: t.InputSchema}}
				}
			}
		}
	}
	return c, nil
}

// listing is the verdict of the tools/list clause and what was seen.
func (r *runner) listing() (results.ConformOutcome, string) {
	capable, m := r.capable, r.m
	if capable != nil {
		if err := capable.Require("conform", contract.CapRead, contract.CapWrite); err != nil {
			return results.ConformFail, err.Error()
		}
	}
	if !m.Native() {
		detail := "the tools of profile " + m.Profile + "'s read and write are listed"
		var lacks []string
		for _, cp := range []contract.Capability{contract.CapCreate, contract.CapList} {
			if capable != nil && capable.Require("", cp) != nil {
				lacks = append(lacks, string(cp))
			}
		}
		if len(lacks) > 0 {
			detail += "; it maps no " + strings.Join(lacks, " or ") + " (or the server lacks its tool)"
		}
		return results.ConformPass, detail
	}
	lister, ok := r.target.(ToolLister)
	if !ok {
		return results.ConformPass, "the embedded contract's own tools/list: the seven tools as published"
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
		return results.ConformPass, "the seven tools, each with the contract's required fields"
	}
	return results.ConformFail, strings.Join(problems, "; ")
}

func (r *runner) staleVersion(c results.ConformCheck) (results.ConformCheck, error) {
	base, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	r.pause()
	if _, err := r.write(r.s, base.Version, r.key("stale"), extend(base.Text, "conform: first write")); err != nil {
		return r.fail(c, "a write with the current version got %s", describe(err))
	}
	r.pause()
	before, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the first write", err)
	}
	_, stale := r.write(r.s, base.Version, r.key("stale"), extend(base.Text, "conform: stale write"))
	after, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the stale write", err)
	}
	why := ""
	if !r.m.VersionCheck {
		why = ": the profile's write sends no version the server checks, so a stale write cannot be refused"
	}
	conflict, isConflict := conflictOf(stale)
	switch {
	case stale == nil && !strings.Contains(after.Text, "conform: first write"):
		return r.fail(c, "the write with stale version %s got ok and replaced the line the first write added%s", base.Version, why)
	case stale == nil:
		return r.fail(c, "the write with stale version %s got ok%s", base.Version, why)
	case !isConflict:
		return r.fail(c, "the write with stale version %s got %s, not a conflict%s", base.Version, describe(stale), why)
	case changed(before, after):
		return r.fail(c, "the refused write changed the Note (version %s to %s)", before.Version, after.Version)
	case conflict.Current == "" && !r.m.Native():
		return pass(c, "version_conflict naming no current version (the target's conflicts name none); text and version unchanged")
	case conflict.Current == "":
		return r.fail(c, "the conflict reports no current version; the current version is %s", before.Version)
	case conflict.Current != before.Version:
		return r.fail(c, "the conflict reports version %s; the current version is %s", conflict.Current, before.Version)
	}
	return pass(c, "version_conflict with current_version %s; text and version unchanged", conflict.Current)
}

func (r *runner) missingVersion(c results.ConformCheck) (results.ConformCheck, error) {
	before, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	sent := r.s.sent.Load()
	_, got := r.write(r.s, "", r.key("noversion"), extend(before.Text, "conform: no version"))
	reached := !r.s.traced || r.s.sent.Load() > sent
	after, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the write", err)
	}
	kind := contract.KindOf(got)
	var refused refusal
	rpc := errors.As(got, &refused)
	switch {
	case changed(before, after):
		return r.fail(c, "the write without expected_version was applied (%s)", describe(got))
	case got == nil:
		return r.fail(c, "the write without expected_version was answered as a success")
	case !reached:
		return r.fail(c, "the write without expected_version never reached the server: %v", got)
	case !answered(got):
		return r.fail(c, "the write without expected_version got no answer: %s", describe(got))
	case rpc:
		return pass(c, "refused with %s, not a tool result; nothing changed", describe(got))
	case r.m.Native() && kind != contract.KindInvalid && kind != contract.KindSchema:
		return r.fail(c, "refused with %s, not invalid_argument", describe(got))
	}
	return pass(c, "refused: %s; nothing changed", describe(got))
}

func (r *runner) sameKeyResend(c results.ConformCheck) (results.ConformCheck, error) {
	base, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	r.pause()
	key, text := r.key("resend"), extend(base.Text, "conform: written once")
	first, err := r.write(r.s, base.Version, key, text)
	if err != nil {
		return r.fail(c, "the first write got %s", describe(err))
	}
	r.pause()
	again, err := r.write(r.s, base.Version, key, text)
	if err != nil {
		return r.fail(c, "the resend (same key, same arguments) got %s instead of the first result", describe(err))
	}
	after, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the resend", err)
	}
	switch {
	case again.Version != first.Version:
		return r.fail(c, "the resend returned version %s; the first write returned %s", again.Version, first.Version)
	case after.Version != first.Version || after.Text != text:
		return r.fail(c, "the resend wrote again: version %s after it, %s after the first", after.Version, first.Version)
	}
	replayed := "without"
	if again.Replayed {
		replayed = "with"
	}
	return pass(c, "the first result (version %s), %s \"replayed\": true; written once", again.Version, replayed)
}

// maxCreateResends bounds the resends of a create that met a conflict: a
// client re-lists and sends again, with the same key, this many times.
const maxCreateResends = 1

func (r *runner) lostReplyCreate(c results.ConformCheck) (results.ConformCheck, error) {
	label := r.key("lost")
	// The first reply is lost: the client reads none of it.
	req, first, err := r.createOnce(label, contract.TypeSheet, label)
	if err != nil {
		return c, err
	}
	if first.err != nil {
		return r.fail(c, "the create was refused: %s", describe(first.err))
	}
	r.pause()
	again := r.resend(req)
	path := "the resend: " + again.String()
	for i := 0; i < maxCreateResends && isConflict(again.err); i++ {
		// A client that meets a conflict re-lists and sends again, same key.
		l, err := r.list(r.s)
		if err != nil {
			return c, ended("the re-list", err)
		}
		req.ExpectedVersion = l.Version
		again = r.resend(req)
		path += "; after a re-list, same key: " + again.String()
	}
	l, err := r.list(r.s)
	if err != nil {
		return c, ended("the listing after the resend", err)
	}
	n := 0
	for _, t := range l.Tabs {
		if t.Label == label {
			n++
		}
	}
	switch {
	case n != 1:
		return r.fail(c, "%s created for one intent (%s)", plural.Count(n, "tab"), path)
	case again.err != nil && r.m.Key:
		return r.fail(c, "one tab, but the resend with the same key got %s, not the first result", describe(again.err))
	case again.err == nil && again.res.TabID != "" && first.res.TabID != "" && again.res.TabID != first.res.TabID:
		return r.fail(c, "the resend returned tab %s, the lost reply was for %s", again.res.TabID, first.res.TabID)
	case first.res.TabID == "":
		return pass(c, "one tab (%s)", path)
	}
	return pass(c, "one tab, %s (%s)", first.res.TabID, path)
}

// created is what a create ended in.
type created struct {
	res contract.CreateResult
	err error
}

func (p created) String() string { return replied(p.err, p.res.Replayed) }

func isConflict(err error) bool {
	_, ok := conflictOf(err)
	return ok
}

// createOnce lists the Note and, a pause later, creates a tab of typ with the
// version listed and key: the request and what it ended in. The error is
// the listing's.
func (r *runner) createOnce(key string, typ contract.TabType, label string) (contract.CreateRequest, created, error) {
	l, err := r.list(r.s)
	if err != nil {
		return contract.CreateRequest{}, created{}, ended("the listing", err)
	}
	req := contract.CreateRequest{NoteID: noteID, ExpectedVersion: l.Version, IdempotencyKey: key, TabType: typ, Label: label}
	r.pause()
	return req, r.resend(req), nil
}

func (r *runner) resend(req contract.CreateRequest) created {
	res, err := r.create(r.s, req)
	return created{res, err}
}

func (r *runner) versionsIncrease(c results.ConformCheck) (results.ConformCheck, error) {
	cur, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	f := r.m.VersionFormat
	seen := map[contract.Version]bool{cur.Version: true}
	v, text := cur.Version, cur.Text
	compared := true
	for i := range 5 {
		r.pause()
		text = extend(text, fmt.Sprintf("conform: increase %d", i))
		w, err := r.write(r.s, v, r.key("increase"), text)
		if err != nil {
			return r.fail(c, "write %d with the current version got %s", i+1, describe(err))
		}
		if seen[w.Version] {
			return r.fail(c, "write %d got version %s, which an earlier state had", i+1, w.Version)
		}
		after, known := later(f, v, w.Version)
		if known && !after {
			return r.fail(c, "write %d went from version %s to %s", i+1, v, w.Version)
		}
		compared = compared && known
		seen[w.Version] = true
		v = w.Version
	}
	kind := "strings, each new"
	switch {
	case f == "" && compared:
		kind = "integers, each greater"
	case f == contract.FormatCounter && compared:
		kind = "counter versions, each greater"
	case compared:
		kind = string(f) + " versions, each later"
	case f != "":
		kind = string(f) + " versions, each new"
	}
	return pass(c, "%s to %s over 5 writes: %s", cur.Version, v, kind)
}

// later reports whether version b comes after a in format f; known is
// false when the versions do not show it (not integers, where f is a
// counter or unnamed).
func later(f contract.VersionFormat, a, b contract.Version) (after, known bool) {
	switch f {
	case contract.FormatCounter, "":
		if !contract.IsCounter(string(a)) || !contract.IsCounter(string(b)) {
			return false, false
		}
		// Integers without leading zeros: the longer is the greater.
		if len(a) != len(b) {
			return len(a) < len(b), true
		}
		return a < b, true
	case contract.FormatMS, contract.FormatUSSuffix:
		// Timestamps of one width: their text sorts as their time.
		return a < b, true
	}
	return false, false
}

// The within-a-millisecond check writes back to back until a version repeats
// (a failure), until the chance that a server with millisecond versions would
// have shown no repeat falls below one in a million (a pass), or until it has
// made maxFastWrites writes or spent Options.FastTime, when it says it could
// not test the clause and how far it got. On a loaded machine fewer round
// trips come within a millisecond of the one before, so the check writes
// longer to reach the same certainty; it does not stop at a fixed count and
// call the clause untested.
const (
	maxFastWrites = 20000
	// wantShared is the expected number of consecutive commits sharing a
	// millisecond, were versions cut to milliseconds: e^-14 < 10^-6.
	wantShared = 14.0
)

func (r *runner) versionsWithinMillisecond(c results.ConformCheck) (results.ConformCheck, error) {
	cur, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	v, text := cur.Version, cur.Text
	shared := 0.0 // expected commits sharing a millisecond with the one before
	began := r.now()
	last := began
	writes := 0
	for ; writes < maxFastWrites && last.Sub(began) < r.opts.FastTime && shared < wantShared; writes++ {
		r.keepLast(1) // the evidence is the last two writes
		text = extend(text, "f")
		w, err := r.write(r.s, v, r.key("fast"), text)
		if err != nil {
			return r.fail(c, "write %d with the current version got %s", writes+1, describe(err))
		}
		now := r.now()
		if w.Version == v {
			return r.fail(c, "write %d got version %s, the version it replaced: two commits %v apart share a version", writes+1, v, now.Sub(last).Round(time.Microsecond))
		}
		if gap := now.Sub(last); writes > 0 && gap < time.Millisecond {
			// Two commits gap apart fall in one millisecond with
			// probability 1 - gap/1ms.
			shared += 1 - float64(gap)/float64(time.Millisecond)
		}
		v, last = w.Version, now
	}
	if shared < wantShared {
		return info(c, "not tested: %d writes in %.1fs, too few of them within a millisecond of the one before (%.1f such pairs expected, %.0f needed)",
			writes, last.Sub(began).Seconds(), shared, wantShared)
	}
	return pass(c, "%d back-to-back writes, close enough that millisecond versions would have repeated (all but certainly): no version repeated", writes)
}

func (r *runner) perTabVersions(c results.ConformCheck) (results.ConformCheck, error) {
	l, err := r.list(r.s)
	if err != nil {
		return c, ended("the listing", err)
	}
	r.pause()
	sheet, err := r.create(r.s, contract.CreateRequest{NoteID: noteID, ExpectedVersion: l.Version, IdempotencyKey: r.key("tab"),
		TabType: contract.TypeSheet, Label: "conform per-tab"})
	if err != nil {
		return r.fail(c, "creating a Sheet tab was refused: %s", describe(err))
	}
	r.pause()
	text, err := r.read(r.s) // the reader of the markdown tab
	if err != nil {
		return c, ended("the read of the text", err)
	}
	st, err := r.readTab(r.s, sheet.TabID)
	if err != nil {
		return c, ended("the read of the Sheet tab", err)
	}
	r.pause()
	if _, err := r.edit(r.s, contract.EditRequest{NoteID: noteID, TabID: sheet.TabID, ExpectedVersion: st.Version,
		IdempotencyKey: r.key("tab"), Operation: contract.OpSheetSetRange, Values: [][]any{{"x"}}}); err != nil {
		return r.fail(c, "a write to the Sheet tab with its version was refused: %s", describe(err))
	}
	now, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the Sheet write", err)
	}
	if now.Version != text.Version {
		return info(c, "versions are per Note: a write to the Sheet tab moved the markdown tab's version from %s to %s", text.Version, now.Version)
	}
	r.pause()
	if _, err := r.write(r.s, text.Version, r.key("tab"), extend(text.Text, "conform: per tab")); err != nil {
		return r.fail(c, "versions are per tab, yet the markdown write after a Sheet write got %s", describe(err))
	}
	return pass(c, "a Sheet write left the markdown tab at version %s; the markdown write with it landed", text.Version)
}

func (r *runner) concurrentWriters(c results.ConformCheck) (results.ConformCheck, error) {
	n := r.opts.Writers
	sessions := make([]*session, n)
	defer r.release(sessions)
	base := make([]contract.TabContent, n)
	for i := range sessions {
		s, err := r.session()
		if err != nil {
			return c, ended(fmt.Sprintf("opening writer %d's session", i+1), err)
		}
		sessions[i] = s
		// Each writer reads, as a client must before it writes; nobody
		// writes between the reads, so all read the same version.
		if base[i], err = r.read(s); err != nil {
			return c, ended(fmt.Sprintf("writer %d's read", i+1), err)
		}
	}
	r.pause()
	results := make([]contract.EditResult, n)
	errs := make([]error, n)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = r.key("racer")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			<-start
			results[i], errs[i] = r.write(s, base[i].Version, keys[i], extend(base[i].Text, racer(i)))
		})
	}
	close(start)
	wg.Wait()
	final, err := r.read(r.s)
	if err != nil {
		return c, ended("the read after the writers", err)
	}
	kept := 0
	for i := range n {
		if strings.Contains(final.Text, racer(i)) {
			kept++
		}
	}
	winners, won := 0, contract.Version("")
	for i, err := range errs {
		if err == nil {
			winners++
			won = results[i].Version
		}
	}
	if winners != 1 {
		return r.fail(c, "%d of %d writers won with expected version %s; the text kept %d of their lines", winners, n, base[0].Version, kept)
	}
	// A conflict names the winner's version: the one its write returned,
	// or the one read after it (a profile's write may return none of the
	// server's own).
	var others []string
	named, unnamed := 0, 0
	for _, err := range errs {
		conflict, ok := conflictOf(err)
		switch {
		case err == nil:
		case ok && conflict.Current == "" && !r.m.Native():
			unnamed++
		case ok && (conflict.Current == won || conflict.Current == final.Version):
			named++
		default:
			others = append(others, describe(err))
		}
	}
	switch {
	case len(others) > 0:
		return r.fail(c, "one won (version %s); the others got %s", won, strings.Join(others, ", "))
	case unnamed == 0:
		return pass(c, "one won (version %s); %s reporting it", won, plural.Count(named, "conflict"))
	case named == 0:
		return pass(c, "one won (version %s); %s, which name no current version (the target's conflicts name none)", won, plural.Count(unnamed, "conflict"))
	}
	return pass(c, "one won (version %s); %s, %d reporting it, %d naming no current version", won, plural.Count(named+unnamed, "conflict"), named, unnamed)
}

func racer(i int) string { return fmt.Sprintf("conform: racer %d", i) }

func (r *runner) sameKeyOtherArgs(c results.ConformCheck) (results.ConformCheck, error) {
	key := r.key("args")
	base, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	r.pause()
	firstText := extend(base.Text, "conform: first arguments")
	first, err := r.write(r.s, base.Version, key, firstText)
	if err != nil {
		return r.fail(c, "the first write got %s", describe(err))
	}
	r.pause()
	otherText := extend(firstText, "conform: other arguments")
	second, err := r.write(r.s, first.Version, key, otherText)
	after, rerr := r.read(r.s)
	if rerr != nil {
		return c, ended("the read after the second write", rerr)
	}
	switch {
	case err != nil && after.Text == firstText && contract.OutcomeOf(err) == contract.Fail:
		return pass(c, "refused, nothing written: %s", describe(err))
	case err == nil && after.Text == firstText:
		return pass(c, "the first result replayed (version %s); the other arguments not applied", second.Version)
	case after.Text == otherText:
		return r.fail(c, "the other arguments were applied as a second write under the same key (version %s)", cmp.Or(string(second.Version), "unknown"))
	case err != nil:
		return r.fail(c, "got %s, and the text became %q", describe(err), after.Text)
	}
	return r.fail(c, "answered as a success (version %s), and the text became %q", second.Version, after.Text)
}

func (r *runner) sameKeyOtherTool(c results.ConformCheck) (results.ConformCheck, error) {
	key := r.key("tool")
	base, err := r.read(r.s)
	if err != nil {
		return c, ended("the first read", err)
	}
	r.pause()
	first, err := r.write(r.s, base.Version, key, extend(base.Text, "conform: key for two tools"))
	if err != nil {
		return r.fail(c, "the write got %s", describe(err))
	}
	r.pause()
	src, err := r.addSource(r.s, contract.SourceRequest{NoteID: noteID, ExpectedVersion: first.Version, IdempotencyKey: key,
		Title: "conform", URL: "https://example.org/conform"})
	switch {
	case err != nil:
		return info(c, "add_note_source refused: %s", describe(err))
	case src.Replayed:
		return info(c, "add_note_source replayed edit_note_tab's result")
	}
	return info(c, "add_note_source ran as a new write: keys are scoped per tool")
}

func (r *runner) staleResendOrder(c results.ConformCheck) (results.ConformCheck, error) {
	req, first, err := r.createOnce(r.key("order"), contract.TypeSlides, "conform order")
	if err != nil {
		return c, err
	}
	if first.err != nil {
		return r.fail(c, "the create was refused: %s", describe(first.err))
	}
	// The create moved the version: the resend's expected version is stale.
	r.pause()
	again := r.resend(req)
	conflict, isConflict := conflictOf(again.err)
	switch {
	case again.err == nil && again.res.TabID == first.res.TabID:
		return info(c, "key first: the first result (tab %s), though its version is stale", first.res.TabID)
	case isConflict:
		return info(c, "version first: version_conflict (current %s); a client must re-list and resend with the same key", conflict.Current)
	}
	return info(c, "answered %s", again)
}
