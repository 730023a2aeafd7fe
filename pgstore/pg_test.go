package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/contracttest"
	"github.com/notesbench/notesbench/internal/pgtest"
)

const note = "note-1"

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

func schemaExists(t testing.TB, conn *pgx.Conn, schema string) bool {
	t.Helper()
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func mustConn(t testing.TB, s *Store) *Session {
	t.Helper()
	c, err := s.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func replaceText(c contract.Session, v contract.Version, key, text string) (contract.EditResult, error) {
	return c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
		IdempotencyKey: key, Operation: contract.OpReplaceText, Text: text})
}

func mustRead(t testing.TB, c contract.Session, tab string) contract.TabContent {
	t.Helper()
	r, err := c.ReadNoteTab(ctx, note, tab)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// openNote opens a run with one Note and a session on it.
func openNote(t testing.TB, tg *Target, run contract.RunSpec) (*Store, *Session) {
	t.Helper()
	if run.Name == "" {
		run.Name = t.Name()
	}
	s := open(t, tg, run)
	if err := s.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	return s, mustConn(t, s)
}

func TestEachRunHasItsSchemaDroppedAtClose(t *testing.T) {
	tg, a := newTarget(t), admin(t)
	s, err := tg.OpenStore(ctx, contract.RunSpec{Name: "race-note-reapply-seed3"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Schema(), "notesbench_race_note_reapply_seed3_") {
		t.Fatalf("schema %q", s.Schema())
	}
	if !schemaExists(t, a, s.Schema()) {
		t.Fatalf("schema %s not created", s.Schema())
	}
	if err := s.CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if schemaExists(t, a, s.Schema()) {
		t.Fatalf("schema %s left after Close", s.Schema())
	}
	if len(tg.Kept()) != 0 {
		t.Fatalf("kept %v without Keep", tg.Kept())
	}
}

func TestKeepLeavesTheSchema(t *testing.T) {
	tg, a := newTarget(t), admin(t)
	tg.Keep = true
	s, c := openNote(t, tg, contract.RunSpec{Name: "kept"})
	if _, err := replaceText(c, "1", "k1", "inspect me"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Exec(ctx, "DROP SCHEMA IF EXISTS "+s.Schema()+" CASCADE") })
	if got := tg.Kept(); len(got) != 1 || got[0] != s.Schema() {
		t.Fatalf("kept %v, want [%s]", got, s.Schema())
	}
	var text string
	if err := a.QueryRow(ctx, "SELECT data FROM "+s.Schema()+".tabs WHERE note_id = $1 AND tab_id = 'markdown'", note).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if text != "inspect me" {
		t.Fatalf("kept text %q", text)
	}
}

// Runs with the same name at the same time, as two processes would start them,
// have schemas of their own and never see each other's rows.
func TestParallelRunsNeverMeet(t *testing.T) {
	tg := newTarget(t)
	const runs = 4
	stores := make([]*Store, runs)
	for i := range stores {
		stores[i], _ = openNote(t, tg, contract.RunSpec{Name: "same-name"})
	}
	var wg sync.WaitGroup
	errs := make([]error, runs)
	for i, s := range stores {
		wg.Go(func() {
			c, err := s.Conn(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			v := contract.Version("1")
			for j := range 20 {
				r, err := replaceText(c, v, fmt.Sprintf("k%d", j), fmt.Sprintf("run %d write %d", i, j))
				if err != nil {
					errs[i] = err
					return
				}
				v = r.Version
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if seen[s.Schema()] {
			t.Fatalf("two runs share schema %s", s.Schema())
		}
		seen[s.Schema()] = true
		got := mustRead(t, mustConn(t, s), "markdown")
		if want := fmt.Sprintf("run %d write 19", i); got.Text != want || got.Version != "21" {
			t.Fatalf("run %d reads %q at version %s, want %q at 21", i, got.Text, got.Version, want)
		}
	}
}

// landsOnce writes "landed" with the key once at version 1 on c, with hook
// before each commit (calls counts them), and checks that the write took
// tries tries, counted one retry fewer, and landed once: with the hook gone,
// the key's resend replays its one result.
func landsOnce(t *testing.T, s *Store, c *Session, hook func(context.Context, *pgx.Conn) error, calls *int, tries int) {
	t.Helper()
	s.beforeCommit = hook
	r, err := replaceText(c, "1", "once", "landed")
	if err != nil {
		t.Fatal(err)
	}
	if *calls != tries || r.Version != "2" || r.Replayed || c.Retries() != int64(tries-1) {
		t.Fatalf("%d tries, %d retries counted, result %+v", *calls, c.Retries(), r)
	}
	s.beforeCommit = nil
	again, err := replaceText(c, "1", "once", "landed")
	if err != nil || !again.Replayed || again.Version != "2" {
		t.Fatalf("resend %+v %v", again, err)
	}
	if got := mustRead(t, c, "markdown"); got.Text != "landed" || got.Version != "2" {
		t.Fatalf("read %+v", got)
	}
}

// writeFive writes five times in a row on c, from version v, and returns the
// versions the writes made.
func writeFive(t *testing.T, c contract.Session, v contract.Version) []contract.Version {
	t.Helper()
	var out []contract.Version
	for i := range 5 {
		r, err := replaceText(c, v, fmt.Sprint(i), "x")
		if err != nil {
			t.Fatal(err)
		}
		v = r.Version
		out = append(out, v)
	}
	return out
}

// raise is a beforeCommit hook that makes the server fail the transaction with
// SQLSTATE code, the first n times (n < 0: always).
func raise(code string, n int) (func(context.Context, *pgx.Conn) error, *int) {
	calls := 0
	return func(ctx context.Context, conn *pgx.Conn) error {
		calls++
		if n >= 0 && calls > n {
			return nil
		}
		_, err := conn.Exec(ctx, fmt.Sprintf(`DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '%s'; END $$`, code))
		return err
	}, &calls
}

// A serialization failure or a deadlock is retried, in either isolation
// mode: the write lands once, and its key replays its one result.
func TestSerializationFailureAndDeadlockAreRetried(t *testing.T) {
	for _, tc := range []struct {
		code string
		iso  Isolation
	}{{sqlstateSerialization, ReadCommitted}, {sqlstateDeadlock, ReadCommitted}, {sqlstateDeadlock, Serializable}} {
		t.Run(tc.code+"/"+string(tc.iso), func(t *testing.T) {
			s, c := openNote(t, isolationTarget(t, tc.iso), contract.RunSpec{})
			hook, calls := raise(tc.code, 2)
			landsOnce(t, s, c, hook, calls, 3)
		})
	}
}

// A write that keeps failing with a deadlock is, past the limit, an outcome
// of kind busy (not a conflict, which its still current expected version
// would make illegal), and writes nothing; the session stays usable.
func TestEndlessDeadlocksAreBusy(t *testing.T) {
	s, c := openNote(t, newTarget(t), contract.RunSpec{})
	if _, err := replaceText(c, "1", "k0", "before"); err != nil {
		t.Fatal(err)
	}
	hook, calls := raise(sqlstateDeadlock, -1)
	s.beforeCommit = hook
	_, err := replaceText(c, "2", "k1", "never")
	if contract.KindOf(err) != contract.KindBusy || !errors.Is(err, errRetriesExhausted) {
		t.Fatalf("err %v (kind %s), want an outcome of kind busy", err, contract.KindOf(err))
	}
	if *calls != maxRetries+1 {
		t.Fatalf("%d tries, want %d", *calls, maxRetries+1)
	}
	s.beforeCommit = nil
	if got := mustRead(t, c, "markdown"); got.Text != "before" || got.Version != "2" {
		t.Fatalf("read %+v", got)
	}
	if r, err := replaceText(c, "2", "k1", "after"); err != nil || r.Replayed || r.Version != "3" {
		t.Fatalf("the key of the failed write: %+v %v", r, err)
	}
}

// A write whose context ends just before its commit writes nothing, and the
// Note is writable from another session afterwards.
func TestCancelledWriteLeavesNothing(t *testing.T) {
	s, c := openNote(t, newTarget(t), contract.RunSpec{})
	wctx, cancel := context.WithCancel(ctx)
	s.beforeCommit = func(context.Context, *pgx.Conn) error { cancel(); return nil }
	_, err := c.EditNoteTab(wctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "1",
		IdempotencyKey: "k", Operation: contract.OpReplaceText, Text: "half"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	s.beforeCommit = nil
	other := mustConn(t, s)
	if got := mustRead(t, other, "markdown"); got.Text != "" || got.Version != "1" {
		t.Fatalf("a cancelled write left %+v", got)
	}
	if r, err := replaceText(other, "1", "k", "whole"); err != nil || r.Replayed {
		t.Fatalf("write after the cancelled one: %+v %v", r, err)
	}
}

// On the real clock (no run clock) timestamp versions come from the server's
// clock_timestamp(): ms versions of writes in one millisecond collide, so a
// stale writer passes; us-suffix versions never repeat.
func TestServerClockVersions(t *testing.T) {
	tg := newTarget(t)
	var serverNow time.Time
	if err := admin(t).QueryRow(ctx, "SELECT clock_timestamp()").Scan(&serverNow); err != nil {
		t.Fatal(err)
	}
	near := func(t *testing.T, v contract.Version, layout string) {
		t.Helper()
		at, err := time.Parse(layout, string(v))
		if err != nil {
			t.Fatalf("version %q: %v", v, err)
		}
		if d := at.Sub(serverNow); d < -time.Second || d > 5*time.Minute {
			t.Fatalf("version %s is %v from the server's clock", v, d)
		}
	}

	t.Run("ms", func(t *testing.T) {
		_, c := openNote(t, tg, contract.RunSpec{Variant: contract.Variant{VersionFormat: contract.FormatMS}})
		v := mustRead(t, c, "markdown").Version
		near(t, v, "2006-01-02T15:04:05.000Z")
		// Writes take well under a millisecond here, but how many share one is
		// up to the machine: write until two do, or give up after 5,000.
		for i := 0; ; i++ {
			if i == 5000 {
				t.Fatal("5,000 writes without two in one millisecond")
			}
			r, err := replaceText(c, v, fmt.Sprintf("k%d", i), fmt.Sprint(i))
			if err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
			if r.Version == v {
				// The collision lets a writer holding the older state through.
				if _, err := replaceText(c, v, "stale", "stale"); err != nil {
					t.Fatalf("a stale write with a colliding version was refused: %v", err)
				}
				return
			}
			v = r.Version
		}
	})

	t.Run("us-suffix", func(t *testing.T) {
		_, c := openNote(t, tg, contract.RunSpec{Variant: contract.Variant{VersionFormat: contract.FormatUSSuffix}, Seed: 5})
		v := mustRead(t, c, "markdown").Version
		seen := map[contract.Version]bool{v: true}
		micros := map[string]bool{}
		for i := 0; i < 300; i++ {
			r, err := replaceText(c, v, fmt.Sprintf("k%d", i), fmt.Sprint(i))
			if err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
			if seen[r.Version] {
				t.Fatalf("version %s repeated after %d writes", r.Version, i)
			}
			seen[r.Version] = true
			stamp, _, _ := strings.Cut(string(r.Version), "Z-")
			micros[stamp] = true
			if _, err := replaceText(c, v, fmt.Sprintf("stale%d", i), "stale"); !isConflict(err) {
				t.Fatalf("stale write passed: %v", err)
			}
			v = r.Version
		}
		near(t, contract.Version(strings.SplitN(string(v), "Z-", 2)[0]+"Z"), "2006-01-02T15:04:05.000000Z")
		if len(micros) < 60 {
			t.Fatalf("300 writes over %d distinct microseconds: the server's clock is not being read", len(micros))
		}
	})
}

// The same run on the virtual clock's stand-in gives the same us-suffix
// versions every time: the suffix stream is seeded by the run.
func TestSuffixesFollowTheSeed(t *testing.T) {
	tg := newTarget(t)
	versions := func(seed uint64) []contract.Version {
		_, c := openNote(t, tg, contract.RunSpec{Variant: contract.Variant{VersionFormat: contract.FormatUSSuffix},
			Clock: contracttest.NewClock(), Seed: seed})
		return writeFive(t, c, mustRead(t, c, "markdown").Version)
	}
	a, b, other := versions(9), versions(9), versions(10)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("seed 9 gave %v then %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(other) {
		t.Fatalf("seeds 9 and 10 gave the same versions %v", a)
	}
}

// Strings PostgreSQL text cannot hold are refused where they would be stored,
// naming the field, and find nothing where they are looked up.
func TestUnstorableStrings(t *testing.T) {
	_, c := openNote(t, newTarget(t), contract.RunSpec{})
	var bad *contract.InvalidArgumentError
	if _, err := replaceText(c, "1", "k", "a\x00b"); !errors.As(err, &bad) || bad.Field != "text" {
		t.Fatalf("NUL in text: %v", err)
	}
	if _, err := replaceText(c, "1", "k\x00", "a"); !errors.As(err, &bad) || bad.Field != "idempotency_key" {
		t.Fatalf("NUL in key: %v", err)
	}
	var nf *contract.NotFoundError
	if _, err := c.ReadNoteTab(ctx, "note\xff", "markdown"); !errors.As(err, &nf) || nf.Field != "note_id" {
		t.Fatalf("read of a note id with invalid UTF-8: %v", err)
	}
	if _, err := c.ReadNoteTab(ctx, note, "tab\x00"); !errors.As(err, &nf) || nf.Field != "tab_id" {
		t.Fatalf("read of a tab id with NUL: %v", err)
	}
	if got := mustRead(t, c, "markdown"); got.Version != "1" {
		t.Fatalf("refused writes changed the Note: %+v", got)
	}
}

func isConflict(err error) bool {
	var ce *contract.ConflictError
	return errors.As(err, &ce)
}

// Writes run under READ COMMITTED even on a server whose default is
// SERIALIZABLE, where racing writers would fail with 40001 instead of a
// conflict.
func TestWritesRunReadCommitted(t *testing.T) {
	tg := &Target{URL: pgtest.URL(t)}
	sep := "?"
	if strings.Contains(tg.URL, "?") {
		sep = "&"
	}
	tg.URL += sep + "options=-c%20default_transaction_isolation%3Dserializable"
	s, c := openNote(t, tg, contract.RunSpec{})
	var level string
	s.beforeCommit = func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SHOW transaction_isolation").Scan(&level)
	}
	if _, err := replaceText(c, "1", "k", "x"); err != nil {
		t.Fatal(err)
	}
	if level != "read committed" {
		t.Fatalf("a write ran at %q", level)
	}
	var def string
	if err := c.conn.QueryRow(ctx, "SHOW default_transaction_isolation").Scan(&def); err != nil || def != "serializable" {
		t.Fatalf("the server default is %q (%v), so the test proves nothing", def, err)
	}
}

// Synchronous maps to the sessions' synchronous_commit: normal to off, full to
// on.
func TestSynchronousSetsSynchronousCommit(t *testing.T) {
	for sync, want := range map[contract.Synchronous]string{"": "off", contract.SyncNormal: "off", contract.SyncFull: "on"} {
		tg := &Target{URL: pgtest.URL(t), Synchronous: sync}
		s := open(t, tg, contract.RunSpec{Name: "sync"})
		c := mustConn(t, s)
		var got string
		if err := c.conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Synchronous %q: synchronous_commit %s, want %s", sync, got, want)
		}
		if d := tg.Describe(); !strings.HasSuffix(d, "synchronous_commit "+want) {
			t.Errorf("Describe %q", d)
		}
	}
	if err := (&Target{URL: "postgres://h/db", Synchronous: "sometimes"}).Parse(); err == nil ||
		err.Error() != `unknown synchronous setting "sometimes" (want normal or full)` {
		t.Fatalf("bad setting: %v", err)
	}
}
