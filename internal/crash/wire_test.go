package crash

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/results"
)

// The harness over HTTP: a server notesbench starts (Options.Spawn) is
// killed and started again on the same port; and notesbench serve --http on
// PostgreSQL runs on while its database connections are ended.

// wireKills is how many faults the wire tests make: 50, as docs/faults.md
// cites (make test-large), and 10 under the race detector (make test).
func wireKills() int {
	if testpass.Race {
		return 10
	}
	return 50
}

// The store served over HTTP by a process notesbench started, killed with
// SIGKILL at seeded moments and started again each time on the same
// database and port: nothing acknowledged lost, every check clean.
func TestKillServerOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an HTTP server 10 to 50 times")
	}
	t.Parallel()
	db := filepath.Join(t.TempDir(), "wire.db")
	spawn, err := mcpclient.SplitCommand(self(t, serveDBEnv+"="+db, serveHTTPEnv+"=127.0.0.1:{port}"))
	if err != nil {
		t.Fatal(err)
	}
	s := settings(wireKills())
	s.Target = "http://127.0.0.1:{port}/mcp"
	tested := crashTest(t, Test{Settings: s, Open: opener(t, false, mcpclient.Options{Spawn: spawn, ConnectTimeout: 30 * time.Second})})
	if p := tested.Verdict.Problems; len(p) > 0 || tested.Verdict.Runs[0].LostAcknowledged != 0 {
		t.Errorf("problems: %q", p)
	}
}

// buildNotesbench builds notesbench, as make build does.
func buildNotesbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "notesbench")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/notesbench/notesbench/cmd/notesbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// notesbench serve --http on PostgreSQL, whose connections are terminated
// (pg_terminate_backend) at seeded moments, mid-write or between writes,
// while the editors race through it: serve opens connections again, the
// cut-off calls are resent with their keys, and no acknowledged write is
// lost.
func TestTerminatePostgresBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("builds notesbench and starts a PostgreSQL cluster of its own, whose work the race detector does not see: make test-large runs it")
	}
	testpass.Large(t, "builds notesbench and starts a PostgreSQL cluster of its own, whose work the race detector does not see")
	t.Parallel()
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
	cut := 0
	fault := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		rows, err := killer.Query(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, app)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			cut++
		}
		return rows.Err()
	}
	spec, _ := mcpclient.Parse("http://127.0.0.1:{port}/mcp")
	tg, err := mcpclient.Dial(ctx, spec, mcpclient.Options{Spawn: []string{bin, "serve", "--http", "127.0.0.1:{port}", "--store", u.String()}, ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	s := settings(wireKills())
	s.LifeMinNS, s.LifeMaxNS = 2*time.Millisecond, 20*time.Millisecond
	w := newWriter()
	res, err := Run(ctx, RunConfig{Name: "crash-wire-postgres", Target: tg, Kills: s.Kills, Seed: 2, MinLife: s.LifeMinNS, MaxLife: s.LifeMaxNS, Fault: fault}, w)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, w, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d faults (%d connections cut), %d writes, %d acknowledged, %d cut off, %d lost", res.Kills, cut, res.Writes, res.Acknowledged, res.CutOff, res.LostAcknowledged)
	if v := Judge([]results.CrashRun{res}, rep); len(v.Problems) > 0 || res.LostAcknowledged != 0 || cut < s.Kills || res.Acknowledged == 0 {
		t.Errorf("problems %q; %+v", v.Problems, res)
	}
}

func newWriter() *history.Writer { return history.NewWriter(history.Header{Experiment: "crash"}) }
