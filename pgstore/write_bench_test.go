package pgstore

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgtest"
)

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
