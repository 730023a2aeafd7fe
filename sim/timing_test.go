package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
)

const ms = time.Millisecond

func TestParseOversleep(t *testing.T) {
	for _, tc := range []struct {
		in    string
		str   string
		extra [4]time.Duration // for sleeps of 0, 4ms, 20ms and 80ms
	}{
		{"none", "none", [4]time.Duration{}},
		{"0", "none", [4]time.Duration{}},
		{"5ms", "5ms", [4]time.Duration{0, 5 * ms, 5 * ms, 5 * ms}},
		{"slack:d/4", "slack:d/4", [4]time.Duration{0, ms, 5 * ms, 20 * ms}},
		{"slack:d/4,max=5ms", "slack:d/4,max=5ms", [4]time.Duration{0, ms, 5 * ms, 5 * ms}},
		{" slack:d/8, max=1ms ", "slack:d/8,max=1ms", [4]time.Duration{0, 500 * time.Microsecond, ms, ms}},
		{"slack:d/3", "slack:d/3", [4]time.Duration{0, 1333333, 6666666, 26666666}},
	} {
		o, err := ParseOversleep(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if o.String() != tc.str {
			t.Errorf("%q reads back as %q, want %q", tc.in, o.String(), tc.str)
		}
		for i, d := range []time.Duration{0, 4 * ms, 20 * ms, 80 * ms} {
			if got := o.Extra(d); got != tc.extra[i] {
				t.Errorf("%q: Extra(%v) = %v, want %v", tc.in, d, got, tc.extra[i])
			}
		}
		if back, err := ParseOversleep(o.String()); err != nil || back.String() != o.String() {
			t.Errorf("%q: round trip gave %v, %v", tc.in, back, err)
		}
	}
	for in, want := range map[string]string{
		"":                   `no rule given (want none, a duration such as 5ms, or slack:d/N,max=D)`,
		"fast":               `fast: not a duration (want none, a duration such as 5ms, or slack:d/N,max=D)`,
		"-1ms":               `-1ms: negative duration (want none, a duration such as 5ms, or slack:d/N,max=D)`,
		"5":                  `5: missing unit (e.g. 5ms) (want none, a duration such as 5ms, or slack:d/N,max=D)`,
		"slack:d*4":          `"slack:d*4": a slack is d/N, e.g. slack:d/4,max=5ms`,
		"slack:d/0":          `"slack:d/0": d/0: N must be a whole number of at least 1`,
		"slack:d/2.5":        `"slack:d/2.5": d/2.5: N must be a whole number of at least 1`,
		"slack:d/4,min=1ms":  `"slack:d/4,min=1ms": after d/4 only max=DURATION may follow`,
		"slack:d/4,max=soon": `"slack:d/4,max=soon": max: soon: not a duration`,
		"slack:d/4,max=0":    `"slack:d/4,max=0": max=0 leaves no slack: write none`,
	} {
		if _, err := ParseOversleep(in); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}

// Each pause rule gives each editor its own pause distribution; the profile
// sets both rules, and its JSON carries its basis.
func TestPauseRulesAndProfiles(t *testing.T) {
	for _, tc := range []struct {
		pause         string
		claude, human Dist
	}{
		{PauseThink, Dist{20 * ms, 80 * ms}, Dist{5 * ms, 40 * ms}},
		{PauseUniform0, Dist{Max: 80 * ms}, Dist{Max: 40 * ms}},
		{"10ms-70ms", Dist{10 * ms, 70 * ms}, Dist{10 * ms, 70 * ms}},
		{"0", Dist{}, Dist{}},
	} {
		e := PublishedEditing().WithRules(tc.pause, Oversleep{})
		claude, human, err := e.Timings()
		if err != nil || claude.Pause != tc.claude || human.Pause != tc.human {
			t.Errorf("pause %s: claude %v, human %v, %v; want %v, %v", tc.pause, claude.Pause, human.Pause, err, tc.claude, tc.human)
		}
	}
	fit := PublishedEditing().WithTiming(TimingPublishedFit)
	if fit.Pause != PauseUniform0 || fit.Oversleep.String() != "slack:d/4,max=5ms" || fit.Check() != nil {
		t.Fatalf("published-fit: %+v, %v", fit, fit.Check())
	}
	b, _ := json.Marshal(fit)
	if want := `"pause":"uniform0","oversleep":"slack:d/4,max=5ms","timing":{"name":"published-fit","basis":"inferred from the published figures, not stated in the write-up"}`; !strings.Contains(string(b), want) {
		t.Errorf("published-fit JSON %s lacks %s", b, want)
	}
	// The default model's JSON holds every key, its profile named too.
	b, _ = json.Marshal(PublishedEditing().WithTiming(TimingDefault))
	if want := `{"edits":100,"claude_think":"20ms-80ms","human_think":"5ms-40ms","pause":"think","oversleep":"none","timing":{"name":"default","basis":"the pause read from the write-up's wall time; no oversleep"}}`; string(b) != want {
		t.Errorf("default JSON %s, want %s", b, want)
	}
}

// timedSession is a Session that records the virtual time of each read and
// write, and answers the writes listed in conflictOn with a version conflict.
type timedSession struct {
	contract.Session
	clock      *Virtual
	log        []string
	writes     int
	conflictOn []int
}

func (s *timedSession) ReadNoteTab(_ context.Context, _, _ string) (contract.TabContent, error) {
	s.log = append(s.log, fmt.Sprintf("%v read", s.clock.Now().Sub(epoch)))
	return contract.TabContent{Version: contract.Version("1")}, nil
}

func (s *timedSession) EditNoteTab(_ context.Context, _ contract.EditRequest) (contract.EditResult, error) {
	s.writes++
	s.log = append(s.log, fmt.Sprintf("%v write", s.clock.Now().Sub(epoch)))
	if slices.Contains(s.conflictOn, s.writes) {
		return contract.EditResult{}, &contract.ConflictError{Current: contract.Version("2")}
	}
	return contract.EditResult{}, nil
}

// On the virtual clock the sleeps are exact, so an editor's timeline is known:
// every pause and think is its draw lengthened by the oversleep, in the order
// pause, think of each edit from the editor's own stream, and a retry after a
// conflict sleeps not at all.
func TestEditorTimelineOnVirtualClock(t *testing.T) {
	over := Oversleep{Div: 4, Max: 5 * ms}
	timing := Timing{Pause: Dist{Max: 80 * ms}, Think: Dist{20 * ms, 80 * ms}, Oversleep: over}
	v := NewVirtual(epoch, 0)
	sess := &timedSession{clock: v, conflictOn: []int{2}}
	e := &editor{name: "claude", conn: sess, clock: v, rand: Stream(7, "claude"), timing: timing, policy: Reapply}
	if err := v.Run(bg, func(ctx context.Context) error {
		return e.run(ctx, noteID, 3, func(i int) edit { return appendLine(noteID, lineName("claude", i)) })
	}); err != nil {
		t.Fatal(err)
	}
	// The same stream, drawn by hand: pause then think, edit by edit.
	r := Stream(7, "claude")
	var want []string
	var at time.Duration
	for i := range 3 {
		pause, think := timing.Pause.Draw(r), timing.Think.Draw(r)
		at += pause + over.Extra(pause)
		want = append(want, fmt.Sprintf("%v read", at))
		at += think + over.Extra(think)
		want = append(want, fmt.Sprintf("%v write", at))
		if i == 1 { // the second write conflicts: re-read and write at once
			want = append(want, fmt.Sprintf("%v read", at), fmt.Sprintf("%v write", at))
		}
	}
	if !slices.Equal(sess.log, want) {
		t.Fatalf("timeline\n%s\nwant\n%s", strings.Join(sess.log, "\n"), strings.Join(want, "\n"))
	}
	// One hand-checked step, so the test does not only agree with itself:
	// a think of 60ms lasts 65ms, one of 16ms lasts 20ms.
	if over.Extra(60*ms) != 5*ms || over.Extra(16*ms) != 4*ms {
		t.Fatal("slack:d/4,max=5ms misread")
	}
	if e.stats.Writes != 4 || e.stats.Conflicts != 1 || e.stats.MaxTries != 2 {
		t.Fatalf("stats %+v", e.stats)
	}
}

// The oversleep draws nothing: under any rule the editor's stream gives the
// same pauses and thinks, so only the sleeps' lengths change.
func TestOversleepDrawsNothing(t *testing.T) {
	timeline := func(o Oversleep) []string {
		v := NewVirtual(epoch, 0)
		sess := &timedSession{clock: v}
		e := &editor{name: "human", conn: sess, clock: v, rand: Stream(3, "human"),
			timing: Timing{Pause: Dist{5 * ms, 40 * ms}, Think: Dist{5 * ms, 40 * ms}, Oversleep: o}, policy: Reapply}
		if err := v.Run(bg, func(ctx context.Context) error {
			return e.run(ctx, noteID, 4, func(i int) edit { return appendLine(noteID, lineName("human", i)) })
		}); err != nil {
			t.Fatal(err)
		}
		return sess.log
	}
	plain, fixed := timeline(Oversleep{}), timeline(Oversleep{Fixed: 3 * ms})
	if len(plain) != 8 || len(fixed) != 8 {
		t.Fatalf("timelines %q and %q", plain, fixed)
	}
	for i := range plain {
		a, _ := time.ParseDuration(strings.Fields(plain[i])[0])
		b, _ := time.ParseDuration(strings.Fields(fixed[i])[0])
		// Event i follows i+1 sleeps (pause, think, pause, …), each 3ms longer.
		if want := time.Duration(i+1) * 3 * ms; b-a != want {
			t.Fatalf("event %d: %v with a fixed 3ms oversleep, %v without; want %v apart", i, b, a, want)
		}
	}
}
