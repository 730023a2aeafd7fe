package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
)

// ExperimentServe is the experiment of a served history: the one
// notesbench serve --history writes, of every call its clients made.
const ExperimentServe = "serve"

// The session and editor of the scripted person's calls in a served history
// (notesbench serve --person). The sessions of MCP clients are numbered from
// 1, each named by its clientInfo.
const (
	PersonSession = 0
	PersonEditor  = "person"
)

// Log is a history written as it is recorded, line by line: the history of
// a server whose clients come and go, which no run hands over whole at its
// end. It holds one run. CreateLog writes the history header and the run
// header; every call a Client records is written as it returns; Close reads
// the final state of every Note a call named and writes it, then the end
// line. Each line is written with one write, so a process killed meanwhile
// leaves a history that Read reads, whose last line may be cut, and which
// lacks its end line: cut short.
//
// A Log is safe for concurrent use.
type Log struct {
	header RunHeader
	clock  func() int64

	mu      sync.Mutex
	f       *os.File
	last    int64
	started bool
	calls   int
	closed  bool
	err     error // the first write that failed; nothing is written after it
	// notes are the Notes a call named, in the order first named; edited
	// the sheet tabs a write named, per Note, whose sheets the final state
	// holds.
	notes  []string
	edited map[string]map[string]bool
}

// CreateLog creates the file at path, or takes an empty one, and writes the
// history header h and the run header run to it. A file that holds anything
// is refused, left as it is: a Log never replaces what was recorded. Every time the Log takes comes from
// clock, in nanoseconds. The run's variant's zero fields are filled with the
// contract's defaults.
func CreateLog(path string, h Header, run RunHeader, clock func() int64) (*Log, error) {
	if clock == nil {
		return nil, errors.New("history: a log needs a clock")
	}
	if run.Run == "" {
		return nil, errors.New("history: a run needs a name")
	}
	run.Variant = run.Variant.WithDefaults()
	if err := run.Variant.ValidateServed(); err != nil {
		return nil, fmt.Errorf("history: run %q: %w", run.Run, err)
	}
	var buf bytes.Buffer
	if err := encodeLine(&buf, KindHistory, h); err != nil {
		return nil, err
	}
	if err := encodeLine(&buf, KindRun, run); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.Size() > 0 {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not empty: a log never replaces what was recorded", path)
		}
		return nil, err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return nil, err
	}
	return &Log{header: run, clock: clock, f: f, edited: map[string]map[string]bool{}}, nil
}

// Now reads the log's clock: a time later than every time it handed out
// before, so that no two events of the run share a time.
func (l *Log) Now() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nowLocked()
}

func (l *Log) nowLocked() int64 {
	t := l.clock()
	if l.started && t <= l.last {
		t = l.last + 1
	}
	l.started, l.last = true, t
	return t
}

// record writes one call, unless the log is closed or a write failed.
func (l *Log) record(c Call) {
	c.Run = l.header.Run
	var buf bytes.Buffer
	err := encodeLine(&buf, KindCall, c)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.err != nil {
		return
	}
	if err == nil {
		_, err = l.f.Write(buf.Bytes())
	}
	if err != nil {
		l.err = fmt.Errorf("history: writing a call: %w", err)
		return
	}
	l.calls++
	if l.edited[c.Note] == nil {
		l.notes = append(l.notes, c.Note)
		l.edited[c.Note] = map[string]bool{}
	}
	if (c.Tool == contract.ToolEditNoteTab || c.Tool == ext.ToolSetCells) && c.Tab != "" {
		l.edited[c.Note][c.Tab] = true
	}
}

// Err returns the first write to the file that failed, if any: from then on
// the log records nothing.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close ends the log: calls recorded from now on are not written; the final
// state of every Note a call named is read through s, with calls that are
// not recorded, and written (a Note that does not exist has none; with s
// nil, no Note has one), then the end line, and the file is closed. Call it
// when no call is in flight. A Note whose state cannot be read is left
// without one, and said in the error; the end line is written all the same.
func (l *Log) Close(ctx context.Context, s contract.Session) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errors.New("history: the log is closed")
	}
	l.closed = true
	notes := l.notes
	l.mu.Unlock()

	var errs []error
	var buf bytes.Buffer
	for _, note := range notes {
		if s == nil {
			break
		}
		f, err := readFinal(ctx, s, l.header.Run, note, l.edited[note])
		var nf *contract.NotFoundError
		switch {
		case errors.As(err, &nf) && nf.Field == "note_id":
			continue // a Note nobody made: calls named it in vain
		case err != nil:
			errs = append(errs, err)
			continue
		}
		if err := encodeLine(&buf, KindFinal, f); err != nil {
			errs = append(errs, err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := encodeLine(&buf, KindEnd, End{Runs: 1, Calls: l.calls}); err != nil {
		errs = append(errs, err)
	}
	if l.err == nil {
		if _, err := l.f.Write(buf.Bytes()); err != nil {
			l.err = fmt.Errorf("history: writing the end: %w", err)
		}
	}
	errs = append(errs, l.err, l.f.Close())
	return errors.Join(errs...)
}
