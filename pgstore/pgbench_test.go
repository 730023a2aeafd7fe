package pgstore

import (
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
)

// The pgbench peer runs the script's transactions, each leaves the Note as a
// notesbench write of the same text would, and every timed one has a latency.
func TestPgbenchPeer(t *testing.T) {
	if _, err := pgbenchPath(""); err != nil {
		if os.Getenv(pgtest.EnvRequire) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, tc := range []struct {
		g   contract.Guard
		iso Isolation
	}{{contract.GuardNote, ReadCommitted}, {contract.GuardTab, ReadCommitted}, {contract.GuardNote, Serializable}} {
		g := tc.g
		t.Run(string(g)+"/"+string(tc.iso), func(t *testing.T) {
			tg := isolationTarget(t, tc.iso)
			tg.Keep = true
			samples, err := tg.Pgbench(ctx, PgbenchOptions{Writes: 30, Warmup: 5, TextSize: 50, Guard: g})
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

func TestPgbenchScriptNamesEveryPlaceholder(t *testing.T) {
	for _, iso := range Isolations.Values {
		begin, note := iso.statements()
		for _, g := range []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab} {
			s := pgbenchScript(g, iso)
			if strings.Contains(s, "$") || strings.Count(s, "\\startpipeline") != 2 ||
				!strings.HasPrefix(strings.SplitN(s, "\\startpipeline\n", 2)[1], begin+";\n"+strings.Replace(note, "$1", ":note", 1)+";\n") {
				t.Fatalf("script for %s, %s:\n%s", g, iso, s)
			}
		}
	}
}

// BenchmarkEditNoteTab times one edit_note_tab replace_text write of a
// 200-character text, as notesbench bench makes it, per guard and per
// synchronous setting.
func BenchmarkEditNoteTab(b *testing.B) {
	text := strings.Repeat("x", 200)
	for _, sync := range []contract.Synchronous{contract.SyncNormal, contract.SyncFull} {
		for _, g := range []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab} {
			b.Run(fmt.Sprintf("sync=%s/guard=%s", sync, g), func(b *testing.B) {
				tg := &Target{URL: pgtest.URL(b), Synchronous: sync}
				_, c := openNote(b, tg, contract.RunSpec{Name: "bench", Variant: contract.Variant{Guard: g}})
				v := mustRead(b, c, "markdown").Version
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r, err := replaceText(c, v, "b-"+strconv.Itoa(i), text)
					if err != nil {
						b.Fatal(err)
					}
					v = r.Version
				}
			})
		}
	}
}

// BenchmarkVsPgbench compares notesbench's write with the pgbench peer running
// the same transaction, and with the same two pipelines sent through the
// write path's pgconn pipelines with none of the contract's work (what the
// driver alone costs): rounds (PGBENCH_ROUNDS, default 5) whose order rotates
// by one place each round, each a fresh run of 2,000
// timed writes after 200 warm-up ones, guard note, 200 characters, at both
// synchronous settings. It reports the medians per write and the medians of
// the per-round ratios; run it once:
//
//	go test -run '^$' -bench VsPgbench -benchtime 1x ./pgstore
func BenchmarkVsPgbench(b *testing.B) {
	if _, err := pgbenchPath(""); err != nil {
		b.Skip(err)
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("PGBENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const writes, warmup, size = 2000, 200, 200
	for _, sync := range []contract.Synchronous{contract.SyncNormal, contract.SyncFull} {
		b.Run("sync="+string(sync), func(b *testing.B) {
			tg := &Target{URL: pgtest.URL(b), Synchronous: sync}
			var ours, drivers, peers, ratios, overDriver []float64
			for r := 0; r < rounds; r++ {
				var o, d, p []float64
				runs := []func(){
					func() { o = writeRound(b, tg, writes, warmup, size, notesbenchWrite) },
					func() { d = writeRound(b, tg, writes, warmup, size, driverWrite) },
					func() {
						var err error
						if p, err = tg.Pgbench(ctx, PgbenchOptions{Writes: writes, Warmup: warmup, TextSize: size}); err != nil {
							b.Fatal(err)
						}
					},
				}
				for k := range runs {
					runs[(r+k)%len(runs)]()
				}
				mo, md, mp := median(o), median(d), median(p)
				ours, drivers, peers = append(ours, mo), append(drivers, md), append(peers, mp)
				ratios, overDriver = append(ratios, mo/mp), append(overDriver, mo/md)
				b.Logf("round %d: notesbench %.1f µs, the driver alone %.1f µs, pgbench %.1f µs; notesbench/pgbench %.3f, notesbench/driver %.3f",
					r+1, mo, md, mp, mo/mp, mo/md)
			}
			b.ReportMetric(median(ours), "notesbench-µs/write")
			b.ReportMetric(median(drivers), "driver-µs/write")
			b.ReportMetric(median(peers), "pgbench-µs/write")
			b.ReportMetric(median(ratios), "notesbench/pgbench")
			b.ReportMetric(median(overDriver), "notesbench/driver")
		})
	}
}

// writeRound makes warmup+writes sequential writes with write on a fresh run
// and returns the timed ones' durations in µs.
func writeRound(b *testing.B, tg *Target, writes, warmup, size int, write func(c *Session, i int, v contract.Version, text string) (contract.Version, error)) []float64 {
	s, err := tg.OpenStore(ctx, contract.RunSpec{Name: "vs-pgbench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateNote(ctx, note); err != nil {
		b.Fatal(err)
	}
	c, err := s.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	text := strings.Repeat("x", size)
	v := contract.Version("1")
	out := make([]float64, 0, writes)
	for i := 0; i < warmup+writes; i++ {
		t0 := time.Now()
		v, err = write(c, i, v, text)
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if i >= warmup {
			out = append(out, float64(d.Nanoseconds())/1e3)
		}
	}
	return out
}

// notesbenchWrite is one write as notesbench bench makes it: the typed tool.
func notesbenchWrite(c *Session, i int, v contract.Version, text string) (contract.Version, error) {
	r, err := c.EditNoteTab(ctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: v,
		IdempotencyKey: fmt.Sprintf("bench-1-%d", i+1), Operation: contract.OpReplaceText, Text: text})
	return r.Version, err
}

// driverWrite sends the statements of one write, in its two pipelines,
// through the same pgconn pipelines as the write path: no checks, no rules,
// no stored result made.
func driverWrite(c *Session, i int, v contract.Version, text string) (contract.Version, error) {
	key := fmt.Sprintf("bench-1-%d", i+1)
	var cur int64
	err := pipeline(ctx, c.conn, c.s.prepare, []queued{{sql: sqlBegin}, {sqlLockNote, []any{note}}, {sqlLoadTab, []any{note, "markdown", key}}},
		func(i int, fields []pgconn.FieldDescription, values [][]byte) error {
			if i == 1 {
				cur = int64(binary.BigEndian.Uint64(values[0]))
			}
			return nil
		})
	if err != nil {
		return v, err
	}
	err = pipeline(ctx, c.conn, c.s.prepare, []queued{{sqlBumpNote, []any{cur + 1, note}}, {sqlSetData, []any{text, note, "markdown"}},
		{sqlStoreKey, []any{note, key, contract.ToolEditNoteTab, `{"note_id":"note-1","tab_id":"markdown","version":2200,"changed":"text: 200 characters"}`}},
		{sql: "COMMIT"}}, nil)
	return contract.Version(strconv.FormatInt(cur+1, 10)), err
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
