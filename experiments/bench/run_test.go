package bench

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// A bench write goes through the store's normal write path: after a run, each
// writer's Note holds the text of its last write, and its version was bumped
// once per write, warm-up included.
func TestBenchWritesAreVisibleThroughReadNoteTab(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Writes: 7, Reps: 2, Warmup: 3, TextSize: 40, Writers: []int{1, 2},
		Guards: []contract.Guard{contract.GuardNote, contract.GuardTab}, Synchronous: "normal", DBDir: dir}
	runs := simtest.MustRunOn(t, cfg, simtest.On(simtest.FileTarget(t, dir))).Runs
	if len(runs) != 2*2*2 {
		t.Fatalf("%d runs, want 8", len(runs))
	}
	for _, r := range runs {
		if len(r.SamplesUS) != cfg.Writes*r.Writers {
			t.Fatalf("%+v: %d samples, want %d", r, len(r.SamplesUS), cfg.Writes*r.Writers)
		}
		if slices.ContainsFunc(r.SamplesUS, func(x float64) bool { return !(x > 0) }) || !(r.WallS > 0) {
			t.Fatalf("%s, %d writers, rep %d: a latency or the wall time is not positive", r.Guard, r.Writers, r.Rep)
		}
		j := benchJob{guard: contract.Guard(r.Guard), writers: r.Writers, rep: r.Rep}
		s, err := store.Open(filepath.Join(dir, benchDBName(j)+".db"), store.Options{Guard: j.guard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		c, err := s.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		for w := range r.Writers {
			got, err := c.ReadNoteTab(context.Background(), benchNoteID(w), "markdown")
			if err != nil {
				t.Fatal(err)
			}
			last := cfg.Warmup + cfg.Writes - 1
			if want := benchText(w, last, cfg.TextSize); got.Text != want {
				t.Errorf("%s writer %d: text %q, want %q", benchDBName(j), w+1, got.Text, want)
			}
			if want := contract.Version("11"); got.Version != want { // 1, then one bump per write
				t.Errorf("%s writer %d: version %s, want %s", benchDBName(j), w+1, got.Version, want)
			}
		}
	}
}

// The guards' order rotates with the repetition, so no guard always runs first.
func TestBenchRotatesGuardOrder(t *testing.T) {
	cfg := Config{Writes: 1, Reps: 3, TextSize: 10, Writers: []int{1},
		Guards: []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab}, Synchronous: "normal"}
	runs := simtest.MustRun(t, cfg).Runs
	var order []string
	for _, r := range runs {
		order = append(order, r.Guard)
	}
	want := "none note tab note tab none tab none note"
	if got := strings.Join(order, " "); got != want {
		t.Fatalf("order %q, want %q", got, want)
	}
}

func TestBenchConfigErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []simtest.BadConfig[Config]{
		simtest.Bad(func(c *Config) { c.Writes = 0 }, "writes: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Reps = 0 }, "reps: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Warmup = -1 }, "warmup: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.TextSize = -1 }, "text_size: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.Guards = nil }, "guards: no guards given"),
		simtest.Bad(func(c *Config) { c.Guards = []contract.Guard{"sometimes"} }, `guards: unknown guard "sometimes" (want none, note or tab)`),
		simtest.Bad(func(c *Config) { c.Writers = []int{1, 0} }, "writers: 0: must be at least 1"),
	} {
		cfg := Default()
		tc.Edit(&cfg)
		err := cfg.Validate(simtest.MemTarget)
		if err == nil || err.Error() != tc.Want {
			t.Errorf("error %v, want %q", err, tc.Want)
		}
		if _, err := simtest.RunOn(context.Background(), cfg, simtest.OnMemory); err == nil {
			t.Errorf("Bench ran with a bad config (%s)", tc.Want)
		}
	}
	if err := Default().Validate(simtest.MemTarget); err != nil {
		t.Fatalf("default config: %v", err)
	}
}

func TestParseWritersAndGuards(t *testing.T) {
	if got, err := ParseWriters("1, 2,4,8"); err != nil || !slices.Equal(got, []int{1, 2, 4, 8}) {
		t.Fatalf("ParseWriters: %v %v", got, err)
	}
	for _, bad := range []string{"", "0", "-1", "two", "1,1"} {
		if _, err := ParseWriters(bad); err == nil {
			t.Errorf("ParseWriters(%q) accepted", bad)
		}
	}
	if got, err := contract.ParseList("none,note,tab", contract.Guards.Parse); err != nil || len(got) != 3 || got[2] != contract.GuardTab {
		t.Fatalf("ParseGuards: %v %v", got, err)
	}
	for _, bad := range []string{"", "sometimes", "note,note"} {
		if _, err := contract.ParseList(bad, contract.Guards.Parse); err == nil {
			t.Errorf("ParseGuards(%q) accepted", bad)
		}
	}
}

func TestBenchTextHasTheRequestedSize(t *testing.T) {
	for _, size := range []int{0, 5, 200} {
		if got := benchText(0, 41, size); len(got) != size {
			t.Errorf("size %d: got %d bytes", size, len(got))
		}
	}
	if benchText(0, 1, 200) == benchText(0, 2, 200) || benchText(0, 1, 200) == benchText(1, 1, 200) {
		t.Error("two writes share a text")
	}
}

// wrapTarget opens its target's runs with every session wrapped by wrap,
// which is told the session's number in the run (from 0).
type wrapTarget struct {
	contract.Target
	wrap func(s contract.Session, n int) contract.Session
}

func (t wrapTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil {
		return nil, err
	}
	return &wrapBackend{Backend: b, wrap: t.wrap}, nil
}

type wrapBackend struct {
	contract.Backend
	wrap func(s contract.Session, n int) contract.Session
	n    int
}

func (b *wrapBackend) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	b.n++
	return b.wrap(s, b.n-1), nil
}

// slowPings answers a ping after a pause, as a transport would.
type slowPings struct {
	contract.Session
	pause time.Duration
}

func (s slowPings) Ping(context.Context) error {
	time.Sleep(s.pause)
	return nil
}

// Over a transport, writes per second count the writes alone: the pings that
// measure the transport's floor are kept out of the wall time.
func TestBenchWritesPerSecondCountWritesOnly(t *testing.T) {
	cfg := Config{Writes: 40, Reps: 1, TextSize: 10, Writers: []int{1}, Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal"}
	target := wrapTarget{simtest.MemTarget, func(s contract.Session, _ int) contract.Session { return slowPings{s, 10 * time.Millisecond} }}
	runs := simtest.MustRunOn(t, cfg, simtest.On(target)).Runs
	r := runs[0]
	var pinged float64
	for _, p := range r.PingsUS {
		pinged += p
	}
	if len(r.PingsUS) != cfg.Writes || pinged < 0.4e6 {
		t.Fatalf("%d pings taking %.0f µs in all, want %d of 10 ms", len(r.PingsUS), pinged, cfg.Writes)
	}
	// 40 writes to memory take a few milliseconds; the pings, 400.
	if wall := r.WallS * 1e6; wall > pinged/2 {
		t.Errorf("the writes' wall time %.0f µs holds the pings' %.0f µs", wall, pinged)
	}
}

// failingWrites fails every write after the first after; slowWrites takes
// a pause before each, returning early when its ctx is done.
type failingWrites struct {
	contract.Session
	after int
	n     int
}

func (s *failingWrites) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	if s.n++; s.n > s.after {
		return contract.EditResult{}, errors.New("the disk is full")
	}
	return s.Session.EditNoteTab(ctx, req)
}

type slowWrites struct {
	contract.Session
	done *atomic.Int64
}

func (s slowWrites) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	select {
	case <-time.After(20 * time.Millisecond):
	case <-ctx.Done():
		return contract.EditResult{}, ctx.Err()
	}
	s.done.Add(1)
	return s.Session.EditNoteTab(ctx, req)
}

// One writer's errors stop the others once they reach the run's limit: the
// run ends at once, saying why, not after every other writer finished its
// writes; what it timed until then is kept.
func TestBenchWriterErrorStopsTheOthers(t *testing.T) {
	var slow atomic.Int64
	cfg := Config{Writes: 200, Reps: 1, Warmup: 1, TextSize: 10, Writers: []int{2}, Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal",
		TargetSettings: sim.TargetSettings{MaxErrors: 3}}
	target := wrapTarget{simtest.MemTarget, func(s contract.Session, n int) contract.Session {
		if n == 0 {
			return &failingWrites{Session: s, after: 1}
		}
		return slowWrites{s, &slow}
	}}
	runs := simtest.MustRunOn(t, cfg, simtest.On(target)).Runs
	if r := runs[0]; !strings.Contains(r.Stopped, "ended after 3 calls that ended in an error; the server's last: the disk is full") || r.Errors != 3 {
		t.Fatalf("stopped %q after %d errors, want writer 1's third", r.Stopped, r.Errors)
	}
	// The slow writer made its warm-up write and at most a few timed ones
	// before it was stopped; without the stop it made all 200.
	if n := slow.Load(); n > 20 {
		t.Errorf("the other writer made %d writes after the first failed", n)
	}
}

// countedRetries is a session whose store counts retries: each of its
// writes, warm-up ones included, counts perWrite of them.
type countedRetries struct {
	contract.Session
	perWrite int64
	n        *atomic.Int64
}

func (s countedRetries) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	s.n.Add(s.perWrite)
	return s.Session.EditNoteTab(ctx, req)
}

func (s countedRetries) Retries() int64 { return s.n.Load() }

// A session that counts retries has the retries of its timed writes alone
// carried into its run; one that does not, none.
func TestBenchCountsRetriesOfTimedWrites(t *testing.T) {
	cfg := Config{Writes: 10, Reps: 1, Warmup: 5, TextSize: 10, Writers: []int{2}, Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal"}
	target := wrapTarget{simtest.MemTarget, func(s contract.Session, n int) contract.Session {
		return countedRetries{s, int64(n + 1), new(atomic.Int64)}
	}}
	runs := simtest.MustRunOn(t, cfg, simtest.On(target)).Runs
	// Writer 1 retries once a write, writer 2 twice, over 10 timed writes each.
	if r := runs[0]; !r.RetriesCounted || r.Retries != 30 {
		t.Fatalf("retries %d (counted %v), want 30", r.Retries, r.RetriesCounted)
	}
	runs = simtest.MustRun(t, cfg).Runs
	if r := runs[0]; r.RetriesCounted || r.Retries != 0 {
		t.Fatalf("a store that counts no retries: %d (counted %v)", r.Retries, r.RetriesCounted)
	}
}
