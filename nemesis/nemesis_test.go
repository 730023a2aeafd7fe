package nemesis

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/history"
)

// The nemeses are the history's kinds, in --nemesis's order, each saying
// where it is made and what it does.
func TestTheList(t *testing.T) {
	want := []string{history.FaultKill, history.FaultPause, history.FaultLoseReplies, history.FaultDuplicate}
	if got := Kinds(); !slices.Equal(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for _, n := range All() {
		if n.About() == "" {
			t.Errorf("%s says nothing of what it does", n.Kind())
		}
	}
	if got := KindsAt(Process); !slices.Equal(got, []string{"kill", "pause"}) {
		t.Errorf("on the process: %v", got)
	}
	if got := KindsAt(Wire); !slices.Equal(got, []string{"lose-replies", "duplicate"}) {
		t.Errorf("on the wire: %v", got)
	}
	if !At(Process, []string{"duplicate", "kill"}) || At(Process, []string{"duplicate"}) {
		t.Error("At does not tell a process fault from a wire fault")
	}
	if h := Help(); h != "kill (SIGKILL, then start it again), pause (SIGSTOP past --call-timeout, then SIGCONT), lose-replies (drop a write's reply after the server sent it), duplicate (send a write twice at once)" {
		t.Errorf("help %q", h)
	}
}

// --nemesis takes the kinds comma-separated, each once; anything else is one
// line naming what is wrong and what is wanted.
func TestParse(t *testing.T) {
	if got, err := Parse(" duplicate,kill "); err != nil || !slices.Equal(got, []string{"duplicate", "kill"}) {
		t.Errorf("Parse: %v %v", got, err)
	}
	for s, want := range map[string]string{
		"kill,crash": `"crash" is not a fault: want kill, pause, lose-replies or duplicate, comma-separated`,
		"kill,kill":  `"kill" is listed twice`,
		"":           `"" is not a fault: want kill, pause, lose-replies or duplicate, comma-separated`,
	} {
		if _, err := Parse(s); err == nil || err.Error() != want {
			t.Errorf("Parse(%q): %v, want %s", s, err, want)
		}
	}
}

// fakeVictim records the faults made on it, and stops after stopAfter.
type fakeVictim struct {
	mu        sync.Mutex
	made      []string
	stopAfter int
}

func (f *fakeVictim) record(kind string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.made = append(f.made, kind)
	return len(f.made) < f.stopAfter
}

func (f *fakeVictim) AwaitWrite() bool               { return true }
func (f *fakeVictim) Kill(ctx context.Context) error { f.record("kill"); return nil }
func (f *fakeVictim) Pause()                         { f.record("pause") }
func (f *fakeVictim) Arm(kind string) bool           { return f.record(kind) }
func (f *fakeVictim) Recovered() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.made) < f.stopAfter
}

// The schedule is the seed's: the same seed makes the same faults in the
// same order, another seed others; it makes nothing without a gap or a
// nemesis, and ends when the run stops.
func TestScheduleIsTheSeeds(t *testing.T) {
	made := func(seed uint64) []string {
		r := &fakeVictim{stopAfter: 12}
		Schedule(context.Background(), r, All(), time.Microsecond, seed)
		return r.made
	}
	a, b, c := made(1), made(1), made(2)
	if len(a) != 12 || !slices.Equal(a, b) {
		t.Fatalf("seed 1 twice: %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 made the same faults: %v", a)
	}
	for _, k := range Kinds() {
		if !slices.Contains(slices.Concat(a, c), k) {
			t.Errorf("no %s in 24 faults drawn from all four: %v %v", k, a, c)
		}
	}
	r := &fakeVictim{stopAfter: 1}
	Schedule(context.Background(), r, nil, time.Microsecond, 1)
	Schedule(context.Background(), r, All(), 0, 1)
	if len(r.made) != 0 {
		t.Errorf("made %v without a nemesis or a gap", r.made)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Schedule(ctx, r, All(), time.Hour, 1)
	if len(r.made) != 0 {
		t.Errorf("made %v after its context ended", r.made)
	}
}

// killTwice is a fault a test adds: a kill, and another as soon as the
// server is back, made of what a Victim offers.
type killTwice struct{}

func (killTwice) Kind() string  { return "kill-twice" }
func (killTwice) Place() Place  { return Process }
func (killTwice) About() string { return "SIGKILL twice in a row" }
func (killTwice) Invoke(ctx context.Context, r Victim) bool {
	return r.AwaitWrite() && r.Kill(ctx) == nil && r.Kill(ctx) == nil
}

// Adding a fault is one value and its line in the list: --nemesis parses it,
// its help and the kinds on its place name it, and the schedule makes it.
func TestANewFaultIsOneValue(t *testing.T) {
	saved := all
	t.Cleanup(func() { all = saved })
	all = append(slices.Clone(saved), killTwice{})

	if got, err := Parse("kill-twice,duplicate"); err != nil || !slices.Equal(got, []string{"kill-twice", "duplicate"}) {
		t.Errorf("Parse: %v %v", got, err)
	}
	if h := Help(); !strings.HasSuffix(h, ", kill-twice (SIGKILL twice in a row)") {
		t.Errorf("help %q", h)
	}
	if got := KindsAt(Process); !slices.Equal(got, []string{"kill", "pause", "kill-twice"}) || !At(Process, []string{"kill-twice"}) {
		t.Errorf("on the process: %v", got)
	}
	n, ok := Lookup("kill-twice")
	if !ok {
		t.Fatal("Lookup finds no kill-twice")
	}
	r := &fakeVictim{stopAfter: 6}
	Schedule(context.Background(), r, []Nemesis{n}, time.Microsecond, 1)
	if len(r.made) != 6 || slices.ContainsFunc(r.made, func(k string) bool { return k != "kill" }) {
		t.Errorf("the schedule made %v, want kills two by two", r.made)
	}
}
