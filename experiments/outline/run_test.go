package outline

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/simtest"
)

// callRecorder stands in front of the agent's connection and keeps every call that
// reaches it, arguments as received.
type callRecorder struct {
	next  outlineCaller
	calls []recordedCall
}

type recordedCall struct {
	tool string
	args json.RawMessage
}

func (r *callRecorder) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	r.calls = append(r.calls, recordedCall{tool, append(json.RawMessage(nil), args...)})
	return r.next.Call(ctx, tool, args)
}

func buildRecorded(t *testing.T, approach string, slides int) (deckBuild, []recordedCall) {
	t.Helper()
	rec := &callRecorder{}
	b, err := buildDeck(context.Background(), simtest.MemTarget, 1, approach, outlineSlides(slides), func(c outlineCaller) outlineCaller {
		rec.next = c
		return rec
	})
	if err != nil {
		t.Fatalf("building %d slides with %s: %v", slides, approach, err)
	}
	return b, rec.calls
}

// writeCalls returns the recorded writes: every call but the agent's first
// listing and its final read-back.
func writeCalls(t *testing.T, calls []recordedCall) []recordedCall {
	t.Helper()
	if len(calls) < 3 || calls[0].tool != "list_note_tabs" || calls[len(calls)-1].tool != "read_note_tab" {
		t.Fatalf("calls %v: want list_note_tabs, the writes, read_note_tab", calls)
	}
	return calls[1 : len(calls)-1]
}

func TestOutlineRequestBytesAreWhatWasSent(t *testing.T) {
	rows := simtest.MustRun(t, Default()).Rows
	if len(rows) != 2 || rows[0].Approach != ApproachOutline || rows[1].Approach != ApproachSlideAdd {
		t.Fatalf("rows %+v: want outline, then slide-add", rows)
	}
	for _, row := range rows {
		b, calls := buildRecorded(t, row.Approach, 12)
		writes := writeCalls(t, calls)
		sent := 0
		for _, c := range writes {
			sent += len(c.args)
			if v, err := contract.ValidateArgs(c.tool, c.args); err != nil || len(v) > 0 {
				t.Errorf("%s: a %s request breaks the schema: %v %v", row.Approach, c.tool, v, err)
			}
		}
		if row.RequestBytes != sent || b.requestBytes != sent {
			t.Errorf("%s: request_bytes %d (build %d), but %d bytes of arguments reached Call", row.Approach, row.RequestBytes, b.requestBytes, sent)
		}
		if row.Writes != len(writes) {
			t.Errorf("%s: writes %d, but %d writes reached Call", row.Approach, row.Writes, len(writes))
		}
	}
	if rows[0].Writes != 1 || rows[1].Writes != 13 {
		t.Errorf("writes %d and %d, want 1 and 13 for 12 slides", rows[0].Writes, rows[1].Writes)
	}
	// Each slide_add repeats the ids an outline sends once.
	if rows[1].RequestBytes <= rows[0].RequestBytes {
		t.Errorf("slide by slide sent %d bytes, the outline %d: want more", rows[1].RequestBytes, rows[0].RequestBytes)
	}
}

func TestOutlineSplitsLongDecks(t *testing.T) {
	for _, tc := range []struct {
		approach string
		slides   int
		want     []string // operation or tool of each write
		sizes    []int    // slides per write
	}{
		{ApproachOutline, 20, []string{"create_note_tab"}, []int{20}},
		{ApproachOutline, 25, []string{"create_note_tab", "slides_add_outline"}, []int{20, 5}},
		{ApproachOutline, 41, []string{"create_note_tab", "slides_add_outline", "slides_add_outline"}, []int{20, 20, 1}},
		{ApproachSlideAdd, 2, []string{"create_note_tab", "slide_add", "slide_add"}, []int{0, 1, 1}},
	} {
		b, calls := buildRecorded(t, tc.approach, tc.slides)
		writes := writeCalls(t, calls)
		var got []string
		var sizes []int
		for _, c := range writes {
			var args struct {
				Operation string            `json:"operation"`
				Title     string            `json:"title"`
				Slides    []json.RawMessage `json:"slides"`
			}
			if err := json.Unmarshal(c.args, &args); err != nil {
				t.Fatal(err)
			}
			name, n := c.tool, len(args.Slides)
			if c.tool == "edit_note_tab" {
				name = args.Operation
			}
			if args.Operation == "slide_add" && args.Title != "" {
				n = 1
			}
			got, sizes = append(got, name), append(sizes, n)
		}
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(sizes, tc.sizes) || b.writes != len(tc.want) {
			t.Errorf("%d slides by %s: writes %v of %v slides (%d counted), want %v of %v",
				tc.slides, tc.approach, got, sizes, b.writes, tc.want, tc.sizes)
		}
	}
}

func TestOutlineConflictsConvergeToExpectation(t *testing.T) {
	for _, c := range []Config{
		Default(),
		{Slides: 12, WindowS: 4, SavesPerMinute: 1, Decks: 100000, Seed: 2},
		{Slides: 5, WindowS: 30, SavesPerMinute: 2.5, Decks: 20000, Seed: 3},
		{Slides: 30, WindowS: 0.5, SavesPerMinute: 6, Decks: 20000, Seed: 4},
	} {
		rows := simtest.MustRun(t, c).Rows
		p := 1 - math.Exp(-c.WindowS*c.SavesPerMinute/60)
		for _, r := range rows {
			want := float64(r.Writes) * p
			if math.Abs(r.ExpectedConflicts-want) > 1e-12 {
				t.Errorf("%+v %s: expected_conflicts %v, want writes × (1 − e^(−window·rate)) = %v", c, r.Approach, r.ExpectedConflicts, want)
			}
			// The windows of a deck are disjoint, so its conflicts are a sum of
			// independent Bernoulli(p) draws, one per write.
			tol := 5 * math.Sqrt(float64(r.Writes)*p*(1-p)/float64(c.Decks))
			if math.Abs(r.ConflictsPerDeck-want) > tol {
				t.Errorf("%+v %s: %v conflicts per deck, want %v ± %v", c, r.Approach, r.ConflictsPerDeck, want, tol)
			}
		}
	}
}

func TestOutlineNoSaves(t *testing.T) {
	c := Default()
	c.SavesPerMinute = 0
	rows := simtest.MustRun(t, c).Rows
	for _, r := range rows {
		if r.ConflictsPerDeck != 0 || r.ExpectedConflicts != 0 {
			t.Errorf("%s without saves: %v conflicts, %v expected, want none", r.Approach, r.ConflictsPerDeck, r.ExpectedConflicts)
		}
	}
}

func TestOutlineDeterministic(t *testing.T) {
	a := simtest.MustRun(t, Default()).Rows
	b := simtest.MustRun(t, Default()).Rows
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with seed 1:\n%+v\n%+v", a, b)
	}
	c := Default()
	c.Seed = 2
	other := simtest.MustRun(t, c).Rows
	if other[1].ConflictsPerDeck == a[1].ConflictsPerDeck {
		t.Errorf("seeds 1 and 2 simulated the same conflicts: %v", a[1].ConflictsPerDeck)
	}
	if other[0].RequestBytes != a[0].RequestBytes || other[1].RequestBytes != a[1].RequestBytes {
		t.Errorf("request bytes depend on the seed: %+v and %+v", a, other)
	}
}

func TestOutlineSlides(t *testing.T) {
	s := outlineSlides(25)
	if len(s) != 25 || s[0] != outlineDeck[0] || s[11] != outlineDeck[11] {
		t.Fatalf("outlineSlides(25) does not start with the 12 slides of the deck")
	}
	if s[13].Title != "Agenda (2)" || s[24].Title != "Q3 launch review (3)" || s[13].Body != outlineDeck[1].Body {
		t.Errorf("slides 14 and 25 are %q and %q, want the deck's again with the round", s[13].Title, s[24].Title)
	}
	seen := map[string]bool{}
	for _, sl := range s {
		if seen[sl.Title] {
			t.Errorf("title %q twice", sl.Title)
		}
		seen[sl.Title] = true
	}
}

func TestOutlineConfigValidate(t *testing.T) {
	simtest.ExpectInvalid[Config, Row, struct{}](t, Default, []simtest.BadConfig[Config]{
		simtest.Bad(func(c *Config) { c.Slides = 0 }, "slides: must be at least 1"),
		simtest.Bad(func(c *Config) { c.Slides = 1001 }, "slides: must be at most 1000"),
		simtest.Bad(func(c *Config) { c.WindowS = 0 }, "window_s: must be positive"),
		simtest.Bad(func(c *Config) { c.WindowS = -4 }, "window_s: must be positive"),
		simtest.Bad(func(c *Config) { c.WindowS = math.NaN() }, "window_s: must be positive"),
		simtest.Bad(func(c *Config) { c.WindowS = math.Inf(1) }, "window_s: must be finite"),
		simtest.Bad(func(c *Config) { c.SavesPerMinute = -1 }, "saves_per_minute: must be 0 or more"),
		simtest.Bad(func(c *Config) { c.SavesPerMinute = math.Inf(1) }, "saves_per_minute: must be finite"),
		simtest.Bad(func(c *Config) { c.Decks = 0 }, "decks: must be at least 1"),
	})
}

func TestOutlineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := simtest.RunOn(ctx, Default(), simtest.OnMemory); !errors.Is(err, context.Canceled) {
		t.Errorf("RunOutline on a cancelled context = %v, want context.Canceled", err)
	}
}
