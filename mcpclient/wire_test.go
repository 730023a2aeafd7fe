package mcpclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/pgstore"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// The test binary doubles as a server: run with helperEnv set to a database
// file, it serves that file over stdin and stdout and exits. With dieEnv set
// to n it exits with status 3 on its n-th edit_note_tab. With httpHelperEnv
// set it serves streamable HTTP on an ephemeral loopback port instead: it
// prints its URL on stdout and serves until its stdin closes.
const (
	helperEnv     = "MCPCLIENT_TEST_SERVE_DB"
	dieEnv        = "MCPCLIENT_TEST_DIE_AT_EDIT"
	httpHelperEnv = "MCPCLIENT_TEST_SERVE_HTTP"
	// logEnv makes the helper log every tool call on stderr; addrEnv makes
	// it listen on that address over HTTP.
	logEnv  = "MCPCLIENT_TEST_LOG"
	addrEnv = "MCPCLIENT_TEST_ADDR"
	// pgEnv makes the helper serve a schema of its own on the PostgreSQL
	// server it names instead of a database file.
	pgEnv = "MCPCLIENT_TEST_SERVE_PG"
)

func helperServer() {
	var b contract.Backend
	var err error
	if u := os.Getenv(pgEnv); u != "" {
		b, err = (&pgstore.Target{URL: u}).Open(context.Background(), contract.RunSpec{Name: "helper", OneServer: true})
	} else {
		b, err = store.Open(os.Getenv(helperEnv), store.Options{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	st := b
	if n, err := strconv.Atoi(os.Getenv(dieEnv)); err == nil {
		b = &dying{Backend: st, at: int64(n)}
	}
	var opts serve.Options
	if os.Getenv(logEnv) != "" {
		opts.Log = os.Stderr
	}
	srv, err := serve.New(context.Background(), b, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	if os.Getenv(httpHelperEnv) != "" {
		err = serveHTTPHelper(srv)
	} else {
		err = srv.Serve(context.Background(), &serve.StdioTransport{Reader: os.Stdin, Writer: os.Stdout})
	}
	srv.Close()
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// serveHTTPHelper serves srv over streamable HTTP until stdin closes.
func serveHTTPHelper(srv *serve.Server) error {
	addr := "127.0.0.1:0"
	if a := os.Getenv(addrEnv); a != "" {
		addr = a
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Println("http://" + ln.Addr().String() + serve.HTTPPath)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n') // EOF when the parent goes
		stop()
	}()
	return srv.ServeListener(ctx, ln)
}

// dying is a Backend whose process exits on the n-th edit.
type dying struct {
	contract.Backend
	at    int64
	edits atomic.Int64
}

func (d *dying) Session(ctx context.Context) (contract.Session, error) {
	s, err := d.Backend.Session(ctx)
	return dyingSession{s, d}, err
}

type dyingSession struct {
	contract.Session
	d *dying
}

func (s dyingSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.d.edits.Add(1) == s.d.at {
		fmt.Fprintln(os.Stderr, "helper: dying as asked")
		os.Exit(3)
	}
	return s.Session.EditNoteTab(ctx, req)
}

// helperTarget is a stdio target that spawns the test binary as a server of
// db.
func helperTarget(t testing.TB, db string, env ...string) TargetSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// env(1) sets the helper's variables; the spawned command is what a user
	// would write.
	// A race-detector binary sleeps a second at exit unless told not to.
	args := append([]string{"env", "GORACE=atexit_sleep_ms=0", helperEnv + "=" + db}, env...)
	args = append(args, exe, "-test.run=^$")
	spec, err := Parse("stdio:" + quoteAll(args))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func dialT(t testing.TB, spec TargetSpec, opts Options) *Target {
	t.Helper()
	tg, err := Dial(ctx, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, "target", tg)
	return tg
}

// closeAtEnd closes c, the thing named what, when the test ends; a failure
// to close fails the test.
func closeAtEnd(t testing.TB, what string, c interface{ Close() error }) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the %s: %v", what, err)
		}
	})
}

// openNote opens a run called name on tg and creates its Note note-1; the
// run is closed when the test ends.
func openNote(t testing.TB, tg *Target, name string) contract.Backend {
	t.Helper()
	b, err := tg.Open(ctx, contract.RunSpec{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	return b
}

// sessionT opens a session of b, closed when the test ends.
func sessionT(t testing.TB, b contract.Backend) contract.Session {
	t.Helper()
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Typed writes over stdio: each session its own process on one database file,
// a conflict back as the typed error, the person's actions, ping.
func TestStdioWrites(t *testing.T) {
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")), Options{})
	b := openNote(t, tg, "stdio")
	a, c := sessionT(t, b), sessionT(t, b)
	w, err := a.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "a",
		Operation: contract.OpReplaceText, Text: "from a"})
	if err != nil || w.Version != "2" || w.NoteID != "note-1" {
		t.Fatalf("write: %+v %v", w, err)
	}
	_, err = c.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "c",
		Operation: contract.OpReplaceText, Text: "from c"})
	var ce *contract.ConflictError
	if !errors.As(err, &ce) || ce.Current != "2" {
		t.Fatalf("stale write from another process: %v", err)
	}
	if err := c.(contract.Person).SetText(ctx, "note-1", "typed"); err != nil {
		t.Fatal(err)
	}
	if r, err := a.ReadNoteTab(ctx, "note-1", "markdown"); err != nil || r.Text != "typed" || r.Version != "3" {
		t.Fatalf("read %+v %v", r, err)
	}
	if err := a.(Pinger).Ping(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = a.ReadNoteTab(ctx, "note-9", "markdown")
	var nf *contract.NotFoundError
	if !errors.As(err, &nf) || nf.ID != "note-9" {
		t.Fatalf("unknown Note: %v", err)
	}
}

// A server that dies mid-run is one error naming the target, its exit status
// and its last words.
func TestServerDies(t *testing.T) {
	spec := helperTarget(t, filepath.Join(t.TempDir(), "notes.db"), dieEnv+"=2")
	s := sessionT(t, openNote(t, dialT(t, spec, Options{}), "dies"))
	v := contract.Version("1")
	var err error
	for i := range 2 {
		var r contract.EditResult
		r, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: v,
			IdempotencyKey: fmt.Sprint(i), Operation: contract.OpReplaceText, Text: "x"})
		v = r.Version
	}
	want := "target " + spec.Raw + ": edit_note_tab: the server exited (exit status 3): helper: dying as asked"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// What is not an MCP server, or not there, is one error naming the target;
// every process spawned is gone when Dial returns, its children too.
func TestBadTargets(t *testing.T) {
	t.Parallel() // waits on servers that never answer, most of its time
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for _, tc := range []struct {
		target, want string
	}{
		{"stdio:sh -c 'sleep 30 & echo $! > " + pidFile + "; echo not-mcp; wait'", "no MCP handshake"},
		{"stdio:sh -c 'echo gone >&2; exit 4'", "no MCP handshake, at each of two starts: the server exited (exit status 4): gone"},
		{"stdio:/nonexistent/server", "starting the server: fork/exec /nonexistent/server: no such file or directory"},
		{"stdio:notesbench-no-such-command", "starting the server: notesbench-no-such-command: not found on $PATH (give its path, or a command that is on $PATH)"},
		// A log line on stdout is named, not the parse error it causes.
		{"stdio:sh -c 'echo Starting server on port 3000; sleep 30'", `no MCP handshake: the server wrote "Starting server on port 3000" on stdout, where MCP messages go (its logs belong on stderr)`},
		// The last five lines of a dead server's stderr, not only the last.
		{"stdio:sh -c 'for i in 1 2 3 4 5 6; do echo line$i >&2; done; exit 1'", "no MCP handshake, at each of two starts: the server exited (exit status 1): line2 | line3 | line4 | line5 | line6"},
		{closed, "unreachable: connection refused"},
	} {
		spec, err := Parse(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Dial(ctx, spec, Options{ConnectTimeout: 5 * time.Second})
		if err == nil || !strings.HasPrefix(err.Error(), "target "+spec.Raw+": "+tc.want) {
			t.Errorf("%s: %v", tc.target, err)
		}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		// The orphan may linger a moment as a zombie of init: wait for it.
		deadline := time.Now().Add(5 * time.Second)
		for err == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			err = syscall.Kill(pid, 0)
		}
		if err == nil {
			t.Fatalf("the server's child %d outlived Dial", pid)
		}
	}
}

// A server whose Notes live in one process's memory is caught on the second
// session, not counted as lost lines.
func TestMemoryServerOverStdioIsRefused(t *testing.T) {
	b := openNote(t, dialT(t, helperTarget(t, store.InMemory), Options{}), "memory")
	_, err := b.Session(ctx)
	if err == nil || !strings.Contains(err.Error(), "a new session does not see the Notes made in another") {
		t.Fatalf("%v", err)
	}
}

// serveHTTP serves an in-memory store of variant v over streamable HTTP on an
// ephemeral loopback port, for as long as the test runs.
func serveHTTP(t *testing.T, v contract.Variant) TargetSpec {
	t.Helper()
	srv := newServer(t, v)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(sctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	spec, err := Parse("http://" + ln.Addr().String() + serve.HTTPPath)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The race experiment (race.Config) over HTTP, each editor its own MCP session: the Note
// guard with re-apply loses no line, no guard loses some.
func TestRaceOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		mode     race.Mode
		wantLoss bool
	}{
		{race.Mode{Guard: contract.GuardNote, Policy: sim.Reapply}, false},
		{race.Mode{Guard: contract.GuardNone, Policy: sim.Reapply}, true},
	} {
		t.Run(string(tc.mode.Guard), func(t *testing.T) {
			tg := dialT(t, serveHTTP(t, contract.Variant{Guard: tc.mode.Guard}), Options{})
			cfg := race.Default()
			cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1, 2}, []race.Mode{tc.mode}, 40
			cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 2 * time.Millisecond}, sim.Dist{Max: 2 * time.Millisecond}, "0"
			res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
			if err != nil {
				t.Fatal(err)
			}
			runs := res.Runs
			lost, conflicts := 0, 0
			for _, r := range runs {
				lost += r.Lost()
				conflicts += r.Claude.Conflicts + r.Human.Conflicts
			}
			if tc.wantLoss && lost == 0 {
				t.Fatalf("no guard lost no line in %d runs", len(runs))
			}
			if !tc.wantLoss && (lost != 0 || conflicts == 0) {
				t.Fatalf("note/reapply lost %d lines, %d conflicts", lost, conflicts)
			}
		})
	}
}

// The create experiment (create.Config) over HTTP: with a reply lost after the commit, the
// same key on retry makes no duplicate; a new key every call makes some.
func TestCreateOverHTTP(t *testing.T) {
	tg := dialT(t, serveHTTP(t, contract.Variant{}), Options{})
	cfg := create.Default()
	cfg.Seeds, cfg.Tabs, cfg.Table, cfg.Order = []uint64{1, 2}, 20, "a", contract.OrderKeyFirst
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		dups := 0
		for _, d := range row.Duplicates {
			dups += d
		}
		switch row.KeyPolicy {
		case create.KeyRetry:
			if dups != 0 {
				t.Fatalf("same key on retry: %d duplicates", dups)
			}
		default:
			if dups == 0 {
				t.Fatalf("%s: no duplicates with a new key every call", row.KeyPolicy)
			}
		}
	}
	if len(res.Rows) != 2 {
		t.Fatalf("rows %+v", res.Rows)
	}
}

// A run cannot ask for a variant the server does not serve.
func TestVariantIsTheServers(t *testing.T) {
	tg := dialT(t, serveHTTP(t, contract.Variant{Guard: contract.GuardTab}), Options{})
	if _, err := tg.Open(ctx, contract.RunSpec{Variant: contract.Variant{}.WithDefaults()}); err == nil ||
		err.Error() != "target "+tg.Name()+" serves guard tab, counter versions, key-first, not guard note, counter versions, key-first" {
		t.Fatalf("%v", err)
	}
	if _, err := tg.Open(ctx, contract.RunSpec{Variant: contract.Variant{Guard: contract.GuardTab}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Open(ctx, contract.RunSpec{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tg.Describe(), "guard tab") {
		t.Fatalf("describe %q", tg.Describe())
	}
}
