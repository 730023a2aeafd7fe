package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// Recorder records one run: the calls of the Sessions it wraps and the final
// state of its Notes. It is safe for concurrent use by the run's editors.
type Recorder struct {
	w      *Writer
	header RunHeader
	clock  func() int64

	mu       sync.Mutex
	last     int64 // the last time handed out, once started
	started  bool
	calls    []Call
	faults   []Fault
	finals   []Final
	sessions int
	ended    bool
	// edited holds, per Note, the tabs an edit_note_tab call named: the tabs
	// Final reads back beside the text.
	edited map[string]map[string]bool
}

// now returns the clock's reading, moved past the last time handed out so that
// no two events of the run share a time: the order of times is the order in
// which the recorder saw the events. On the real clock a nudge is at most a few
// nanoseconds; on the virtual clock, where a call takes no virtual time, it
// orders events of the same virtual instant.
func (r *Recorder) now() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.clock()
	if r.started && t <= r.last {
		t = r.last + 1
	}
	r.started, r.last = true, t
	return t
}

// Session wraps inner, one client of the contract, so that every typed call it
// makes is recorded as a call of editor. Sessions of one run are numbered from
// 1 in the order they are wrapped. The wrapper offers the contract.Session
// methods only: an experiment that needs the person's app actions
// (contract.Person) cannot record them. Close closes inner.
func (r *Recorder) Session(inner contract.Session, editor string) contract.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions++
	return &session{r: r, inner: inner, editor: editor, id: r.sessions, last: -1}
}

// append stores a finished call and returns its index, or -1 once the run ended.
func (r *Recorder) append(c Call) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return -1
	}
	if c.Tool == contract.ToolEditNoteTab && c.Tab != "" {
		tabs := r.edited[c.Note]
		if tabs == nil {
			tabs = map[string]bool{}
			r.edited[c.Note] = tabs
		}
		tabs[c.Tab] = true
	}
	r.calls = append(r.calls, c)
	return len(r.calls) - 1
}

// loseReply turns call i into a call whose reply the client never saw.
func (r *Recorder) loseReply(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < 0 || i >= len(r.calls) {
		return
	}
	c := &r.calls[i]
	c.Outcome, c.ErrorKind, c.Error = contract.Info, contract.KindReplyLost, "the reply was lost"
	c.Version, c.Replayed, c.TabID, c.SourceID = "", false, "", ""
}

// Final reads the state of Note noteID through s and records it: the tab bar
// and Note version, the markdown tab's text, the sheets of every tab a recorded
// call edited, and every source. Call it when the run's editors are done, with a
// session of its own (a recorded one is unwrapped, so the reads are not
// recorded as calls).
func (r *Recorder) Final(ctx context.Context, s contract.Session, noteID string) error {
	if rs, ok := s.(*session); ok {
		s = rs.inner
	}
	r.mu.Lock()
	edited := r.edited[noteID]
	r.mu.Unlock()
	f, err := readFinal(ctx, s, r.header.Run, noteID, edited)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return fmt.Errorf("history: run %q already ended", r.header.Run)
	}
	r.finals = append(r.finals, f)
	return nil
}

// readFinal reads the final state of Note noteID of run through s: the tab
// bar and Note version, the markdown tab's text, the sheets of the tabs in
// edited, and every source.
func readFinal(ctx context.Context, s contract.Session, run, noteID string, edited map[string]bool) (Final, error) {
	list, err := s.ListNoteTabs(ctx, noteID)
	if err != nil {
		return Final{}, fmt.Errorf("history: final state of %s: %w", noteID, err)
	}
	f := Final{Run: run, Note: noteID, Version: string(list.Version), Tabs: make([]FinalTab, len(list.Tabs)), Sources: []contract.Attachment{}}
	for i, t := range list.Tabs {
		f.Tabs[i] = FinalTab{TabID: t.TabID, Type: t.Type, Label: t.Label}
		switch {
		case t.Type == contract.TypeMarkdown:
			tab, err := s.ReadNoteTab(ctx, noteID, t.TabID)
			if err != nil {
				return Final{}, fmt.Errorf("history: final state of %s: %w", noteID, err)
			}
			f.Text = tab.Text
		case t.Type == contract.TypeSheet && edited[t.TabID]:
			tab, err := s.ReadNoteTab(ctx, noteID, t.TabID)
			if err != nil {
				return Final{}, fmt.Errorf("history: final state of %s: %w", noteID, err)
			}
			if f.Sheets == nil {
				f.Sheets = map[string][]contract.Sheet{}
			}
			f.Sheets[t.TabID] = tab.Sheets
		}
	}
	req := contract.AttachmentsRequest{NoteID: noteID, Kind: "sources", Limit: contract.MaxPageLimit}
	for {
		page, err := s.ListNoteAttachments(ctx, req)
		if err != nil {
			return Final{}, fmt.Errorf("history: final state of %s: %w", noteID, err)
		}
		f.Sources = append(f.Sources, page.Items...)
		if page.NextCursor == "" || page.NextCursor == req.Cursor {
			break
		}
		req.Cursor = page.NextCursor
	}
	return f, nil
}

// Now reads the run's clock as the recorder does for calls: a time later
// than every time it handed out before. A nemesis times its faults with it.
func (r *Recorder) Now() int64 { return r.now() }

// Fault records a fault injected into the run: f.Run is set to the run's
// name; Start and End are on the run's clock (Now), End no earlier than
// Start. A fault recorded after End is not recorded, as calls made after End
// are not.
func (r *Recorder) Fault(f Fault) error {
	f.Run = r.header.Run
	if err := checkFault(f); err != nil {
		return fmt.Errorf("history: run %q: %w", r.header.Run, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended {
		r.faults = append(r.faults, f)
	}
	return nil
}

// End hands the run to its Writer: the run header, every call in the order the
// recorder learned its outcome with each fault before the first call that
// returned after the fault began, then the final states. Calls made after End
// are not recorded.
func (r *Recorder) End() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return fmt.Errorf("history: run %q already ended", r.header.Run)
	}
	r.ended = true
	faults := slices.Clone(r.faults)
	slices.SortStableFunc(faults, func(a, b Fault) int { return cmp.Compare(a.Start, b.Start) })
	var buf bytes.Buffer
	err := encodeLine(&buf, KindRun, r.header)
	for i := range r.calls {
		for len(faults) > 0 && faults[0].Start < r.calls[i].Return {
			err = errors.Join(err, encodeLine(&buf, KindFault, faults[0]))
			faults = faults[1:]
		}
		err = errors.Join(err, encodeLine(&buf, KindCall, r.calls[i]))
	}
	for i := range faults {
		err = errors.Join(err, encodeLine(&buf, KindFault, faults[i]))
	}
	for i := range r.finals {
		err = errors.Join(err, encodeLine(&buf, KindFinal, r.finals[i]))
	}
	if err != nil {
		return fmt.Errorf("history: run %q: %w", r.header.Run, err)
	}
	r.w.finish(r.header.Run, ended{lines: buf.Bytes(), calls: len(r.calls), faults: len(r.faults)})
	r.calls, r.faults, r.finals = nil, nil, nil
	return nil
}
