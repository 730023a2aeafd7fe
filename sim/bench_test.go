package sim

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/store"
)

// A bench write goes through the store's normal write path: after a run, each
// writer's Note holds the text of its last write, and its version was bumped
// once per write, warm-up included.
func TestBenchWritesAreVisibleThroughReadNoteTab(t *testing.T) {
	dir := t.TempDir()
	cfg := Bench{Writes: 7, Reps: 2, Warmup: 3, TextSize: 40, Writers: []int{1, 2},
		Guards: []contract.Guard{contract.GuardNote, contract.GuardTab}, Synchronous: "normal", DBDir: dir, Runtime: Runtime{Target: fileTarget(t, dir)}}
	runs, err := ownRuns(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
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
	cfg := Bench{Writes: 1, Reps: 3, TextSize: 10, Writers: []int{1},
		Guards: []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab}, Synchronous: "normal", Runtime: Runtime{Target: memTarget}}
	runs, err := ownRuns(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
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
	for _, tc := range []struct {
		edit func(*Bench)
		want string
	}{
		{func(c *Bench) { c.Writes = 0 }, "writes: must be at least 1"},
		{func(c *Bench) { c.Reps = 0 }, "reps: must be at least 1"},
		{func(c *Bench) { c.Warmup = -1 }, "warmup: must be 0 or more"},
		{func(c *Bench) { c.TextSize = -1 }, "text_size: must be 0 or more"},
		{func(c *Bench) { c.Guards = nil }, "guards: no guards given"},
		{func(c *Bench) { c.Guards = []contract.Guard{"sometimes"} }, `guards: unknown guard "sometimes" (want none, note or tab)`},
		{func(c *Bench) { c.Writers = []int{1, 0} }, "writers: 0: must be at least 1"},
	} {
		cfg := testBench()
		tc.edit(&cfg)
		err := cfg.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
		if _, err := ownRuns(context.Background(), cfg); err == nil {
			t.Errorf("Bench ran with a bad config (%s)", tc.want)
		}
	}
	if err := testBench().Validate(); err != nil {
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
