package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/notesbench/notesbench/history"
)

// wire is one link's place on the wire, where its run's lost replies and
// duplicate sends are made: the pipes of a server over stdio (reader,
// writer) or the loopback proxy in front of a server over HTTP. The run arms
// a fault; the next write call through any of its wires takes it.
type wire struct {
	run *runFaults
	// pid is the process behind the pipes, 0 over HTTP; onCut ends it once
	// a lost reply cut its connection.
	pid   int
	onCut func()

	// cut is set once a lost reply cut the connection: the client reads
	// nothing more, and its session must be opened again.
	cut atomic.Bool
	// twin is set when a write was sent twice at once, until the call it
	// was sent for has taken it (tookTwin).
	twin atomic.Bool

	mu     sync.Mutex
	drops  map[string]string // the JSON-RPC IDs of replies to drop → the tool called
	ndrops atomic.Int32
	dupSeq int
}

// plan is what the wire does with one request: pass it on (the zero plan),
// drop its reply (lose), or send it twice at once (dup is the copy, dupID
// its JSON-RPC ID).
type plan struct {
	lose      bool
	dup       []byte
	id, dupID string
	tool      string
	pid       int
}

// rpcHead is what the wire reads of a JSON-RPC message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// planFor returns what to do with msg, one JSON-RPC message the client
// sends: a write call (a tool the Target counts as a write) takes a fault
// its run armed, anything else passes.
func (w *wire) planFor(msg []byte) plan {
	if w == nil || w.run == nil || !w.run.armed() || !bytes.Contains(msg, []byte(`"tools/call"`)) {
		return plan{}
	}
	var h rpcHead
	if json.Unmarshal(msg, &h) != nil || h.Method != "tools/call" || len(h.ID) == 0 || !w.run.t.writeTools[h.Params.Name] {
		return plan{}
	}
	p := plan{id: string(h.ID), tool: h.Params.Name, pid: w.pid}
	defer w.run.signal()
	switch {
	case take(&w.run.lose):
		p.lose = true
	case take(&w.run.dup):
		w.mu.Lock()
		w.dupSeq++
		p.dupID = fmt.Sprintf(`"notesbench-duplicate-%d"`, w.dupSeq)
		w.mu.Unlock()
		var m map[string]json.RawMessage
		if json.Unmarshal(msg, &m) != nil {
			return plan{}
		}
		m["id"] = json.RawMessage(p.dupID)
		dup, err := json.Marshal(m)
		if err != nil {
			return plan{}
		}
		p.dup = append(dup, '\n')
	}
	return p
}

// drop marks the reply with JSON-RPC ID id, to tool, as one to drop.
func (w *wire) drop(id, tool string) {
	w.mu.Lock()
	if w.drops == nil {
		w.drops = map[string]string{}
	}
	w.drops[id] = tool
	w.mu.Unlock()
	w.ndrops.Add(1)
}

// sentTwice reports a duplicate send.
func (w *wire) sentTwice(p plan, where string) {
	w.twin.Store(true)
	w.run.instant(history.FaultDuplicate, p.pid, fmt.Sprintf("%s sent twice at once by %s (JSON-RPC ids %s and %s), the second's reply dropped", p.tool, where, p.id, p.dupID))
}

// lost reports a reply dropped and cuts the connection.
func (w *wire) lost(tool, id, where string) {
	w.cut.Store(true)
	w.run.instant(history.FaultLoseReplies, w.pid, fmt.Sprintf("the reply to %s (JSON-RPC id %s) dropped by %s after the server sent it; the connection cut", tool, id, where))
	if w.onCut != nil {
		w.onCut()
	}
}

// dropped reports whether line, one message the server sent, is a reply the
// wire drops: a lost one (which cuts the connection) or the reply to a
// duplicate.
func (w *wire) dropped(line []byte) bool {
	if w.ndrops.Load() == 0 {
		return false
	}
	var h rpcHead
	if json.Unmarshal(line, &h) != nil || h.Method != "" || len(h.ID) == 0 {
		return false
	}
	id := string(h.ID)
	w.mu.Lock()
	tool, ok := w.drops[id]
	if ok {
		delete(w.drops, id)
	}
	w.mu.Unlock()
	if !ok {
		return false
	}
	w.ndrops.Add(-1)
	if !bytes.HasPrefix([]byte(id), []byte(`"notesbench-duplicate-`)) {
		w.lost(tool, id, "the pipe")
	}
	return true
}

// writer returns out, the server's stdin, with the wire's faults: a write
// call that takes a lost reply has its ID marked, one that takes a
// duplicate goes out twice, in one write. Every Write of the SDK's stdio
// transport is one whole message.
func (w *wire) writer(out io.Writer) io.Writer { return &wireWriter{w: w, out: out} }

type wireWriter struct {
	w   *wire
	out io.Writer
}

func (ww *wireWriter) Write(p []byte) (int, error) {
	pl := ww.w.planFor(p)
	switch {
	case pl.lose:
		ww.w.drop(pl.id, pl.tool) // before the server can answer
	case pl.dup != nil:
		ww.w.drop(pl.dupID, pl.tool)
		both := make([]byte, 0, len(p)+len(pl.dup))
		both = append(append(both, p...), pl.dup...)
		if _, err := ww.out.Write(both); err != nil {
			return 0, err
		}
		ww.w.sentTwice(pl, "the pipe")
		return len(p), nil
	}
	return ww.out.Write(p)
}

// wireLine bounds the lines the reader looks at: a longer one (a large
// document read) passes unread, and no reply the wire drops is that long.
const wireLine = 64 << 10

// reader returns in, the server's stdout, with the replies the wire drops
// left out; once a lost reply cut the connection it reads nothing more.
func (w *wire) reader(in io.Reader) io.Reader {
	return &wireReader{w: w, br: bufio.NewReaderSize(in, wireLine)}
}

type wireReader struct {
	w    *wire
	br   *bufio.Reader
	line []byte // what is left of the line being handed on
	mid  bool   // within a line longer than the buffer
	err  error
}

func (r *wireReader) Read(p []byte) (int, error) {
	for len(r.line) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.w.cut.Load() {
			return 0, io.EOF
		}
		chunk, err := r.br.ReadSlice('\n')
		start := !r.mid
		r.mid = errors.Is(err, bufio.ErrBufferFull)
		if r.mid {
			err = nil
		}
		r.err = err
		whole := start && !r.mid && err == nil
		if len(chunk) > 0 && !(whole && r.w.dropped(chunk)) {
			r.line = chunk
		}
	}
	n := copy(p, r.line)
	r.line = r.line[n:]
	return n, nil
}
