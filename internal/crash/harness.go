package crash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the driver of the integrity check

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/store"
)

// Config is one kill -9 run.
type Config struct {
	// Dir is the folder the database file goes in.
	Dir string
	// Synchronous is SQLite's synchronous setting of the file (WAL mode).
	Synchronous contract.Synchronous
	// Kills is how many times the child is killed; it is restarted after each
	// kill but the last, after which the parent opens the database itself.
	Kills int
	// Seed draws the moments of the kills.
	Seed uint64
	// MinLife and MaxLife bound how long a child serves before it is killed,
	// uniform in between, counted from its first acknowledged write (so that
	// every child does some work however slow the machine).
	MinLife, MaxLife time.Duration
	// Command returns the command that starts a child serving cfg (see Serve):
	// notesbench re-executing itself, or a test binary.
	Command func(cfg ChildConfig) *exec.Cmd
}

// DefaultConfig is the run notesbench crash makes: 50 kills, each child
// serving 5 to 40 ms.
func DefaultConfig() Config {
	return Config{Synchronous: contract.SyncNormal, Kills: 50, Seed: 1, MinLife: 5 * time.Millisecond, MaxLife: 40 * time.Millisecond}
}

// Result is what one run went through.
type Result struct {
	Run         string               `json:"run"`
	Synchronous contract.Synchronous `json:"synchronous"`
	// Kills counts the SIGKILLs the store survived: each but the last was
	// followed by a restart of the child, the last by the parent's own open.
	Kills int `json:"kills"`
	// Writes counts the write calls sent; Acknowledged those the child
	// answered as committed (or replayed); CutOff those a kill cut off, whose
	// outcome the editor never learned, and CommittedBeforeKill how many of
	// those had committed all the same: their resend was replayed.
	Writes              int `json:"writes"`
	Acknowledged        int `json:"acknowledged"`
	CutOff              int `json:"cut_off"`
	CommittedBeforeKill int `json:"committed_before_kill"`
	// Integrity is PRAGMA integrity_check's answer at the end: "ok", or its
	// first complaint.
	Integrity string  `json:"integrity"`
	Seconds   float64 `json:"seconds"`
}

// The Note the editors write.
const crashNote = "note-1"

// Run starts a child on a fresh database in cfg.Dir, lets three editors write
// through it and records their calls in w: claude and human append lines to
// the text (re-reading and re-applying on a conflict), agent adds sources. The
// child is killed with SIGKILL cfg.Kills times at moments drawn from cfg.Seed,
// and restarted after each kill but the last. An editor whose call was cut off
// waits for the next child and resends the same call with the same key, so an
// acknowledgement is never doubled by a resend. After the last kill the
// parent opens the database, records the final state, and runs PRAGMA
// integrity_check. Every child is killed and reaped before Run returns, also on
// error.
func Run(ctx context.Context, cfg Config, w *history.Writer) (res Result, err error) {
	switch {
	case cfg.Kills < 1:
		return res, errors.New("kills: must be at least 1")
	case cfg.MinLife < 0 || cfg.MaxLife < cfg.MinLife:
		return res, fmt.Errorf("life: %v to %v is not a range", cfg.MinLife, cfg.MaxLife)
	case cfg.Command == nil:
		return res, errors.New("no command to start the store process with")
	}
	if _, err := contract.SynchronousSettings.Parse(string(cfg.Synchronous)); err != nil {
		return res, err
	}
	start := time.Now()
	res = Result{Run: "crash-" + string(cfg.Synchronous), Synchronous: cfg.Synchronous}
	db := filepath.Join(cfg.Dir, res.Run+".db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	child := ChildConfig{DB: db, Synchronous: cfg.Synchronous}
	rec, err := w.Run(history.RunHeader{Run: res.Run, Seed: cfg.Seed, Clock: "real", Policy: "reapply; the same call and key after a kill"},
		func() int64 { return int64(time.Since(start)) })
	if err != nil {
		return res, err
	}

	l := newLink()
	var live *process // the child to kill on the way out
	defer func() {
		if live != nil {
			live.kill()
		}
	}()
	startChild := func() error {
		p, err := startProcess(ctx, cfg.Command(child))
		if err != nil {
			return err
		}
		live = p
		l.set(p)
		return nil
	}
	if err := startChild(); err != nil {
		return res, err
	}
	if _, err := live.call(ctx, request{Op: "create_note", Note: crashNote}); err != nil {
		return res, fmt.Errorf("creating the note: %w", err)
	}

	stop := make(chan struct{})
	ed := &editors{l: l, stop: stop, ackCh: make(chan struct{}, 1)}
	editorCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, name := range []string{"claude", "human", "agent"} {
		s := rec.Session(&remote{l: l, id: i + 1}, name)
		wg.Go(func() {
			if name == "agent" {
				errs[i] = ed.addSources(editorCtx, s)
			} else {
				errs[i] = ed.appendLines(editorCtx, s, name)
			}
			if errs[i] != nil {
				cancel()
			}
		})
	}

	r := rand.New(rand.NewPCG(cfg.Seed, 0x6b696c6c))
	var killErr error
	for k := 1; k <= cfg.Kills; k++ {
		life := cfg.MinLife + time.Duration(r.Int64N(int64(cfg.MaxLife-cfg.MinLife)+1))
		select { // an acknowledgement the previous child sent does not count
		case <-ed.ackCh:
		default:
		}
		select { // the first acknowledgement of this child
		case <-ed.ackCh:
		case <-editorCtx.Done():
			killErr = editorCtx.Err()
		}
		if killErr != nil {
			break
		}
		select {
		case <-time.After(life):
		case <-editorCtx.Done():
			killErr = editorCtx.Err()
		}
		if killErr != nil {
			break
		}
		if k == cfg.Kills {
			close(stop)
		}
		p := live
		l.set(nil)
		p.kill()
		live = nil
		res.Kills++
		if k < cfg.Kills {
			if killErr = startChild(); killErr != nil {
				break
			}
		}
	}
	select {
	case <-stop:
	default:
		close(stop) // the schedule broke off: the editors stop too
	}
	if live != nil {
		live.kill()
		live = nil
	}
	wg.Wait()
	if err := errors.Join(append(errs, killErr)...); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		return res, err
	}
	res.Writes, res.Acknowledged = int(ed.writes.Load()), int(ed.acked.Load())
	res.CutOff, res.CommittedBeforeKill = int(ed.cutOff.Load()), int(ed.replayed.Load())

	// The final state, as the database holds it after the last kill.
	st, err := store.Open(db, store.Options{Synchronous: cfg.Synchronous})
	if err != nil {
		return res, fmt.Errorf("opening the database after the last kill: %w", err)
	}
	conn, err := st.Conn(ctx)
	if err == nil {
		err = rec.Final(ctx, conn, crashNote)
		if err == nil {
			res.Integrity, err = conn.IntegrityCheck(ctx)
		}
		err = errors.Join(err, conn.Close())
	}
	if err = errors.Join(err, st.Close()); err != nil {
		return res, err
	}
	if err := rec.End(); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// epochs is how editors follow the store's restarts: which one a call made
// now goes to, and waiting until one after it is up (false when stop closes
// first). A link is one; a test over the wire has its own.
type epochs interface {
	now() int
	await(epoch int, stop <-chan struct{}) bool
}

// editors is what the editors of one run share.
type editors struct {
	l        epochs
	stop     chan struct{}
	writes   atomic.Int64
	acked    atomic.Int64
	cutOff   atomic.Int64
	replayed atomic.Int64 // resends of a cut-off write that were replayed
	// ackCh is signalled, without waiting, on every acknowledgement.
	ackCh chan struct{}
}

// ack counts an acknowledgement and tells the killer.
func (e *editors) ack() {
	e.acked.Add(1)
	select {
	case e.ackCh <- struct{}{}:
	default:
	}
}

func (e *editors) stopped() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// attempt makes one call; when a kill cut it off, or no child was up, it
// waits for the next child and says so (again true), or says the run is over
// (stop true).
func (e *editors) attempt(write bool, call func() error) (again, stop bool, err error) {
	epoch := e.l.now()
	err = call()
	if errors.Is(err, errNoChild) {
		up := e.l.await(epoch, e.stop)
		return up, !up, err
	}
	if write {
		e.writes.Add(1)
	}
	if !errors.Is(err, errDown) {
		return false, false, err
	}
	if write {
		e.cutOff.Add(1)
	}
	if !e.l.await(epoch, e.stop) {
		return false, true, err
	}
	return true, false, err
}

// commit carries one intent to its acknowledgement: prepare reads what the
// write needs and builds it, write sends it and says whether it was replayed.
// A conflict prepares again; a call a kill cut off is made again, the same, so
// a write cut off is resent with the same key. It reports false when the run
// stopped first.
func (e *editors) commit(prepare func() error, write func() (replayed bool, err error)) (bool, error) {
	prepared := false
	resent := false // the write was cut off by a kill and is being sent again
	for {
		if e.stopped() {
			return false, nil
		}
		if !prepared {
			again, stop, err := e.attempt(false, prepare)
			switch {
			case stop:
				return false, nil
			case again:
				continue
			case err != nil:
				return false, err
			}
			prepared, resent = true, false
		}
		var replayed bool
		again, stop, err := e.attempt(true, func() (err error) {
			replayed, err = write()
			return err
		})
		var conflict *contract.ConflictError
		switch {
		case stop:
			return false, nil
		case again:
			resent = true
			continue
		case errors.As(err, &conflict):
			prepared = false
			continue
		case err != nil:
			return false, err
		}
		e.ack()
		if resent && replayed {
			e.replayed.Add(1)
		}
		return true, nil
	}
}

// appendLines appends line after line to the text: read, write the text plus
// the line with the version read, re-read and re-apply on a conflict; a call a
// kill cut off is made again, the same, with the same key.
func (e *editors) appendLines(ctx context.Context, s contract.Session, name string) error {
	for i := 0; ; i++ {
		line := fmt.Sprintf("%s-%d", name, i)
		history.Intend(s, history.Intent{Mark: line})
		var req contract.EditRequest
		tries := 0
		ok, err := e.commit(func() error {
			read, err := s.ReadNoteTab(ctx, crashNote, "markdown")
			if err != nil {
				return err
			}
			tries++
			req = contract.EditRequest{NoteID: crashNote, TabID: "markdown", ExpectedVersion: read.Version,
				IdempotencyKey: fmt.Sprintf("%s-%d-%d", name, i, tries), Operation: contract.OpReplaceText, Text: read.Text + "\n" + line}
			return nil
		}, func() (bool, error) {
			res, err := s.EditNoteTab(ctx, req)
			return res.Replayed, err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !ok {
			return nil
		}
	}
}

// addSources adds source after source, each with a key of its own, with the
// Note version of a listing; on a conflict it re-lists and sends the same key
// with the fresh version; a call a kill cut off is made again, the same.
func (e *editors) addSources(ctx context.Context, s contract.Session) error {
	for i := 0; ; i++ {
		url := fmt.Sprintf("https://pages.example.org/crash/%d", i)
		history.Intend(s, history.Intent{Mark: url})
		var req contract.SourceRequest
		ok, err := e.commit(func() error {
			list, err := s.ListNoteTabs(ctx, crashNote)
			if err != nil {
				return err
			}
			req = contract.SourceRequest{NoteID: crashNote, ExpectedVersion: list.Version,
				IdempotencyKey: fmt.Sprintf("source-%d", i), Title: fmt.Sprintf("Page %d", i), URL: url}
			return nil
		}, func() (bool, error) {
			res, err := s.AddNoteSource(ctx, req)
			return res.Replayed, err
		})
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		if !ok {
			return nil
		}
	}
}

// Check judges the runs w recorded, as notesbench check would judge the file:
// it writes the history, reads it back and runs package check.
func Check(ctx context.Context, w *history.Writer, timeout time.Duration) (*check.Report, error) {
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	h, err := history.Read(ctx, &buf, "crash history")
	if err != nil {
		return nil, err
	}
	return check.Run(ctx, []*history.History{h}, check.Options{Timeout: timeout})
}
