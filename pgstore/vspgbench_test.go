package pgstore_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/pgbench"
	"github.com/notesbench/notesbench/internal/pgtest"
	"github.com/notesbench/notesbench/pgstore"
)

// This benchmark is of package pgstore_test: it times the store beside the
// pgbench peer, which imports pgstore (export_test.go lends it the rounds).

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
	if _, err := pgbench.Binary(""); err != nil {
		b.Skip(err)
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("PGBENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const writes, warmup, size = 2000, 200, 200
	for _, sync := range []contract.Synchronous{contract.SyncNormal, contract.SyncFull} {
		b.Run("sync="+string(sync), func(b *testing.B) {
			tg := &pgstore.Target{URL: pgtest.URL(b), Synchronous: sync}
			var ours, drivers, peers, ratios, overDriver []float64
			for r := 0; r < rounds; r++ {
				var o, d, p []float64
				runs := []func(){
					func() { o = pgstore.WriteRound(b, tg, writes, warmup, size, pgstore.NotesbenchWrite) },
					func() { d = pgstore.WriteRound(b, tg, writes, warmup, size, pgstore.DriverWrite) },
					func() {
						var err error
						if p, err = (pgbench.Peer{Writes: writes, Warmup: warmup, TextSize: size}).Run(context.Background(), tg); err != nil {
							b.Fatal(err)
						}
					},
				}
				for k := range runs {
					runs[(r+k)%len(runs)]()
				}
				mo, md, mp := pgstore.Median(o), pgstore.Median(d), pgstore.Median(p)
				ours, drivers, peers = append(ours, mo), append(drivers, md), append(peers, mp)
				ratios, overDriver = append(ratios, mo/mp), append(overDriver, mo/md)
				b.Logf("round %d: notesbench %.1f µs, the driver alone %.1f µs, pgbench %.1f µs; notesbench/pgbench %.3f, notesbench/driver %.3f",
					r+1, mo, md, mp, mo/mp, mo/md)
			}
			b.ReportMetric(pgstore.Median(ours), "notesbench-µs/write")
			b.ReportMetric(pgstore.Median(drivers), "driver-µs/write")
			b.ReportMetric(pgstore.Median(peers), "pgbench-µs/write")
			b.ReportMetric(pgstore.Median(ratios), "notesbench/pgbench")
			b.ReportMetric(pgstore.Median(overDriver), "notesbench/driver")
		})
	}
}
