package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/store"
)

// request is one line the parent sends: a tool call of a session, or, with Op
// set, a set-up operation (create_note).
type request struct {
	ID      int64           `json:"id"`
	Session int             `json:"session,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Op      string          `json:"op,omitempty"`
	Note    string          `json:"note,omitempty"`
}

// reply is one line the child sends: the tool's result object (a contract
// outcome included), or a failure of the store. The first line is {"ready":
// true} once the store is open, or {"fatal": "…"} when it cannot be.
type reply struct {
	ID      int64           `json:"id,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Failure string          `json:"failure,omitempty"`
	Ready   bool            `json:"ready,omitempty"`
	Fatal   string          `json:"fatal,omitempty"`
}

// ChildConfig is what a child serves: the database file and its synchronous
// setting. The file is in WAL mode, as every file database of the store.
type ChildConfig struct {
	DB          string
	Synchronous contract.Synchronous

	// replyBeforeCommit, set by this package's tests only, makes a child that
	// answers an edit before its COMMIT: once the edit's transaction has
	// passed the contract's checks, the child sends the result the edit will
	// commit, calls replyBeforeCommit (which holds the transaction open) and
	// only then goes on to COMMIT. Nothing is lost unless the child dies in
	// between; a kill then loses a write the editor was told had committed,
	// which the test must catch.
	replyBeforeCommit func()
}

// Serve runs a child: it opens the store, answers requests from in on out until
// in ends, then closes the store. Requests of different sessions run
// concurrently, each session on a connection of its own; a session's requests
// run in the order they come.
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg ChildConfig) error {
	var outMu sync.Mutex
	send := func(r reply) error {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		outMu.Lock()
		defer outMu.Unlock()
		_, err = out.Write(append(b, '\n'))
		return err
	}
	var early *earlyReplies
	opts := store.Options{Synchronous: cfg.Synchronous}
	if cfg.replyBeforeCommit != nil {
		early = &earlyReplies{hold: cfg.replyBeforeCommit}
		opts.Clock = early
	}
	st, err := store.Open(cfg.DB, opts)
	if err != nil {
		send(reply{Fatal: err.Error()})
		return err
	}
	// Ready means ready to answer at once: the tools' schemas compiled and the
	// database read once, so that a child's first calls cost no more than the
	// next ones.
	if err := warmUp(ctx, st); err != nil {
		st.Close()
		send(reply{Fatal: err.Error()})
		return err
	}
	if err := send(reply{Ready: true}); err != nil {
		st.Close()
		return err
	}
	type sess struct {
		mu   sync.Mutex
		conn *store.Conn
	}
	sessions := map[int]*sess{}
	var wg sync.WaitGroup
	handle := func(s *sess, req request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var res json.RawMessage
		var err error
		switch {
		case req.Op == "create_note":
			err = st.CreateNote(ctx, req.Note)
			res = json.RawMessage(`{}`)
			if out, ok := contract.ResultOf(err); ok {
				res, err = out, nil
			}
		case req.Op != "":
			err = fmt.Errorf("unknown op %q", req.Op)
		default:
			if s.conn == nil {
				if s.conn, err = st.Conn(ctx); err != nil {
					break
				}
			}
			if early != nil && early.writes(req) {
				if early.call(func() { res, err = contract.Call(ctx, s.conn, req.Tool, req.Args) }, req, send) {
					return // answered before the commit
				}
				break
			}
			res, err = contract.Call(ctx, s.conn, req.Tool, req.Args)
		}
		r := reply{ID: req.ID, Result: res}
		if err != nil {
			r = reply{ID: req.ID, Failure: err.Error()}
		}
		send(r)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			send(reply{Failure: "malformed request: " + err.Error()})
			continue
		}
		s := sessions[req.Session]
		if s == nil {
			s = &sess{}
			sessions[req.Session] = s
		}
		wg.Go(func() { handle(s, req) })
	}
	wg.Wait()
	var errs []error
	for _, s := range sessions {
		if s.conn != nil {
			errs = append(errs, s.conn.Close())
		}
	}
	errs = append(errs, st.Close(), sc.Err())
	return errors.Join(errs...)
}

// warmUp compiles the tools' schemas and reads the database once.
func warmUp(ctx context.Context, st *store.Store) error {
	if _, err := contract.ValidateArgs(contract.ToolListNoteTabs, json.RawMessage(`{"note_id":"warm-up"}`)); err != nil {
		return err
	}
	c, err := st.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ListNoteTabs(ctx, "warm-up")
	var notFound *contract.NotFoundError
	if errors.As(err, &notFound) {
		err = nil
	}
	return err
}

// earlyReplies is the clock of a child that answers edits before their COMMIT
// (ChildConfig.replyBeforeCommit). The store asks its clock for the time of a
// write's new version inside the write's transaction, after the contract's
// checks and before the COMMIT: there the clock sends the edit's result and
// holds the transaction open. The child runs one write at a time, so the
// write in the store is the one the clock answers for.
type earlyReplies struct {
	hold func()

	one sync.Mutex // held by the write in the store
	mu  sync.Mutex // guards the fields below
	req request
	// send answers req; nil once it has been answered.
	send func(reply) error
}

// writes reports whether req is a write, which runs one at a time (only an
// edit is answered early).
func (e *earlyReplies) writes(req request) bool {
	switch req.Tool {
	case contract.ToolEditNoteTab, contract.ToolCreateNoteTab, contract.ToolAddNoteSource:
		return true
	}
	return false
}

// call runs the write req with call, answering it early through send when it
// is an edit and the store reaches its version; it reports whether it did, and
// the caller must then not answer again.
func (e *earlyReplies) call(call func(), req request, send func(reply) error) (answered bool) {
	e.one.Lock()
	defer e.one.Unlock()
	e.mu.Lock()
	e.req, e.send = req, send
	e.mu.Unlock()
	call()
	e.mu.Lock()
	defer e.mu.Unlock()
	answered = e.send == nil
	e.send = nil
	return answered
}

// Now answers the write in the store with the result it will commit, the
// first time the store asks, then holds the transaction open.
func (e *earlyReplies) Now() time.Time {
	e.mu.Lock()
	send, req := e.send, e.req
	e.send = nil
	e.mu.Unlock()
	if send != nil {
		if res, ok := predictEdit(req.Args); ok {
			send(reply{ID: req.ID, Result: res})
			e.hold()
		} else {
			e.mu.Lock()
			e.send = send // not an edit: answered once it has committed, as usual
			e.mu.Unlock()
		}
	}
	return time.Now()
}

// predictEdit is the result an edit with counter versions commits once it has
// passed the version check: its expected version plus one.
func predictEdit(args json.RawMessage) (json.RawMessage, bool) {
	var req contract.EditRequest
	if err := json.Unmarshal(args, &req); err != nil {
		return nil, false
	}
	n, err := strconv.ParseInt(string(req.ExpectedVersion), 10, 64)
	if err != nil {
		return nil, false
	}
	_, changed, err := contract.ApplyEdit(contract.TypeMarkdown, "", req)
	if err != nil || req.Operation != contract.OpReplaceText {
		return nil, false
	}
	res, err := json.Marshal(contract.EditResult{NoteID: req.NoteID, TabID: req.TabID, Version: contract.Version(strconv.FormatInt(n+1, 10)), Changed: changed})
	return res, err == nil
}
