package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
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

// Log is the Sink of a history written as it is recorded, line by line:
// the history of a server whose clients come and go, which no run hands over
// whole at its end. It holds one run. CreateLog makes its file; the run's
// Recorder (Record) writes the history header and the run header, then
// every call as it returns and every fault as it is recorded; when the run
// ends (Recorder.Close) the final state of every Note a call named, then the
// end line, and the file is closed. Each line is written with one write, so
// a process killed meanwhile leaves a history that Read reads, whose last
// line may be cut, and which lacks its end line: cut short.
//
// A Log is safe for concurrent use.
type Log struct {
	header Header

	mu     sync.Mutex
	f      *os.File
	opened bool
	closed bool
	calls  int
	faults int
	err    error // the first write that failed; nothing is written after it
}

// CreateLog creates the file at path, or takes an empty one, for the history
// with header h. A file that holds anything is refused, left as it is: a Log
// never replaces what was recorded.
func CreateLog(path string, h Header) (*Log, error) {
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
	return &Log{header: h, f: f}, nil
}

// open writes the history header and the header of run, the Log's one run.
func (l *Log) open(run RunHeader) (runSink, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened || l.closed {
		return nil, fmt.Errorf("history: run %q: a log holds one run", run.Run)
	}
	var buf bytes.Buffer
	if err := errors.Join(encodeLine(&buf, KindHistory, l.header), encodeLine(&buf, KindRun, run)); err != nil {
		return nil, err
	}
	if _, err := l.f.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	l.opened = true
	return l, nil
}

// write writes one line, unless the log is closed or a write failed, and
// counts it in n, when set.
func (l *Log) write(kind Kind, v any, n *int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.err != nil {
		return
	}
	var buf bytes.Buffer
	err := encodeLine(&buf, kind, v)
	if err == nil {
		_, err = l.f.Write(buf.Bytes())
	}
	switch {
	case err != nil && kind == KindEnd:
		l.err = fmt.Errorf("history: writing the end: %w", err)
	case err != nil:
		l.err = fmt.Errorf("history: writing a %s: %w", kind, err)
	case n != nil:
		*n++
	}
}

func (l *Log) call(c Call) int {
	l.write(KindCall, c, &l.calls)
	return -1
}

// loseReply does nothing: a call was written as it returned, and a server
// sees no reply lost.
func (l *Log) loseReply(int) {}

func (l *Log) fault(f Fault) { l.write(KindFault, f, &l.faults) }

func (l *Log) final(f Final) { l.write(KindFinal, f, nil) }

// end writes the end line and closes the file.
func (l *Log) end() error {
	l.mu.Lock()
	end := End{Runs: 1, Calls: l.calls, Faults: l.faults}
	l.mu.Unlock()
	l.write(KindEnd, end, nil)
	return l.Close()
}

// Err returns the first write to the file that failed, if any: from then on
// the log records nothing.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the file: nothing is written from now on. A run's end closes
// it; call Close for a Log whose run never ended.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.err
	}
	l.closed = true
	return errors.Join(l.err, l.f.Close())
}
