package conform

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
)

func (r *runner) staleVersion() (Check, error) {
	c := r.start("stale version", "a write with a stale expected_version is refused with a conflict that reports the current version, and changes nothing")
	base, first, err := r.writeCurrent(r.key("stale"), "conform: first write")
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "a write with the current version was refused: %s", first)
	}
	r.pause()
	before, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	stale, after, err := r.thenRead(r.writeText(r.s, base.Version, r.key("stale"), "conform: stale write"))
	if err != nil {
		return c, err
	}
	switch {
	case stale.Error != contract.ErrVersionConflict:
		return r.fail(c, "the write with stale version %s got %s", base.Version, stale)
	case stale.CurrentVersion != before.Version:
		return r.fail(c, "the conflict reports version %s; the current version is %s", stale.CurrentVersion, before.Version)
	case after.Version != before.Version || textOf(after) != textOf(before):
		return r.fail(c, "the refused write changed the Note (version %s to %s)", before.Version, after.Version)
	}
	return r.pass(c, "version_conflict with current_version %s; text and version unchanged", stale.CurrentVersion)
}

func (r *runner) missingVersion() (Check, error) {
	c := r.start("no expected_version", "a write without expected_version is refused by the schema and changes nothing")
	before, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	got, after, err := r.thenRead(r.call(r.s, contract.ToolEditNoteTab, map[string]any{"note_id": noteID, "tab_id": "markdown",
		"idempotency_key": r.key("noversion"), "operation": "replace_text", "text": "conform: no version"}))
	if err != nil {
		return c, err
	}
	switch {
	case after.Version != before.Version || textOf(after) != textOf(before):
		return r.fail(c, "the write without expected_version was applied (%s)", got)
	case got.ok():
		return r.fail(c, "the write without expected_version was answered as a success")
	case got.refused != "":
		return r.pass(c, "refused with a %s, not a tool result; nothing changed", got.refused)
	case got.Error != contract.ErrInvalidArgument:
		return r.fail(c, "refused with %s, not invalid_argument", got)
	}
	return r.pass(c, "refused: %s; nothing changed", got)
}

func (r *runner) sameKeyResend() (Check, error) {
	c := r.start("same-key resend", "a resend with the same idempotency key returns the first result and writes once")
	base, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	r.pause()
	key, text := r.key("resend"), textOf(base)+"\nconform: written once"
	first, err := r.writeText(r.s, base.Version, key, text)
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "the first write was refused: %s", first)
	}
	r.pause()
	again, after, err := r.thenRead(r.writeText(r.s, base.Version, key, text))
	if err != nil {
		return c, err
	}
	switch {
	case !again.ok():
		return r.fail(c, "the resend (same key, same arguments) got %s instead of the first result", again)
	case again.Version != first.Version:
		return r.fail(c, "the resend returned version %s; the first write returned %s", again.Version, first.Version)
	case after.Version != first.Version || textOf(after) != text:
		return r.fail(c, "the resend wrote again: version %s after it, %s after the first", after.Version, first.Version)
	}
	replayed := "without"
	if again.Replayed {
		replayed = "with"
	}
	return r.pass(c, "the first result (version %s), %s \"replayed\": true; written once", again.Version, replayed)
}

func (r *runner) lostReplyCreate() (Check, error) {
	c := r.start("lost reply, create", "a create whose reply was lost, resent with the same key, creates one tab, not two")
	label := r.key("lost")
	// The first reply is lost: the client reads none of it.
	req, first, again, err := r.createTwice(label, "sheet", label)
	switch {
	case err != nil:
		return c, err
	case !first.ok():
		return r.fail(c, "the create was refused: %s", first)
	}
	path := "the resend: " + again.String()
	if again.Error == contract.ErrVersionConflict {
		// A client that meets a conflict re-lists and sends again, same key.
		l, err := r.list()
		if err != nil {
			return c, err
		}
		req["expected_version"] = l.Version
		if again, err = r.call(r.s, contract.ToolCreateNoteTab, req); err != nil {
			return c, err
		}
		path += "; after a re-list, same key: " + again.String()
	}
	l, err := r.list()
	if err != nil {
		return c, err
	}
	n := 0
	for _, t := range l.Tabs {
		if t.Label == label {
			n++
		}
	}
	switch {
	case n != 1:
		return r.fail(c, "%d tabs created for one intent (%s)", n, path)
	case again.TabID != first.TabID:
		return r.fail(c, "the resend returned tab %s, the lost reply was for %s", again.TabID, first.TabID)
	}
	return r.pass(c, "one tab, %s (%s)", first.TabID, path)
}

func (r *runner) versionsIncrease() (Check, error) {
	c := r.start("versions increase", "versions strictly increase across writes (commits "+r.opts.Pause.String()+" apart)")
	cur, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	seen := []contract.Version{cur.Version}
	v := cur.Version
	for i := range 5 {
		r.pause()
		w, err := r.writeText(r.s, v, r.key("increase"), fmt.Sprintf("conform: increase %d", i))
		if err != nil {
			return c, err
		}
		if !w.ok() {
			return r.fail(c, "write %d with the current version was refused: %s", i+1, w)
		}
		for _, old := range seen {
			if w.Version == old {
				return r.fail(c, "write %d got version %s, which an earlier state had", i+1, w.Version)
			}
		}
		if a, b, ok := integers(v, w.Version); ok && b <= a {
			return r.fail(c, "write %d went from version %s to %s", i+1, v, w.Version)
		}
		seen = append(seen, w.Version)
		v = w.Version
	}
	kind := "strings, each new"
	if _, _, ok := integers(seen[0], v); ok {
		kind = "integers, each greater"
	}
	return r.pass(c, "%s to %s over 5 writes: %s", seen[0], v, kind)
}

func integers(a, b contract.Version) (int64, int64, bool) {
	x, err1 := strconv.ParseInt(string(a), 10, 64)
	y, err2 := strconv.ParseInt(string(b), 10, 64)
	return x, y, err1 == nil && err2 == nil
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

func (r *runner) versionsWithinMillisecond() (Check, error) {
	c := r.start("writes within a millisecond", "two writes committed within the same millisecond get distinct versions")
	cur, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	v := cur.Version
	shared := 0.0 // expected commits sharing a millisecond with the one before
	began := r.now()
	last := began
	writes := 0
	for ; writes < maxFastWrites && last.Sub(began) < r.opts.FastTime && shared < wantShared; writes++ {
		if len(r.log) > 1 {
			r.log = r.log[len(r.log)-1:] // the evidence is the last two writes
		}
		w, err := r.writeText(r.s, v, r.key("fast"), fmt.Sprintf("conform: fast %d", writes))
		if err != nil {
			return c, err
		}
		now := r.now()
		if !w.ok() {
			return r.fail(c, "write %d with the current version was refused: %s", writes+1, w)
		}
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
		return r.info(c, "not tested: %d writes in %.1fs, too few of them within a millisecond of the one before (%.1f such pairs expected, %.0f needed)",
			writes, last.Sub(began).Seconds(), shared, wantShared)
	}
	return r.pass(c, "%d back-to-back writes, close enough that millisecond versions would have repeated (all but certainly): no version repeated", writes)
}

func (r *runner) perTabVersions() (Check, error) {
	c := r.start("per-tab versions", "when versions are per tab, a write to one tab does not conflict with a reader of another")
	l, err := r.list()
	if err != nil {
		return c, err
	}
	r.pause()
	sheet, err := r.call(r.s, contract.ToolCreateNoteTab, map[string]any{"note_id": noteID, "expected_version": l.Version,
		"idempotency_key": r.key("tab"), "tab_type": "sheet", "label": "conform per-tab"})
	if err != nil {
		return c, err
	}
	if !sheet.ok() {
		return r.fail(c, "creating a Sheet tab was refused: %s", sheet)
	}
	r.pause()
	text, err := r.readText(r.s) // the reader of the markdown tab
	if err != nil {
		return c, err
	}
	st, err := r.call(r.s, contract.ToolReadNoteTab, map[string]any{"note_id": noteID, "tab_id": sheet.TabID})
	if err != nil {
		return c, err
	}
	r.pause()
	cells, err := r.call(r.s, contract.ToolEditNoteTab, map[string]any{"note_id": noteID, "tab_id": sheet.TabID,
		"expected_version": st.Version, "idempotency_key": r.key("tab"), "operation": "sheet_set_range", "values": [][]any{{"x"}}})
	if err != nil {
		return c, err
	}
	if !cells.ok() {
		return r.fail(c, "a write to the Sheet tab with its version was refused: %s", cells)
	}
	now, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	if now.Version != text.Version {
		return r.info(c, "versions are per Note: a write to the Sheet tab moved the markdown tab's version from %s to %s", text.Version, now.Version)
	}
	r.pause()
	w, err := r.writeText(r.s, text.Version, r.key("tab"), textOf(text)+"\nconform: per tab")
	if err != nil {
		return c, err
	}
	if !w.ok() {
		return r.fail(c, "versions are per tab, yet the markdown write after a Sheet write got %s", w)
	}
	return r.pass(c, "a Sheet write left the markdown tab at version %s; the markdown write with it landed", text.Version)
}

func (r *runner) concurrentWriters() (Check, error) {
	n := r.opts.Writers
	c := r.start("concurrent writers", fmt.Sprintf("%d writers with the same expected version at once: exactly one wins, the others conflict naming its version", n))
	sessions := make([]contract.Session, n)
	defer func() {
		for _, s := range sessions {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i := range sessions {
		s, err := r.b.Session(r.ctx)
		if err != nil {
			return c, err
		}
		sessions[i] = s
	}
	r.pause()
	base, err := r.readText(r.s)
	if err != nil {
		return c, err
	}
	r.pause()
	replies := make([]reply, n)
	errs := make([]error, n)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = r.key("racer")
	}
	var mu sync.Mutex // guards r.log
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			<-start
			sub := &runner{ctx: r.ctx, opts: r.opts}
			replies[i], errs[i] = sub.writeText(s, base.Version, keys[i], fmt.Sprintf("conform: racer %d", i))
			mu.Lock()
			r.log = append(r.log, sub.log...)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	winners, won := 0, contract.Version("")
	var others []string
	for i, err := range errs {
		if err != nil {
			return c, err
		}
		if replies[i].ok() {
			winners++
			won = replies[i].Version
		}
	}
	for _, p := range replies {
		if p.ok() {
			continue
		}
		if p.Error != contract.ErrVersionConflict || p.CurrentVersion != won {
			others = append(others, p.String())
		}
	}
	switch {
	case winners != 1:
		return r.fail(c, "%d of %d writers won with expected version %s", winners, n, base.Version)
	case len(others) > 0:
		return r.fail(c, "one won (version %s); the others got %s", won, strings.Join(others, ", "))
	}
	return r.pass(c, "one won (version %s); %d conflicts reporting it", won, n-1)
}

func (r *runner) sameKeyOtherArgs() (Check, error) {
	c := r.start("same key, other arguments", "a key sent again with other arguments (the write-ups leave it open)")
	key := r.key("args")
	_, first, err := r.writeCurrent(key, "conform: first arguments")
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "the first write was refused: %s", first)
	}
	r.pause()
	second, after, err := r.thenRead(r.writeText(r.s, first.Version, key, "conform: other arguments"))
	if err != nil {
		return c, err
	}
	switch {
	case second.ok() && second.Replayed && textOf(after) == "conform: first arguments":
		return r.info(c, "the first result replayed; the other arguments ignored")
	case second.ok() && textOf(after) == "conform: other arguments":
		return r.info(c, "the other arguments were applied as a new write (version %s)", second.Version)
	case second.ok():
		return r.info(c, "answered as a success (version %s), text %q", second.Version, textOf(after))
	}
	return r.info(c, "refused: %s", second)
}

func (r *runner) sameKeyOtherTool() (Check, error) {
	c := r.start("same key, other tool", "a key used by one tool, sent to another (the write-ups leave it open)")
	key := r.key("tool")
	_, first, err := r.writeCurrent(key, "conform: key for two tools")
	if err != nil {
		return c, err
	}
	if !first.ok() {
		return r.fail(c, "the write was refused: %s", first)
	}
	r.pause()
	src, err := r.call(r.s, contract.ToolAddNoteSource, map[string]any{"note_id": noteID, "expected_version": first.Version,
		"idempotency_key": key, "title": "conform", "url": "https://example.org/conform"})
	if err != nil {
		return c, err
	}
	switch {
	case src.ok() && src.Replayed:
		return r.info(c, "add_note_source replayed edit_note_tab's result")
	case src.ok():
		return r.info(c, "add_note_source ran as a new write: keys are scoped per tool")
	}
	return r.info(c, "add_note_source refused: %s", src)
}

func (r *runner) staleResendOrder() (Check, error) {
	c := r.start("resend after the version moved", "a resend whose expected version went stale meanwhile: key checked first, or version first (the write-ups differ)")
	_, first, again, err := r.createTwice(r.key("order"), "slides", "conform order")
	switch {
	case err != nil:
		return c, err
	case !first.ok():
		return r.fail(c, "the create was refused: %s", first)
	}
	switch {
	case again.ok() && again.TabID == first.TabID:
		return r.info(c, "key first: the first result (tab %s), though its version is stale", first.TabID)
	case again.Error == contract.ErrVersionConflict:
		return r.info(c, "version first: version_conflict (current %s); a client must re-list and resend with the same key", again.CurrentVersion)
	}
	return r.info(c, "answered %s", again)
}
