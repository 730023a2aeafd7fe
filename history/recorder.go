package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// Sink is where a Recorder's run goes: a Writer, which collects whole runs
// and writes them as one file at the end, or a Log, which writes each line
// to its file as it is recorded.
type Sink interface {
	// open starts the run h, its header checked and its variant filled in.
	open(h RunHeader) (runSink, error)
}

// runSink takes the records of one run from its Recorder, which calls it
// under its lock and never after end.
type runSink interface {
	// call takes a finished call and returns its index for loseReply, -1
	// when it keeps none.
	call(c Call) int
	// loseReply turns call i into one whose reply the client never saw.
	loseReply(i int)
	fault(f Fault)
	final(f Final)
	// end ends the run: nothing more comes.
	end() error
}

// Recorder records one run: the calls of the Sessions it wraps, the faults
// injected into it and the final state of its Notes, into its Sink. It is
// safe for concurrent use by the run's editors, or a server's clients.
type Recorder struct {
	sink   runSink
	header RunHeader
	clock  func() int64

	mu       sync.Mutex
	last     int64 // the last time handed out, once started
	started  bool
	sessions int
	ended    bool
	// notes are the Notes a call named, in the order first named; edited
	// holds, per Note, the tabs a write of cells named (edit_note_tab, the
	// person's set_cells): the tabs whose sheets the final state holds.
	notes  []string
	edited map[string]map[string]bool
}

// Record starts recording the run h into s. Every time the Recorder takes
// comes from clock, in nanoseconds: monotonic on the real clock (time since
// the run began), virtual time under the virtual clock. The variant's zero
// fields are filled with the contract's defaults.
func Record(s Sink, h RunHeader, clock func() int64) (*Recorder, error) {
	if h.Run == "" {
		return nil, errors.New("history: a run needs a name")
	}
	if clock == nil {
		return nil, fmt.Errorf("history: run %q has no clock", h.Run)
	}
	h.Variant = h.Variant.WithDefaults()
	if err := h.Variant.ValidateServed(); err != nil {
		return nil, fmt.Errorf("history: run %q: %w", h.Run, err)
	}
	rs, err := s.open(h)
	if err != nil {
		return nil, err
	}
	return &Recorder{sink: rs, header: h, clock: clock, edited: map[string]map[string]bool{}}, nil
}

// Now returns the clock's reading, moved past the last time handed out so that
// no two events of the run share a time: the order of times is the order in
// which the recorder saw the events. On the real clock a nudge is at most a few
// nanoseconds; on the virtual clock, where a call takes no virtual time, it
// orders events of the same virtual instant. A nemesis times its faults with
// it.
func (r *Recorder) Now() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.clock()
	if r.started && t <= r.last {
		t = r.last + 1
	}
	r.started, r.last = true, t
	return t
}

// Session wraps inner, one editor of a run, so that every call it makes is
// recorded as a call of editor, with the digest of every text it reads or
// writes whole (Call.Digest). Sessions wrapped so are numbered from 1 in the
// order they are wrapped. Close closes inner. The session offers the
// person's actions too (contract.Person), recorded as calls; one whose inner
// session has none answers them with an error.
func (r *Recorder) Session(inner contract.Session, editor string) contract.Session {
	r.mu.Lock()
	r.sessions++
	c := &Client{r: r, editor: editor, id: r.sessions}
	r.mu.Unlock()
	return c.Session(inner)
}

// Client returns the recorder of one client of a server: editor names it
// (an MCP client's clientInfo name), version is its version ("" when it gave
// none), session its number. Its calls record what a server can tell of
// each (see Client).
func (r *Recorder) Client(editor, version string, session int) *Client {
	return &Client{r: r, editor: editor, version: version, id: session, views: newViews()}
}

// StatelessClient is Client for stateless requests (MCP 2026-07-28), which
// come on no MCP session: the requests the caller holds to be one client's
// are recorded as one session, each call marked Call.Stateless.
func (r *Recorder) StatelessClient(editor, version string, session int) *Client {
	c := r.Client(editor, version, session)
	c.stateless = true
	return c
}

// append hands a finished call to the sink and returns its index, or -1 once
// the run ended.
func (r *Recorder) append(c Call) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return -1
	}
	if r.edited[c.Note] == nil {
		r.notes = append(r.notes, c.Note)
		r.edited[c.Note] = map[string]bool{}
	}
	if (c.Tool == contract.ToolEditNoteTab || c.Tool == ext.ToolSetCells) && c.Tab != "" {
		r.edited[c.Note][c.Tab] = true
	}
	return r.sink.call(c)
}

// loseReply turns call i into a call whose reply the client never saw.
func (r *Recorder) loseReply(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= 0 && !r.ended {
		r.sink.loseReply(i)
	}
}

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
		r.sink.fault(f)
	}
	return nil
}

// FaultBegan notes that a fault of kind began now, on the process pid (0:
// none), and returns the func that records it once it ended, with what was
// done: what a fault injector is told as each fault begins.
func (r *Recorder) FaultBegan(kind string, pid int) (ended func(detail string)) {
	start := r.Now()
	return func(detail string) {
		// A fault recorded after the run ended is left out, as a call made
		// after it would be.
		_ = r.Fault(Fault{Kind: kind, Start: start, End: max(start, r.Now()), PID: pid, Detail: detail})
	}
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
	r.sink.final(f)
	return nil
}

// End ends the run: calls made from now on are not recorded. A Writer holds
// it, to be written with the others; a Log writes its end line and closes
// its file.
func (r *Recorder) End() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return fmt.Errorf("history: run %q already ended", r.header.Run)
	}
	r.ended = true
	return r.sink.end()
}

// Close ends a run whose Notes nobody names in advance, a server's: calls
// made from now on are not recorded; the final state of every Note a call
// named is read through s, with calls that are not recorded, and recorded
// (a Note that does not exist has none; with s nil, no Note has one), then
// the run ends (End). Call it when no call is in flight. A Note whose state
// cannot be read is left without one, and said in the error; the run ends
// all the same.
func (r *Recorder) Close(ctx context.Context, s contract.Session) error {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return fmt.Errorf("history: run %q already ended", r.header.Run)
	}
	r.ended = true
	notes := slices.Clone(r.notes)
	r.mu.Unlock()

	var errs []error
	for _, note := range notes {
		if s == nil {
			break
		}
		f, err := readFinal(ctx, s, r.header.Run, note, r.edited[note])
		var nf *contract.NotFoundError
		switch {
		case errors.As(err, &nf) && nf.Field == "note_id":
			continue // a Note nobody made: calls named it in vain
		case err != nil:
			errs = append(errs, err)
			continue
		}
		r.mu.Lock()
		r.sink.final(f)
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(append(errs, r.sink.end())...)
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
