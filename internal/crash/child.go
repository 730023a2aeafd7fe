package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

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

	// lie, set by this package's tests only, answers a call in the store's
	// place when it returns true: a store that acknowledges what it never
	// wrote, which the test must catch.
	lie func(tool string, args json.RawMessage) (json.RawMessage, bool)
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
	st, err := store.Open(cfg.DB, store.Options{Synchronous: cfg.Synchronous})
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
			if cfg.lie != nil {
				var lied bool
				if res, lied = cfg.lie(req.Tool, req.Args); lied {
					break
				}
			}
			if s.conn == nil {
				if s.conn, err = st.Conn(ctx); err != nil {
					break
				}
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
