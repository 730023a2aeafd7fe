package crash

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/store"
)

// The same harness over the wire: the store is notesbench serve --http, a
// real process built by the test, and the editors reach it through MCP
// sessions of mcpclient, each on a connection of its own. The faults are
// SIGKILLs of the server at seeded moments, each followed by a restart on the
// same database and address, or, on PostgreSQL, pg_terminate_backend of the
// server's connections mid-write while the server runs on. A call a fault cut
// off is resent, the same, with the same key, on a session opened again.

// buildNotesbench builds notesbench into dir, as make build does.
func buildNotesbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "notesbench")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/notesbench/notesbench/cmd/notesbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer is a buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is one notesbench serve --http process.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *lockedBuffer
	exited chan struct{}
}

// startServer starts bin serve --http addr with args and waits, at most 30 s,
// until it says where it listens.
func startServer(ctx context.Context, bin, addr string, args []string) (*server, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--http", addr}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.stderr, line)
			if rest, ok := strings.CutPrefix(line, "notesbench serve: listening on "); ok {
				u, _, _ := strings.Cut(rest, ";")
				urls <- u
			}
		}
		cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.url = <-urls:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("serve exited: %s", s.stderr)
	case <-ctx.Done():
		s.kill()
		return nil, ctx.Err()
	case <-time.After(30 * time.Second):
		s.kill()
		return nil, fmt.Errorf("serve did not say where it listens within 30s: %s", s.stderr)
	}
}

// kill sends SIGKILL and reaps the process.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.exited
}

// stop sends SIGTERM, as a user stops serve, and reaps it; after 30 s it
// kills it.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.kill()
	}
}

// serverLink follows the server's lives: epoch counts those started; a call
// made while none is up, or cut off, waits for the next. With a server that
// is never restarted (faults inside it) there is nothing to wait for.
type serverLink struct {
	restarts bool

	mu    sync.Mutex
	epoch int
	live  bool
	up    chan struct{} // closed when the next server is up
}

func newServerLink(restarts bool) *serverLink {
	return &serverLink{restarts: restarts, up: make(chan struct{})}
}

func (l *serverLink) now() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// set says a server is up (a new epoch) or down.
func (l *serverLink) set(up bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live = up
	if up {
		l.epoch++
		close(l.up)
		l.up = make(chan struct{})
	}
}

func (l *serverLink) await(epoch int, stop <-chan struct{}) bool {
	for {
		l.mu.Lock()
		if !l.restarts || (l.epoch > epoch && l.live) {
			l.mu.Unlock()
			select {
			case <-stop:
				return false
			default:
				return true
			}
		}
		up := l.up
		l.mu.Unlock()
		select {
		case <-up:
		case <-stop:
			return false
		}
	}
}

// wireSession is a contract.Session over MCP that outlives the server's
// lives and faults: a call that fails other than with a contract outcome
// closes its MCP session and says the outcome is unknown (errDown); the next
// call opens a session again (errNoChild while none can be opened).
type wireSession struct {
	b   contract.Backend
	l   *serverLink
	cur contract.Session
	at  int // the epoch cur was opened in
}

func wireCall[T any](ctx context.Context, w *wireSession, call func(contract.Session) (T, error)) (T, error) {
	var zero T
	if w.cur != nil && w.l.restarts && w.at != w.l.now() {
		w.cur.Close() // a session of a server that is gone
		w.cur = nil
	}
	if w.cur == nil {
		epoch := w.l.now()
		s, err := w.b.Session(ctx)
		if err != nil {
			return zero, fmt.Errorf("%w: %v", errNoChild, err)
		}
		w.cur, w.at = s, epoch
	}
	out, err := call(w.cur)
	if err != nil && !contract.IsOutcome(err) {
		w.cur.Close()
		w.cur = nil
		return out, fmt.Errorf("%w: %v", errDown, err)
	}
	return out, err
}

func (w *wireSession) ListNoteTabs(ctx context.Context, noteID string) (contract.TabList, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.TabList, error) { return s.ListNoteTabs(ctx, noteID) })
}

func (w *wireSession) ReadNoteTab(ctx context.Context, noteID, tabID string) (contract.TabContent, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.TabContent, error) { return s.ReadNoteTab(ctx, noteID, tabID) })
}

func (w *wireSession) ReadSheetRange(ctx context.Context, req contract.RangeRequest) (contract.SheetRange, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.SheetRange, error) { return s.ReadSheetRange(ctx, req) })
}

func (w *wireSession) ListNoteAttachments(ctx context.Context, req contract.AttachmentsRequest) (contract.AttachmentPage, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.AttachmentPage, error) { return s.ListNoteAttachments(ctx, req) })
}

func (w *wireSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.EditResult, error) { return s.EditNoteTab(ctx, req) })
}

func (w *wireSession) CreateNoteTab(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.CreateResult, error) { return s.CreateNoteTab(ctx, req) })
}

func (w *wireSession) AddNoteSource(ctx context.Context, req contract.SourceRequest) (contract.SourceResult, error) {
	return wireCall(ctx, w, func(s contract.Session) (contract.SourceResult, error) { return s.AddNoteSource(ctx, req) })
}

func (w *wireSession) Close() error {
	if w.cur == nil {
		return nil
	}
	err := w.cur.Close()
	w.cur = nil
	return err
}

// wireConfig is one run over the wire.
type wireConfig struct {
	name string
	bin  string
	// args follow serve --http ADDR: the database.
	args []string
	// db is the SQLite file, for the integrity check at the end; "" for none.
	db    string
	kills int
	seed  uint64
	// minLife and maxLife bound how long the server serves (or goes without a
	// fault) after its first acknowledgement.
	minLife, maxLife time.Duration
	// fault, when set, is the fault made at each moment instead of a SIGKILL
	// and restart; the server runs on throughout. It returns how many
	// connections it cut.
	fault func(ctx context.Context) (int, error)
}

// wireResult is a Result and how many connections the faults cut.
type wireResult struct {
	Result
	cut int
}

// runWire runs three editors (claude and human appending lines, agent adding
// sources) against serve through MCP, makes cfg.kills faults at moments drawn
// from cfg.seed, and records every call in w. At the end it reads the final
// state through a fresh session (of a server started again, after kills),
// stops the server and checks the database's integrity.
func runWire(ctx context.Context, cfg wireConfig, w *history.Writer) (res wireResult, err error) {
	start := time.Now()
	res.Run = cfg.name
	srv, err := startServer(ctx, cfg.bin, "127.0.0.1:0", cfg.args)
	if err != nil {
		return res, err
	}
	live := srv
	defer func() {
		if live != nil {
			live.kill()
		}
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.url, "http://"), "/mcp")
	restart := func() error { // on the same address, which the kill freed
		deadline := time.Now().Add(30 * time.Second)
		for {
			s, err := startServer(ctx, cfg.bin, addr, cfg.args)
			if err == nil {
				live = s
				return nil
			}
			if !strings.Contains(err.Error(), "address already in use") || time.Now().After(deadline) {
				return err
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	l := newServerLink(cfg.fault == nil)
	l.set(true)

	spec, err := mcpclient.Parse(srv.url)
	if err != nil {
		return res, err
	}
	tg, err := mcpclient.Dial(ctx, spec, mcpclient.Options{ConnectTimeout: 30 * time.Second})
	if err != nil {
		return res, err
	}
	defer tg.Close()
	run, err := tg.Open(ctx, contract.RunSpec{Name: cfg.name})
	if err != nil {
		return res, err
	}
	defer run.Close()
	if err := run.CreateNote(ctx, crashNote); err != nil {
		return res, err
	}
	rec, err := w.Run(history.RunHeader{Run: cfg.name, Seed: cfg.seed, Clock: "real", Policy: "reapply; the same call and key after a fault"},
		func() int64 { return int64(time.Since(start)) })
	if err != nil {
		return res, err
	}

	stop := make(chan struct{})
	ed := &editors{l: l, stop: stop, ackCh: make(chan struct{}, 1)}
	editorCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	sessions := make([]*wireSession, 3)
	for i, name := range []string{"claude", "human", "agent"} {
		sessions[i] = &wireSession{b: run, l: l}
		s := rec.Session(sessions[i], name)
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

	r := rand.New(rand.NewPCG(cfg.seed, 0x77697265))
	var faultErr error
	for k := 1; k <= cfg.kills && faultErr == nil; k++ {
		life := cfg.minLife + time.Duration(r.Int64N(int64(cfg.maxLife-cfg.minLife)+1))
		select { // an acknowledgement before this life does not count
		case <-ed.ackCh:
		default:
		}
		select {
		case <-ed.ackCh:
		case <-editorCtx.Done():
			faultErr = editorCtx.Err()
			continue
		}
		select {
		case <-time.After(life):
		case <-editorCtx.Done():
			faultErr = editorCtx.Err()
			continue
		}
		if cfg.fault != nil {
			n, err := cfg.fault(ctx)
			res.cut += n
			faultErr = err
			res.Kills++
			continue
		}
		l.set(false)
		live.kill()
		live = nil
		res.Kills++
		if k < cfg.kills {
			if faultErr = restart(); faultErr == nil {
				l.set(true)
			}
		}
	}
	close(stop)
	wg.Wait()
	if err := errors.Join(append(errs, faultErr)...); err != nil {
		return res, err
	}
	res.Writes, res.Acknowledged = int(ed.writes.Load()), int(ed.acked.Load())
	res.CutOff, res.CommittedBeforeKill = int(ed.cutOff.Load()), int(ed.replayed.Load())
	for _, s := range sessions {
		s.Close()
	}

	// The final state, through a session of a server that serves the
	// database as the faults left it.
	if live == nil {
		if err := restart(); err != nil {
			return res, err
		}
		l.set(true)
	}
	final := &wireSession{b: run, l: l}
	err = rec.Final(ctx, final, crashNote)
	final.Close()
	if err != nil {
		return res, fmt.Errorf("reading the final state: %w", err)
	}
	live.stop()
	live = nil
	if err := rec.End(); err != nil {
		return res, err
	}
	if cfg.db != "" {
		st, err := store.Open(cfg.db, store.Options{})
		if err != nil {
			return res, err
		}
		conn, err := st.Conn(ctx)
		if err == nil {
			res.Integrity, err = conn.IntegrityCheck(ctx)
			err = errors.Join(err, conn.Close())
		}
		if err = errors.Join(err, st.Close()); err != nil {
			return res, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// judge checks one wire run: every fault made, writes acknowledged, none of
// them lost, every check of the history clean.
func judge(t *testing.T, w *history.Writer, res wireResult, kills int) {
	t.Helper()
	rep, err := Check(context.Background(), w, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	t.Logf("%s: %d faults (%d connections cut), %d writes, %d acknowledged, %d cut off (%d had committed), %d lost; integrity %q; %.1fs",
		res.Run, res.Kills, res.cut, res.Writes, res.Acknowledged, res.CutOff, res.CommittedBeforeKill, run.Lost, res.Integrity, res.Seconds)
	if res.Kills != kills || res.Acknowledged == 0 || run.Lost != 0 {
		t.Errorf("%+v: %d lost", res, run.Lost)
	}
	for _, c := range rep.Checks {
		if c.Verdict != check.OK {
			t.Errorf("%s: %s %v %s", c.Check, c.Verdict, c.First, c.Reason)
		}
	}
}

// notesbench serve --http killed with SIGKILL 50 times at seeded moments
// while three editors race through it, restarted each time on the same
// database and address: no acknowledged write is lost, and the history
// checks clean.
func TestKillServeOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds notesbench and kills its server 50 times")
	}
	bin := buildNotesbench(t)
	db := filepath.Join(t.TempDir(), "wire.db")
	w := history.NewWriter(history.Header{Experiment: "crash"})
	kills := wireKills()
	res, err := runWire(context.Background(), wireConfig{name: "crash-wire-sqlite", bin: bin, args: []string{"--db", db},
		db: db, kills: kills, seed: 1, minLife: 5 * time.Millisecond, maxLife: 40 * time.Millisecond}, w)
	if err != nil {
		t.Fatal(err)
	}
	if res.Integrity != "ok" {
		t.Errorf("integrity: %q", res.Integrity)
	}
	judge(t, w, res, kills)
}

// notesbench serve --http on PostgreSQL, whose connections the server
// terminates (pg_terminate_backend) 50 times at seeded moments, mid-write
// or between writes, while three editors race through it: serve opens
// connections again, the cut-off calls are resent with their keys, and no
// acknowledged write is lost.
func TestTerminatePostgresBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("builds notesbench and starts a PostgreSQL cluster of its own")
	}
	bin := buildNotesbench(t)
	cluster := pgtest.NewCluster(t) // its connections are cut: a cluster of its own
	app := fmt.Sprintf("notesbench-wire-%d", time.Now().UnixNano())
	u, err := url.Parse(cluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	ctx := context.Background()
	killer, err := pgx.Connect(ctx, cluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	var mu sync.Mutex
	var active atomic.Int64
	fault := func(ctx context.Context) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		// Busy backends first: a write in flight is the point.
		rows, err := killer.Query(ctx, `SELECT pg_terminate_backend(pid), coalesce(state <> 'idle', false)
			FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, app)
		if err != nil {
			return 0, err
		}
		n := 0
		for rows.Next() {
			var ok, busy bool
			if err := rows.Scan(&ok, &busy); err != nil {
				return n, err
			}
			if ok {
				n++
				if busy {
					active.Add(1)
				}
			}
		}
		return n, rows.Err()
	}
	w := history.NewWriter(history.Header{Experiment: "crash"})
	kills := wireKills()
	res, err := runWire(ctx, wireConfig{name: "crash-wire-postgres", bin: bin, args: []string{"--store", u.String()},
		kills: kills, seed: 2, minLife: 2 * time.Millisecond, maxLife: 20 * time.Millisecond, fault: fault}, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of the %d connections cut were busy", active.Load(), res.cut)
	if res.cut < kills || res.CutOff == 0 {
		t.Errorf("the faults cut %d connections and %d calls: no write was cut off", res.cut, res.CutOff)
	}
	judge(t, w, res, kills)
}

// wireKills is how many times the wire tests kill their server or cut its
// connections: 50, as the README cites (make test-full), and 10 under the race
// detector (make test), whose editors run ten times slower.
func wireKills() int {
	if raceDetector {
		return 10
	}
	return 50
}
