package pgbench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/pgstore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

var ctx = context.Background()

// isolationTarget is a Target on the test server in isolation mode iso.
func isolationTarget(t testing.TB, iso pgstore.Isolation) *pgstore.Target {
	t.Helper()
	conn := pgtest.URL(t)
	if iso == pgstore.ReadCommitted {
		return &pgstore.Target{URL: conn}
	}
	if !strings.Contains(conn, "://") {
		return &pgstore.Target{URL: conn + " " + pgstore.IsolationParam + "=" + string(iso)}
	}
	u, err := url.Parse(conn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(pgstore.IsolationParam, string(iso))
	u.RawQuery = q.Encode()
	return &pgstore.Target{URL: u.String()}
}

// admin connects to the test server as the tests' own client, outside any run.
func admin(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// The pgbench peer runs the script's transactions, each leaves the Note as a
// notesbench write of the same text would, and every timed one has a latency.
func TestPgbenchPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pgbench against a cluster of its own: make test runs it")
	}
	if _, err := Binary(""); err != nil {
		if os.Getenv(pgtest.EnvRequire) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, tc := range []struct {
		g   contract.Guard
		iso pgstore.Isolation
	}{{contract.GuardNote, pgstore.ReadCommitted}, {contract.GuardTab, pgstore.ReadCommitted}, {contract.GuardNote, pgstore.Serializable}} {
		g := tc.g
		t.Run(string(g)+"/"+string(tc.iso), func(t *testing.T) {
			tg := isolationTarget(t, tc.iso)
			tg.Keep = true
			samples, err := Peer{Writes: 30, Warmup: 5, TextSize: 50, Guard: g}.Run(ctx, tg)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != 30 {
				t.Fatalf("%d samples, want 30", len(samples))
			}
			for _, s := range samples {
				if !(s > 0) {
					t.Fatalf("latency %v", s)
				}
			}
			kept := tg.Kept()
			if len(kept) != 1 {
				t.Fatalf("kept %v", kept)
			}
			a := admin(t)
			t.Cleanup(func() { a.Exec(ctx, "DROP SCHEMA IF EXISTS "+kept[0]+" CASCADE") })
			var noteVersion, tabVersion int64
			var text string
			var keys int
			err = a.QueryRow(ctx, fmt.Sprintf(`SELECT n.version, t.version, t.data, (SELECT count(*) FROM %[1]s.idempotency)
FROM %[1]s.notes n JOIN %[1]s.tabs t ON t.note_id = n.id AND t.tab_id = 'markdown'`, kept[0])).Scan(&noteVersion, &tabVersion, &text, &keys)
			if err != nil {
				t.Fatal(err)
			}
			bumped := noteVersion
			if g == contract.GuardTab {
				bumped = tabVersion
			}
			if bumped != 36 || text != strings.Repeat("x", 50) || keys != 35 {
				t.Fatalf("after 35 transactions: note version %d, tab version %d, %d keys, text %q", noteVersion, tabVersion, keys, text)
			}
		})
	}
}

// The script names every placeholder of the store's statements, and runs
// them in the store's two pipelines, in order.
func TestScriptNamesEveryPlaceholder(t *testing.T) {
	for _, iso := range pgstore.Isolations.Values {
		tg := &pgstore.Target{URL: "postgres://localhost/notesbench?" + pgstore.IsolationParam + "=" + string(iso)}
		if err := tg.Parse(); err != nil {
			t.Fatal(err)
		}
		for _, g := range []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab} {
			batches := tg.WriteStatements(g)
			begin, note := batches[0][0].SQL, batches[0][1].SQL
			s := writeScript(tg, g)
			if strings.Contains(s, "$") || strings.Count(s, "\\startpipeline") != 2 ||
				!strings.HasPrefix(strings.SplitN(s, "\\startpipeline\n", 2)[1], begin+";\n"+strings.Replace(note, "$1", ":note", 1)+";\n") {
				t.Fatalf("script for %s, %s:\n%s", g, iso, s)
			}
		}
	}
}
