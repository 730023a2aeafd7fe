package refs

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
)

// The refs runs below are small because every trial goes through SQLite, which
// is slow under the race detector; the statistical checks take their tolerance
// from the trial count.

func runRefs(t *testing.T, c Config) []Row {
	t.Helper()
	rows := simtest.MustRun(t, c).Rows
	if want := len(c.K) * len(Kinds()); len(rows) != want {
		t.Fatalf("RunRefs gave %d rows, want %d", len(rows), want)
	}
	return rows
}

// refsTolerance is five standard deviations of a fraction of n trials that
// each succeed with probability p.
func refsTolerance(p float64, n int) float64 {
	return 5 * math.Sqrt(p*(1-p)/float64(n))
}

// checkRefsInvariants checks what holds for every row whatever the parameters:
// the three outcomes share the trials, every resolved reference led to one
// write, and every write that reached the version check passed it.
func checkRefsInvariants(t *testing.T, rows []Row) {
	t.Helper()
	for _, r := range rows {
		if sum := r.Correct + r.Wrong + r.NotFound; math.Abs(sum-1) > 1e-9 {
			t.Errorf("k %d %s: correct + wrong + not found = %v, want 1", r.K, r.Ref, sum)
		}
		if notFound := int(math.Round(r.NotFound * float64(r.Trials))); r.Writes != r.Trials-notFound {
			t.Errorf("k %d %s: %d writes, want one per resolved reference (%d)", r.K, r.Ref, r.Writes, r.Trials-notFound)
		}
		if r.Writes-r.Refused == 0 || r.PassedVersionCheck != 1 {
			t.Errorf("k %d %s: passed_version_check %v of %d writes judged, want every write to pass",
				r.K, r.Ref, r.PassedVersionCheck, r.Writes-r.Refused)
		}
		if r.Ref != RefPosition && r.Refused != 0 {
			t.Errorf("k %d %s: %d writes refused for the tab type, want none: only positions can land on a fixed tab", r.K, r.Ref, r.Refused)
		}
	}
}

func refsRowFor(t *testing.T, rows []Row, k int, ref string) Row {
	t.Helper()
	for _, r := range rows {
		if r.K == k && r.Ref == ref {
			return r
		}
	}
	t.Fatalf("no row for k %d, ref %s", k, ref)
	return Row{}
}

func TestRefsWithEdits(t *testing.T) {
	c := Default()
	c.K, c.Trials = []int{2, 3, 5}, 300
	if testpass.Race {
		c.Trials = 150 // make test's time (the tolerances follow the trials): make test-large runs 300
	}
	rows := runRefs(t, c)
	checkRefsInvariants(t, rows)
	for _, k := range c.K {
		if id := refsRowFor(t, rows, k, RefID); id.Correct != 1 {
			t.Errorf("k %d: references by id correct %v of the time, want always", k, id.Correct)
		}
		typ := refsRowFor(t, rows, k, RefType)
		want := 1 / float64(k)
		if tol := refsTolerance(want, c.Trials); math.Abs(typ.Correct-want) > tol {
			t.Errorf("k %d: references by type correct %.3f of the time, want 1/k = %.3f ± %.3f", k, typ.Correct, want, tol)
		}
		// The person's edits must reach the store and the agent's second listing.
		if pos := refsRowFor(t, rows, k, RefPosition); pos.Wrong == 0 {
			t.Errorf("k %d: no reference by position went wrong in %d trials with edits", k, c.Trials)
		}
	}
	if label := refsRowFor(t, rows, 2, RefLabel); label.NotFound == 0 || label.Wrong == 0 {
		t.Errorf("k 2: references by label never lost (%v) or moved (%v) in %d trials with renames", label.NotFound, label.Wrong, c.Trials)
	}
}

func TestRefsWithoutEdits(t *testing.T) {
	c := Default()
	c.K, c.Trials, c.EditsMax = []int{2, 4}, 200, 0
	rows := runRefs(t, c)
	checkRefsInvariants(t, rows)
	for _, r := range rows {
		if r.Ref == RefType {
			want := 1 / float64(r.K)
			if tol := refsTolerance(want, c.Trials); math.Abs(r.Correct-want) > tol {
				t.Errorf("k %d: references by type correct %.3f of the time, want 1/k = %.3f ± %.3f", r.K, r.Correct, want, tol)
			}
			continue
		}
		if r.Correct != 1 || r.Refused != 0 {
			t.Errorf("k %d %s without edits: correct %v, refused %d, want always correct", r.K, r.Ref, r.Correct, r.Refused)
		}
	}
}

func TestRefsMix(t *testing.T) {
	for _, tc := range []struct {
		mix  Mix
		safe string // the reference kind the mix cannot break
		hurt string // one it does break
	}{
		// Moves leave labels alone; renames and adds leave positions alone.
		{Mix{Move: 1}, RefLabel, RefPosition},
		{Mix{Rename: 0.5, Add: 0.5}, RefPosition, RefLabel},
	} {
		c := Config{K: []int{3}, Trials: 80, EditsMax: 2, Mix: tc.mix, Seed: 3}
		rows := runRefs(t, c)
		checkRefsInvariants(t, rows)
		if r := refsRowFor(t, rows, 3, tc.safe); r.Correct != 1 {
			t.Errorf("mix %v: references by %s correct %v of the time, want always", tc.mix, tc.safe, r.Correct)
		}
		if r := refsRowFor(t, rows, 3, tc.hurt); r.Correct == 1 {
			t.Errorf("mix %v: references by %s always correct, want some broken", tc.mix, tc.hurt)
		}
	}
}

func TestRefsDeterministic(t *testing.T) {
	c := Config{K: []int{3}, Trials: 60, EditsMax: 2, Mix: DefaultMix(), Seed: 11, Parallel: 1}
	one := runRefs(t, c)
	c.Parallel = 3
	three := runRefs(t, c)
	if !reflect.DeepEqual(one, three) {
		t.Errorf("same seed, 1 and 3 workers:\n%+v\n%+v", one, three)
	}
	c.Seed = 12
	if other := runRefs(t, c); reflect.DeepEqual(one, other) {
		t.Errorf("seeds 11 and 12 gave the same rows: %+v", one)
	}
}

func TestRefsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := simtest.RunOn(ctx, Default(), simtest.OnMemory); !errors.Is(err, context.Canceled) {
		t.Errorf("RunRefs on a cancelled context = %v, want context.Canceled", err)
	}
}

func TestResolveRef(t *testing.T) {
	bar := []contract.TabInfo{
		{TabID: "markdown", Type: contract.TypeMarkdown, Label: "Note"},
		{TabID: "slides-5-x", Type: contract.TypeSlides, Label: "Budget"},
		{TabID: "files", Type: contract.TypeFiles, Label: "Files"},
		{TabID: "slides-4-x", Type: contract.TypeSlides, Label: "Pitch"},
		{TabID: "sources", Type: contract.TypeSources, Label: "Sources"},
		{TabID: "slides-6-x", Type: contract.TypeSlides, Label: "Pitch"},
	}
	for _, tc := range []struct {
		name string
		kind refKind
		ref  tabRef
		want string // "" means not found
	}{
		{"position on a deck", refPosition, tabRef{position: 3}, "slides-4-x"},
		{"position on a fixed tab", refPosition, tabRef{position: 0}, "markdown"},
		{"position past the end", refPosition, tabRef{position: 6}, ""},
		{"type is the first deck in bar order", refType, tabRef{}, "slides-5-x"},
		{"label shared by two decks", refLabel, tabRef{label: "Pitch"}, "slides-4-x"},
		{"label nobody carries", refLabel, tabRef{label: "Roadmap"}, ""},
		{"id", refID, tabRef{id: "slides-6-x"}, "slides-6-x"},
		{"id of a tab that is gone", refID, tabRef{id: "slides-9-x"}, ""},
	} {
		tab, ok := resolveRef(tc.kind, tc.ref, bar)
		if got := tab.TabID; ok != (tc.want != "") || got != tc.want {
			t.Errorf("%s: resolved to %q (found %v), want %q", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := resolveRef(refType, tabRef{}, bar[:1]); ok {
		t.Error("a type reference resolved in a bar without decks")
	}
}

func TestRefsConfigValidate(t *testing.T) {
	simtest.ExpectInvalid[Config, Row, struct{}](t, Default, []simtest.BadConfig[Config]{
		simtest.Bad(func(c *Config) { c.K = nil }, "k: no values given"),
		simtest.Bad(func(c *Config) { c.K = []int{2, 0} }, "k: must be at least 1"),
		simtest.Bad(func(c *Config) { c.K = []int{6} }, "k: must be at most 5, the size of the label pool"),
		simtest.Bad(func(c *Config) { c.K = []int{2, 5, 2} }, "k: 2 is listed twice"),
		simtest.Bad(func(c *Config) { c.Trials = 0 }, "trials: must be at least 1"),
		simtest.Bad(func(c *Config) { c.EditsMax = -1 }, "edits_max: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.Parallel = -2 }, "parallel: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.Mix.Move = 0.5 }, "mix: shares sum to 1.10, want 1"),
		simtest.Bad(func(c *Config) { c.Mix = Mix{Move: 1.2, Rename: -0.2} }, "mix: rename share is negative"),
		simtest.Bad(func(c *Config) { c.Mix.Add = math.NaN() }, "mix: add share is not a number"),
	})
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix("move=0.4, rename=0.35,add=0.25")
	if err != nil || m != DefaultMix() {
		t.Fatalf("ParseMix = %+v, %v, want the default mix", m, err)
	}
	if back, err := ParseMix(m.String()); err != nil || back != m {
		t.Errorf("ParseMix(%q) = %+v, %v, want %+v", m.String(), back, err, m)
	}
	if m, err := ParseMix("add=1"); err != nil || m != (Mix{Add: 1}) {
		t.Errorf("ParseMix(add=1) = %+v, %v, want add only", m, err)
	}
	for in, want := range map[string]string{
		"":                   "no shares given",
		"move=0.5,swap=0.5":  `unknown action "swap"`,
		"move=0.5,move=0.5":  "move is given twice",
		"move":               `"move" is not action=share`,
		"move=lots":          `move: "lots" is not a number`,
		"move=NaN":           `move: "NaN" is not a number`,
		"move=1.5,add=-0.5":  "add: share is negative",
		"move=0.4,,add=0.25": `"" is not action=share`,
	} {
		if _, err := ParseMix(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMix(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}
