package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// Policy is what an editor does after a version conflict.
type Policy string

// The conflict policies.
const (
	// Reapply re-reads the tab and redoes the change on the fresh content.
	Reapply Policy = "reapply"
	// Refresh re-reads only to take the fresh version and resends the text it had
	// computed from the old content: it passes the check and still overwrites.
	Refresh Policy = "refresh"
)

// Policies is the enum of the conflict policies.
var Policies = contract.NewEnum("conflict policy", Reapply, Refresh)

// Timing is an editor's pause before each read, its think time between its
// read and its write, and how much longer than drawn each of those sleeps
// lasts.
type Timing struct {
	Pause     Dist
	Think     Dist
	Oversleep Oversleep
}

// edit is one scripted edit: what to read, and how to build the write from what
// was read.
type edit struct {
	tab string
	// mark is what the edit adds, unique in the run: its line or cell value.
	mark string
	// build returns the write request for the content read, with the edit's
	// unique mark (its line or cell) applied to it.
	build func(read contract.TabContent) contract.EditRequest
}

// editor is one scripted participant with its own connection and random stream.
type editor struct {
	name   string
	conn   contract.Session
	clock  Clock
	rand   *rand.Rand
	timing Timing
	policy Policy
	// errors counts the run's calls that ended in a server error, for every
	// editor of the run.
	errors *ErrorBudget
	// maxTries bounds the calls of one edit (triesBound); 0 means the
	// bound of the most edits a run can have.
	maxTries int
	// reissue: a write whose outcome is unknown is sent again, the same
	// call with the same key, up to MaxReissues times, before the edit is
	// given up.
	reissue bool
	stats   results.EditorRun
	// acked lists the edits the store acknowledged, by index.
	acked []int
}

// run performs n edits, each made by next(i): pause, read, think, write, and on a
// version conflict re-read and write again at once under the editor's policy,
// with a fresh idempotency key per try (a reissue resends its try's key), at
// most e.maxTries tries an edit.
//
// Every call ends ok, fail or info (contract.OutcomeOf), and the run goes on
// after each: a read that fails leaves the edit without a base, so the edit
// is given up; a write refused for any other reason than a conflict did not
// happen, and one whose outcome is unknown may have (its line is not
// acknowledged, so it is never counted lost); either way the editor goes on
// with its next edit, which reads afresh. Each such call counts as an error.
// The run ends early only on the caller's ctx, on a fault of the client's own
// (contract.Stops), or when the run's errors reach their limit.
func (e *editor) run(ctx context.Context, noteID string, n int, next func(i int) edit) error {
	e.stats.Edits = n
	for i := 0; i < n; i++ {
		if e.errors.timeUp() {
			e.stats.Edits = i // the edits it made are those it meant to
			return nil
		}
		if err := e.sleep(ctx, e.timing.Pause); err != nil {
			return err
		}
		ed := next(i)
		read, err := e.read(ctx, noteID, ed.tab)
		if err != nil {
			if err := e.callFailed(ctx, err); err != nil {
				return err
			}
			continue
		}
		if err := e.sleep(ctx, e.timing.Think); err != nil {
			return err
		}
		if err := e.write(ctx, noteID, i, ed, read); err != nil {
			return err
		}
	}
	return nil
}

// write makes edit i from what was read: it writes, and on a version
// conflict re-reads and writes again under the editor's policy, until the
// write lands, fails for another reason, or has taken e.maxTries calls. It
// returns only the errors that end the run.
func (e *editor) write(ctx context.Context, noteID string, i int, ed edit, read contract.TabContent) error {
	req := ed.build(read)
	history.Intend(e.conn, history.Intent{Mark: ed.mark, Base: read.Version})
	tries, limit := 0, e.maxTries
	if limit <= 0 {
		limit = triesBound(2 * maxEdits)
	}
	defer func() {
		e.stats.MaxTries = max(e.stats.MaxTries, tries)
		if tries > 1 {
			e.stats.Retried++
		}
	}()
	for {
		if tries == limit {
			return e.failed(ctx, fmt.Errorf("%s edit %d: still in conflict after %d tries", e.name, i, tries))
		}
		tries++
		req.IdempotencyKey = fmt.Sprintf("%s-%d-%d", e.name, i, tries)
		err, stop := e.send(ctx, req)
		if stop != nil {
			return stop
		}
		var conflict *contract.ConflictError
		switch {
		case err == nil:
			e.acked = append(e.acked, i)
			return nil
		case !errors.As(err, &conflict):
			return e.callFailed(ctx, fmt.Errorf("%s edit %d: %w", e.name, i, err))
		}
		e.stats.Conflicts++
		fresh, err := e.read(ctx, noteID, ed.tab)
		if err != nil {
			return e.callFailed(ctx, err)
		}
		if e.policy == Reapply {
			req = ed.build(fresh)
			history.Intend(e.conn, history.Intent{Mark: ed.mark, Base: fresh.Version})
		} else {
			req.ExpectedVersion = fresh.Version
		}
	}
}

// MaxReissues bounds how many times an editor that reissues sends one write
// again whose outcome it does not know.
const MaxReissues = 3

// send sends req, and, for an editor that reissues, sends it again, the
// same call with the same key, while its outcome is unknown, up to
// MaxReissues times. Only the last answer counts (as an error and an info,
// when its outcome is still unknown): an unknown outcome the resend
// settled is no error of the editor's, and Info stays a share of Errors,
// which the audit's counts rely on. It returns the last answer's error (nil: the write landed), and
// apart the error that ends the run (the caller's ctx).
func (e *editor) send(ctx context.Context, req contract.EditRequest) (answer, stop error) {
	for reissues := 0; ; reissues++ {
		if err := e.clock.BusyWrite(ctx); err != nil {
			return nil, err
		}
		_, err := e.conn.EditNoteTab(ctx, req)
		e.stats.Writes++
		if err == nil || !e.reissue || reissues == MaxReissues || contract.OutcomeOf(err) != contract.Info || Stopping(ctx, err) != nil {
			return err, nil
		}
	}
}

// failed counts a call that ended in a server error, and returns the error
// that ends the run instead, if any: the caller's ctx, a fault of the
// client's own, or the run's error limit reached.
func (e *editor) failed(ctx context.Context, err error) error {
	if stop := Stopping(ctx, err); stop != nil {
		return stop
	}
	e.stats.Errors++
	return e.errors.Add(err)
}

// callFailed is failed for the error of a call, whose outcome it counts
// too: info, or a document that did not read.
func (e *editor) callFailed(ctx context.Context, err error) error {
	if stop := Stopping(ctx, err); stop != nil {
		return stop
	}
	info, unreadable := OutcomeCounts(err)
	e.stats.Info += info
	e.stats.Unreadable += unreadable
	return e.failed(ctx, err)
}

// sleep draws a duration from d (one value from the editor's stream, always)
// and sleeps for it, lengthened by the editor's oversleep. The oversleep draws
// nothing, so the stream's order is the same under every rule.
func (e *editor) sleep(ctx context.Context, d Dist) error {
	v := d.Draw(e.rand)
	return e.clock.Sleep(ctx, v+e.timing.Oversleep.Extra(v))
}

func (e *editor) read(ctx context.Context, noteID, tab string) (contract.TabContent, error) {
	if err := e.clock.Busy(ctx); err != nil {
		return contract.TabContent{}, err
	}
	return e.conn.ReadNoteTab(ctx, noteID, tab)
}

// appendLine is the standard edit: add one unique line to the markdown tab.
func appendLine(noteID, line string) edit {
	return edit{
		tab:  "markdown",
		mark: line,
		build: func(read contract.TabContent) contract.EditRequest {
			return contract.EditRequest{NoteID: noteID, TabID: "markdown", ExpectedVersion: read.Version,
				Operation: contract.OpReplaceText, Text: read.Text + "\n" + line}
		},
	}
}

// setCell is the person's edit in the tabs experiment: one new cell per edit.
func setCell(noteID, tabID string, row int, value string) edit {
	return edit{
		tab:  tabID,
		mark: value,
		build: func(read contract.TabContent) contract.EditRequest {
			return contract.EditRequest{NoteID: noteID, TabID: tabID, ExpectedVersion: read.Version,
				Operation: contract.OpSheetSetRange, StartRow: row, Values: [][]any{{value}}}
		},
	}
}

// countLostLines counts the acknowledged lines of an editor missing from text.
func countLostLines(text, name string, acked []int) int {
	present := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		present[l] = true
	}
	lost := 0
	for _, i := range acked {
		if !present[lineName(name, i)] {
			lost++
		}
	}
	return lost
}

// countDuplicateLines counts the lines of an editor that text holds more
// than once: the line of one edit applied twice.
func countDuplicateLines(text, name string) int {
	seen := map[string]int{}
	prefix := name + "-"
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			seen[l]++
		}
	}
	dup := 0
	for _, n := range seen {
		dup += n - 1
	}
	return dup
}

func lineName(editor string, i int) string { return fmt.Sprintf("%s-%d", editor, i) }
