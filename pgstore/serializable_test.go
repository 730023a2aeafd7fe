package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/internal/testpass"
)

// isolationTarget returns a Target on the test server in mode iso: the
// default's URL as it is, the Serializable mode's with notesbench_isolation.
func isolationTarget(t testing.TB, iso Isolation) *Target {
	t.Helper()
	if iso == ReadCommitted {
		return newTarget(t)
	}
	return &Target{URL: withSetting(t, pgtest.URL(t), IsolationParam, string(iso))}
}

// TestContractSerializable runs the contract's suite in the Serializable
// mode: its racing writers (eight re-applying editors on one Note; eight
// writers with one expected version) meet serialization failures there, and
// must still lose nothing and see exactly one winner.
func TestContractSerializable(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite runs once in -short")
	}
	// Under the detector the retries are TestSerializationFailureAndDeadlockAreRetried's.
	testpass.Large(t, "the suite runs once under the race detector (make test's time); the retries on serialization failures have tests of their own")
	tg := isolationTarget(t, Serializable)
	if err := tg.Parse(); err != nil || tg.Isolation() != Serializable {
		t.Fatalf("isolation %q (%v)", tg.Isolation(), err)
	}
	runSuite(t, tg)
}

// The parameter is read from a URL or a keyword/value string and taken out of
// what the driver gets; the rest of the string stays as it was.
func TestIsolationParameter(t *testing.T) {
	for _, tc := range []struct {
		raw, dsn string
		iso      Isolation
	}{
		{"postgres://u:pw@h:5432/db", "postgres://u:pw@h:5432/db", ReadCommitted},
		{"postgres://u:pw@h/db?notesbench_isolation=serializable", "postgres://u:pw@h/db", Serializable},
		{"postgres://u:pw@h/db?sslmode=disable&notesbench_isolation=serializable&application_name=a%20b",
			"postgres://u:pw@h/db?sslmode=disable&application_name=a%20b", Serializable},
		{"postgresql://h/db?notesbench_isolation=read_committed&sslmode=disable", "postgresql://h/db?sslmode=disable", ReadCommitted},
		{"host=h user=u notesbench_isolation=serializable dbname=db", "host=h user=u dbname=db", Serializable},
		{"host=h notesbench_isolation = 'serializable'", "host=h", Serializable},
		{"host=h dbname=db", "host=h dbname=db", ReadCommitted},
	} {
		dsn, iso, err := splitIsolation(tc.raw)
		if err != nil || dsn != tc.dsn || iso != tc.iso {
			t.Errorf("%q: %q %q %v, want %q %q", tc.raw, dsn, iso, err, tc.dsn, tc.iso)
		}
	}
	tg := &Target{URL: "postgres://u:pw@h/db?notesbench_isolation=serializable"}
	if err := tg.Parse(); err != nil {
		t.Fatal(err)
	}
	if tg.Isolation() != Serializable || tg.dsn != "postgres://u:pw@h/db" || len(tg.cfg.ConnConfig.RuntimeParams) != 0 {
		t.Fatalf("isolation %q, dsn %q, settings %v", tg.Isolation(), tg.dsn, tg.cfg.ConnConfig.RuntimeParams)
	}
	if d := tg.Describe(); !strings.Contains(d, "notesbench_isolation=serializable") || !strings.HasSuffix(d, "SERIALIZABLE without row locks, retried") {
		t.Fatalf("Describe %q", d)
	}
}

// A value that names no mode, an empty one and the parameter given twice are
// each one line naming the URL without its password and the parameter, and
// nothing connects.
func TestBadIsolationIsRefused(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgres://u:s3cret@h/db?notesbench_isolation=snapshot",
			`postgres://u@h/db?notesbench_isolation=snapshot: parsing the URL: notesbench_isolation: unknown isolation "snapshot" (want read_committed or serializable)`},
		{"postgres://u:s3cret@h/db?notesbench_isolation=",
			`postgres://u@h/db?notesbench_isolation=: parsing the URL: notesbench_isolation: unknown isolation "" (want read_committed or serializable)`},
		{"postgres://u:s3cret@h/db?notesbench_isolation=SERIALIZABLE",
			`postgres://u@h/db?notesbench_isolation=SERIALIZABLE: parsing the URL: notesbench_isolation: unknown isolation "SERIALIZABLE" (want read_committed or serializable)`},
		{"postgres://u:s3cret@h/db?notesbench_isolation=serializable&notesbench_isolation=serializable",
			`parsing the URL: notesbench_isolation is given 2 times (give it once: read_committed or serializable)`},
		{"host=h user=u password=s3cret notesbench_isolation=repeatable_read",
			`host=h user=u notesbench_isolation=repeatable_read: parsing the URL: notesbench_isolation: unknown isolation "repeatable_read" (want read_committed or serializable)`},
	} {
		tg := &Target{URL: tc.url}
		err := tg.Parse()
		var pe *Error
		if err == nil || !errors.As(err, &pe) {
			t.Errorf("%s: %T %v, want an *Error", tc.url, err, err)
			continue
		}
		if msg := err.Error(); !strings.HasSuffix(msg, tc.want) || strings.Contains(msg, "s3cret") || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.url, msg, tc.want)
		}
		if _, err := tg.Open(ctx, contract.RunSpec{Name: "refused"}); err == nil {
			t.Errorf("%s: a run opened", tc.url)
		}
	}
}

// Each mode names its isolation level in every write, whatever the server's
// default, and only the default mode locks the Note's row: the Serializable
// mode's write holds no row-level lock on notes (FOR UPDATE's RowShareLock).
func TestEachModeRunsItsIsolationLevel(t *testing.T) {
	for _, tc := range []struct {
		iso            Isolation
		serverDefault  string
		level          string
		locksNoteShare bool
	}{
		{ReadCommitted, "serializable", "read committed", true},
		{Serializable, "read committed", "serializable", false},
	} {
		t.Run(string(tc.iso), func(t *testing.T) {
			tg := isolationTarget(t, tc.iso)
			// pgx reads %20, not +, as a space in a URL.
			sep := "?"
			if strings.Contains(tg.URL, "?") {
				sep = "&"
			}
			tg.URL += sep + "options=" + strings.ReplaceAll(url.QueryEscape("-c default_transaction_isolation="+strings.ReplaceAll(tc.serverDefault, " ", `\ `)), "+", "%20")
			s, c := openNote(t, tg, contract.RunSpec{})
			var def, level string
			var modes []string
			s.beforeCommit = func(ctx context.Context, conn *pgx.Conn) error {
				if err := conn.QueryRow(ctx, "SHOW transaction_isolation").Scan(&level); err != nil {
					return err
				}
				rows, err := conn.Query(ctx, `SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'notes'::regclass ORDER BY mode`)
				if err != nil {
					return err
				}
				modes, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			}
			if _, err := replaceText(c, "1", "k", "x"); err != nil {
				t.Fatal(err)
			}
			if err := c.conn.QueryRow(ctx, "SHOW default_transaction_isolation").Scan(&def); err != nil || def != tc.serverDefault {
				t.Fatalf("the server default is %q (%v), so the test proves nothing", def, err)
			}
			if level != tc.level {
				t.Fatalf("a write ran at %q, want %q", level, tc.level)
			}
			if got := slices.Contains(modes, "RowShareLock"); got != tc.locksNoteShare {
				t.Fatalf("locks on notes during the write: %v", modes)
			}
			if got := mustRead(t, c, "markdown"); got.Text != "x" || got.Version != "2" {
				t.Fatalf("read %+v", got)
			}
		})
	}
}

// updateNoteBehind returns a beforeCommit hook that, the first n times (n <
// 0: always), has another connection update the Note's row and commit while
// the write's transaction is open: a real concurrent update, after which the
// write's own UPDATE of that row fails with a serialization failure (40001).
// The other update changes no value, so a retry succeeds.
func updateNoteBehind(t *testing.T, s *Store, n int) (func(context.Context, *pgx.Conn) error, *int) {
	a := admin(t)
	calls := 0
	return func(ctx context.Context, _ *pgx.Conn) error {
		calls++
		if n >= 0 && calls > n {
			return nil
		}
		_, err := a.Exec(ctx, "UPDATE "+s.Schema()+".notes SET next_item = next_item WHERE id = $1", note)
		return err
	}, &calls
}

// A write that meets a concurrent update of its Note's row fails with a real
// serialization failure and runs again: it lands once, its key replays its
// one result, and the session counts the retries.
func TestSerializationFailuresAreRetried(t *testing.T) {
	s, c := openNote(t, isolationTarget(t, Serializable), contract.RunSpec{})
	hook, calls := updateNoteBehind(t, s, 3)
	landsOnce(t, s, c, hook, calls, 4)
	if c.Retries() != 3 {
		t.Fatalf("%d retries after a replay", c.Retries())
	}
}

// A write that meets a concurrent update on every try is, past the limit,
// an outcome of kind busy (the server could not decide), not a conflict:
// its expected version is still the current one, so a conflict would be one
// no server that keeps the contract gives (check calls it illegal). It
// writes nothing, and the session stays usable.
func TestEndlessSerializationFailuresAreBusy(t *testing.T) {
	s, c := openNote(t, isolationTarget(t, Serializable), contract.RunSpec{})
	if _, err := replaceText(c, "1", "k0", "before"); err != nil {
		t.Fatal(err)
	}
	hook, calls := updateNoteBehind(t, s, -1)
	s.beforeCommit = hook
	_, err := replaceText(c, "2", "k1", "never")
	if contract.KindOf(err) != contract.KindBusy || contract.OutcomeOf(err) != contract.Info || !errors.Is(err, errRetriesExhausted) {
		t.Fatalf("err %v (kind %s), want an info outcome of kind busy", err, contract.KindOf(err))
	}
	if *calls != maxRetries+1 || c.Retries() != maxRetries {
		t.Fatalf("%d tries, %d retries counted, want %d and %d", *calls, c.Retries(), maxRetries+1, maxRetries)
	}
	if c.conn.PgConn().TxStatus() != 'I' {
		t.Fatalf("the session is left in transaction status %c", c.conn.PgConn().TxStatus())
	}
	s.beforeCommit = nil
	if got := mustRead(t, c, "markdown"); got.Text != "before" || got.Version != "2" {
		t.Fatalf("read %+v", got)
	}
	if r, err := replaceText(c, "2", "k1", "after"); err != nil || r.Replayed || r.Version != "3" {
		t.Fatalf("the key of the failed write: %+v %v", r, err)
	}
}

// failingLoads makes the first statement after BEGIN of the run's writes (the
// read of the Note's row, in the first pipeline) fail with a serialization
// failure on the tries fail picks (an SQL condition on n, the try's number
// in the run), counted by sequences, which no rollback resets. It returns
// the number of failures so far.
func failingLoads(t *testing.T, s *Store, fail string) func() int {
	a := admin(t)
	_, err := a.Exec(ctx, fmt.Sprintf(`CREATE SEQUENCE %[1]s.tries;
CREATE SEQUENCE %[1]s.failures;
CREATE FUNCTION %[1]s.flaky() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE n bigint := nextval('%[1]s.tries');
BEGIN
	IF %[2]s THEN
		PERFORM nextval('%[1]s.failures');
		RAISE EXCEPTION 'injected on try %%', n USING ERRCODE = '40001';
	END IF;
	RETURN true;
END $$`, s.Schema(), fail))
	if err != nil {
		t.Fatal(err)
	}
	s.loadNote += " AND flaky()"
	return func() int {
		var n int
		if err := a.QueryRow(ctx, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM "+s.Schema()+".failures").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// A serialization failure in the first pipeline (BEGIN, the Note's row, the
// load) ends that transaction; the retry begins a new one, with prepared and
// with unnamed statements alike, and the connection is left clean.
func TestFailureInTheFirstPipelineRestartsTheTransaction(t *testing.T) {
	for _, mode := range []string{"cache_statement", "exec"} {
		t.Run(mode, func(t *testing.T) {
			tg := &Target{URL: withSetting(t, isolationTarget(t, Serializable).URL, "default_query_exec_mode", mode)}
			s, c := openNote(t, tg, contract.RunSpec{})
			failures := failingLoads(t, s, "n <= 2")
			r, err := replaceText(c, "1", "k", "landed")
			if err != nil {
				t.Fatal(err)
			}
			if failures() != 2 || c.Retries() != 2 || r.Version != "2" {
				t.Fatalf("%d failures, %d retries, result %+v", failures(), c.Retries(), r)
			}
			if c.conn.PgConn().TxStatus() != 'I' {
				t.Fatalf("transaction status %c after the write", c.conn.PgConn().TxStatus())
			}
			if got := mustRead(t, c, "markdown"); got.Text != "landed" || got.Version != "2" {
				t.Fatalf("read %+v", got)
			}
		})
	}
}

// Retries change nothing a run on an injected clock gives: writes whose
// first try always fails at its commit commit the same us-suffix versions,
// drawn from the run's seeded stream, as writes that never fail.
func TestRetriesDrawTheSameVersions(t *testing.T) {
	tg := isolationTarget(t, Serializable)
	versions := func(fail bool) ([]contract.Version, int64) {
		s, c := openNote(t, tg, contract.RunSpec{Variant: contract.Variant{VersionFormat: contract.FormatUSSuffix},
			Clock: contracttest.NewClock(), Seed: 9})
		if fail {
			// A real concurrent update before every first try's commit:
			// the try fails after it drew its version.
			hook, _ := updateNoteBehind(t, s, -1)
			calls := 0
			s.beforeCommit = func(ctx context.Context, conn *pgx.Conn) error {
				if calls++; calls%2 == 1 {
					return hook(ctx, conn)
				}
				return nil
			}
		}
		return writeFive(t, c, mustRead(t, c, "markdown").Version), c.Retries()
	}
	clean, none := versions(false)
	retried, retries := versions(true)
	if none != 0 || retries != 5 {
		t.Fatalf("%d and %d retries, want 0 and 5", none, retries)
	}
	if fmt.Sprint(clean) != fmt.Sprint(retried) {
		t.Fatalf("versions without retries %v, with %v", clean, retried)
	}
}

// Eight editors on one Note, on the real clock, each on its own session,
// re-read and re-apply after every conflict: in the Serializable mode none
// of their lines is lost, no write fails, the version counts every write,
// and racing cost retries, which the sessions report. A round in which the
// editors happened never to overlap proves nothing about retries, so rounds
// run until one shows a retry, at most five.
func TestEightWritersReapplyLoseNothing(t *testing.T) {
	const editors, edits = 8, 30
	tg := isolationTarget(t, Serializable)
	for round := 1; ; round++ {
		_, first := openNote(t, tg, contract.RunSpec{Name: fmt.Sprintf("eight-%d", round)})
		sessions := []*Session{first}
		for len(sessions) < editors {
			sessions = append(sessions, mustConn(t, first.s))
		}
		var wg sync.WaitGroup
		errs := make([]error, editors)
		conflicts := make([]int, editors)
		start := make(chan struct{})
		for e, c := range sessions {
			wg.Go(func() {
				<-start
				conflicts[e], errs[e] = reapply(c, e, edits)
			})
		}
		close(start)
		wg.Wait()
		var retries int64
		total := 0
		for e, c := range sessions {
			if errs[e] != nil {
				t.Fatalf("editor %d: %v", e, errs[e])
			}
			retries += c.Retries()
			total += conflicts[e]
		}
		got := mustRead(t, first, "markdown")
		lines := strings.Split(got.Text, "\n")
		for e := range editors {
			for i := range edits {
				if l := fmt.Sprintf("e%d-%d", e, i); !slices.Contains(lines, l) {
					t.Fatalf("line %s lost", l)
				}
			}
		}
		if want := contract.Version(fmt.Sprint(1 + editors*edits)); got.Version != want {
			t.Fatalf("version %s after %d writes, want %s", got.Version, editors*edits, want)
		}
		t.Logf("round %d: %d writes, %d conflicts, %d retries", round, editors*edits, total, retries)
		if retries > 0 {
			return
		}
		if round == 5 {
			t.Fatal("five rounds of eight racing editors and no write was ever retried: the Serializable mode is not racing")
		}
	}
}

// reapply makes edits appends of a line of its own, re-reading and sending
// again after each conflict, and returns how many conflicts it met.
func reapply(c *Session, e, edits int) (int, error) {
	conflicts := 0
	for i := range edits {
		for try := 0; ; try++ {
			cur, err := c.ReadNoteTab(ctx, note, "markdown")
			if err != nil {
				return conflicts, err
			}
			_, err = replaceText(c, cur.Version, fmt.Sprintf("e%d-%d-%d", e, i, try), cur.Text+"\n"+fmt.Sprintf("e%d-%d", e, i))
			if err == nil {
				break
			}
			if !isConflict(err) {
				return conflicts, fmt.Errorf("edit %d: %w", i, err)
			}
			conflicts++
		}
	}
	return conflicts, nil
}
