package history

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/atomicfile"
)

// Writer is the Sink of runs: it collects the runs of one history and writes
// them as one file. It is safe for concurrent use: runs in parallel each have
// their own Recorder (Record).
//
// Nothing is written until WriteFile (or WriteTo): a run hands its lines over
// when it ends, and the file holds the header, then the runs sorted by name,
// then the end line, so that the same runs on the virtual clock give the same
// bytes, and a file without its end line is known to be cut short. Until then the
// Writer holds the lines in memory, about 300 bytes a call (the published fast
// setup: 125,000 calls, 37 MB).
type Writer struct {
	header Header

	mu sync.Mutex
	// runs holds every run started: its encoded lines once it ended, nil
	// until then.
	runs map[string]*ended
}

// ended is a run handed over: its encoded lines, and how many calls and
// faults they hold.
type ended struct {
	lines         []byte
	calls, faults int
}

// NewWriter returns a Writer for a history with header h.
func NewWriter(h Header) *Writer {
	return &Writer{header: h, runs: map[string]*ended{}}
}

// open starts collecting run h. A run name may be used once per Writer.
func (w *Writer) open(h RunHeader) (runSink, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.runs[h.Run]; ok {
		return nil, fmt.Errorf("history: run %q is recorded twice", h.Run)
	}
	w.runs[h.Run] = nil
	return &buffered{w: w, header: h}, nil
}

// buffered is a run of a Writer, held until it ends, for a fault may begin
// before calls already recorded returned and a reply may be lost after its
// call returned.
type buffered struct {
	w      *Writer
	header RunHeader
	calls  []Call
	faults []Fault
	finals []Final
}

func (b *buffered) call(c Call) int {
	b.calls = append(b.calls, c)
	return len(b.calls) - 1
}

func (b *buffered) loseReply(i int) {
	if i >= len(b.calls) {
		return
	}
	c := &b.calls[i]
	c.Outcome, c.ErrorKind, c.Error = contract.Info, contract.KindReplyLost, "the reply was lost"
	c.Version, c.Replayed, c.TabID, c.SourceID = "", false, "", ""
}

func (b *buffered) fault(f Fault) { b.faults = append(b.faults, f) }

func (b *buffered) final(f Final) { b.finals = append(b.finals, f) }

// end hands the run to its Writer: the run header, every call in the order
// the recorder learned its outcome with each fault before the first call
// that returned after the fault began, then the final states.
func (b *buffered) end() error {
	faults := slices.Clone(b.faults)
	slices.SortStableFunc(faults, func(x, y Fault) int { return cmp.Compare(x.Start, y.Start) })
	var buf bytes.Buffer
	err := encodeLine(&buf, KindRun, b.header)
	for i := range b.calls {
		for len(faults) > 0 && faults[0].Start < b.calls[i].Return {
			err = errors.Join(err, encodeLine(&buf, KindFault, faults[0]))
			faults = faults[1:]
		}
		err = errors.Join(err, encodeLine(&buf, KindCall, b.calls[i]))
	}
	for i := range faults {
		err = errors.Join(err, encodeLine(&buf, KindFault, faults[i]))
	}
	for i := range b.finals {
		err = errors.Join(err, encodeLine(&buf, KindFinal, b.finals[i]))
	}
	if err != nil {
		return fmt.Errorf("history: run %q: %w", b.header.Run, err)
	}
	b.w.finish(b.header.Run, ended{lines: buf.Bytes(), calls: len(b.calls), faults: len(b.faults)})
	b.calls, b.faults, b.finals = nil, nil, nil
	return nil
}

// finish stores the encoded lines of an ended run.
func (w *Writer) finish(name string, run ended) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runs[name] = &run
}

// WriteTo writes the history: the header line, then every run, sorted by
// name, then the end line, which counts them. It fails, writing nothing, when
// a run was started and not ended.
func (w *Writer) WriteTo(dst io.Writer) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	names := slices.Sorted(maps.Keys(w.runs))
	var open []string
	for _, name := range names {
		if w.runs[name] == nil {
			open = append(open, name)
		}
	}
	if len(open) > 0 {
		return 0, fmt.Errorf("history: runs not ended: %s", strings.Join(open, ", "))
	}
	var buf bytes.Buffer
	if err := encodeLine(&buf, KindHistory, w.header); err != nil {
		return 0, err
	}
	n, err := dst.Write(buf.Bytes())
	total := int64(n)
	if err != nil {
		return total, err
	}
	end := End{Runs: len(names)}
	for _, name := range names {
		run := w.runs[name]
		end.Calls += run.calls
		end.Faults += run.faults
		n, err := dst.Write(run.lines)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	buf.Reset()
	if err := encodeLine(&buf, KindEnd, end); err != nil {
		return total, err
	}
	n, err = dst.Write(buf.Bytes())
	return total + int64(n), err
}

// WriteFile writes the history to path whole or not at all, as every notesbench
// result file is written (internal/atomicfile): on any error, path keeps its
// old content, if any, and no temporary file is left.
func (w *Writer) WriteFile(path string) error {
	return atomicfile.Write(path, 0o644, func(dst io.Writer) error {
		_, err := w.WriteTo(dst)
		return err
	})
}

// encodeLine appends one line of the given kind holding v's fields.
func encodeLine(buf *bytes.Buffer, kind Kind, v any) error {
	var obj bytes.Buffer
	enc := json.NewEncoder(&obj)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// v is a struct: its fields follow the envelope's, on the same line.
	b := bytes.TrimSpace(obj.Bytes())
	fmt.Fprintf(buf, `{"format_version":%d,"kind":%q`, FormatVersion, kind)
	if len(b) > 2 {
		buf.WriteByte(',')
	}
	buf.Write(b[1:])
	buf.WriteByte('\n')
	return nil
}

// IsHistoryFile reports whether the file at path starts with a history header
// (any format version): a file a new history may replace.
func IsHistoryFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false
	}
	var env envelope
	return json.Unmarshal(line, &env) == nil && env.Kind == KindHistory && env.FormatVersion != nil
}
