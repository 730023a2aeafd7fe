package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The pause rules other than a fixed distribution. Editing.Pause holds one of
// them or a distribution as ParseDist reads it ("0", "10ms-70ms").
const (
	// PauseThink draws each editor's pause from its own think distribution:
	// the default, read from the write-up's wall time.
	PauseThink = "think"
	// PauseUniform0 draws each editor's pause from U(0, its think maximum).
	PauseUniform0 = "uniform0"
)

// pauseDist returns the pause distribution of an editor whose think
// distribution is think, under pause rule rule.
func pauseDist(rule string, think Dist) (Dist, error) {
	switch rule {
	case PauseThink:
		return think, nil
	case PauseUniform0:
		return Dist{Max: think.Max}, nil
	}
	d, err := ParseDist(rule)
	if err != nil {
		return Dist{}, fmt.Errorf("%w (want think, uniform0, a duration or a range such as 10ms-70ms)", err)
	}
	return d, nil
}

// Oversleep is how much longer than asked each sleep of the editing loop (its
// pause and its think time) lasts: nothing (the zero Oversleep), a fixed
// extra, or a slack proportional to the sleep, d/Div, capped at Max.
//
// A sleep of zero — no pause, no think time — is no sleep and is never
// lengthened. On the virtual clock the lengthened sleep is exact; on the real
// clock it is what the editor asks the operating system for, which adds its
// own timer slack on top. No rule draws anything random.
type Oversleep struct {
	// Fixed is added to every sleep, when Div is 0.
	Fixed time.Duration
	// Div, when above 0, makes the extra d/Div for a sleep of d.
	Div int64
	// Max caps the slack d/Div; 0 means no cap.
	Max time.Duration
}

// ParseOversleep parses an oversleep rule: "none" (or "0"), a fixed duration
// added to every sleep ("5ms"), or a slack proportional to the sleep,
// "slack:d/N" with N a whole number of at least 1, optionally capped:
// "slack:d/4,max=5ms". Error texts do not name the flag, which the caller adds.
func ParseOversleep(s string) (Oversleep, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "none":
		return Oversleep{}, nil
	case "":
		return Oversleep{}, errors.New("no rule given (want none, a duration such as 5ms, or slack:d/N,max=D)")
	}
	rule, ok := strings.CutPrefix(s, "slack:")
	if !ok {
		d, err := parseNonNegative(s)
		if err != nil {
			return Oversleep{}, fmt.Errorf("%w (want none, a duration such as 5ms, or slack:d/N,max=D)", err)
		}
		return Oversleep{Fixed: d}, nil
	}
	frac, capText, hasCap := strings.Cut(rule, ",")
	divText, ok := strings.CutPrefix(strings.TrimSpace(frac), "d/")
	if !ok {
		return Oversleep{}, fmt.Errorf("%q: a slack is d/N, e.g. slack:d/4,max=5ms", s)
	}
	div, err := strconv.ParseInt(divText, 10, 64)
	if err != nil || div < 1 {
		return Oversleep{}, fmt.Errorf("%q: d/%s: N must be a whole number of at least 1", s, divText)
	}
	o := Oversleep{Div: div}
	if hasCap {
		maxText, ok := strings.CutPrefix(strings.TrimSpace(capText), "max=")
		if !ok {
			return Oversleep{}, fmt.Errorf("%q: after d/%d only max=DURATION may follow", s, div)
		}
		if o.Max, err = parseNonNegative(maxText); err != nil {
			return Oversleep{}, fmt.Errorf("%q: max: %w", s, err)
		}
		if o.Max == 0 {
			return Oversleep{}, fmt.Errorf("%q: max=0 leaves no slack: write none", s)
		}
	}
	return o, nil
}

// Extra returns how much longer than d a sleep of d lasts: 0 for d ≤ 0,
// Fixed, or min(d/Div, Max).
func (o Oversleep) Extra(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return 0
	case o.Div > 0 && o.Max > 0:
		return min(d/time.Duration(o.Div), o.Max)
	case o.Div > 0:
		return d / time.Duration(o.Div)
	}
	return o.Fixed
}

// IsZero reports whether o lengthens nothing.
func (o Oversleep) IsZero() bool { return o.Extra(time.Hour) == 0 }

// String returns o as ParseOversleep reads it: "none", "5ms" or
// "slack:d/4,max=5ms".
func (o Oversleep) String() string { return o.spell("none", "slack:d/%d", "slack:d/%d,max=%s") }

// Formula says in words what a sleep of d lasts in extra: "min(d/4, 5ms)",
// "d/8", "5ms", or "nothing".
func (o Oversleep) Formula() string { return o.spell("nothing", "d/%d", "min(d/%d, %s)") }

// spell writes o in one of its spellings: none for the zero rule, a fixed
// extra as its duration, a slack with the format slack (of Div) or, capped,
// capped (of Div and Max).
func (o Oversleep) spell(none, slack, capped string) string {
	switch {
	case o.IsZero():
		return none
	case o.Div > 0 && o.Max > 0:
		return fmt.Sprintf(capped, o.Div, o.Max)
	case o.Div > 0:
		return fmt.Sprintf(slack, o.Div)
	}
	return o.Fixed.String()
}

// MarshalText writes the rule as ParseOversleep reads it.
func (o Oversleep) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads a rule written by MarshalText.
func (o *Oversleep) UnmarshalText(b []byte) error {
	v, err := ParseOversleep(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// TimingModel names a timing model of the editing loop: a pause rule and an
// oversleep rule chosen together. The zero TimingModel is the default, the model
// the write-up's words support: each editor pauses for a draw from its own
// think range and sleeps exactly as long as it asks.
type TimingModel string

// The timing profiles.
const (
	// TimingDefault is the model read from the write-up: pause think, no
	// oversleep.
	TimingDefault TimingModel = ""
	// TimingPublishedFit is pause uniform0 with every sleep lengthened by
	// min(d/4, 5 ms): inferred from the published figures, not stated in the
	// write-up.
	TimingPublishedFit TimingModel = "published-fit"
)

// PublishedFitBasis is the label every output of the published-fit profile
// carries.
const PublishedFitBasis = "inferred from the published figures, not stated in the write-up"

// defaultBasis labels the default profile where both are shown.
const defaultBasis = "the pause read from the write-up's wall time; no oversleep"

// TimingModels lists every profile's flag name with a one-line description, in
// the order a completion offers them.
func TimingModels() [][2]string {
	return [][2]string{
		{"default", "pause think, no oversleep: " + defaultBasis},
		{string(TimingPublishedFit), "pause uniform0, oversleep slack:d/4,max=5ms: " + PublishedFitBasis},
	}
}

// ParseTimingModel parses a profile name: default or published-fit.
func ParseTimingModel(s string) (TimingModel, error) {
	switch s {
	case "default":
		return TimingDefault, nil
	case string(TimingPublishedFit):
		return TimingPublishedFit, nil
	}
	return "", fmt.Errorf("unknown timing %q (want default or published-fit)", s)
}

// Name returns the profile's flag name: "default" or "published-fit".
func (p TimingModel) Name() string {
	if p == TimingDefault {
		return "default"
	}
	return string(p)
}

// Basis says where the profile comes from.
func (p TimingModel) Basis() string {
	if p == TimingPublishedFit {
		return PublishedFitBasis
	}
	return defaultBasis
}

// Rules returns the profile's pause and oversleep rules.
func (p TimingModel) Rules() (pause string, over Oversleep, err error) {
	switch p {
	case TimingDefault:
		return PauseThink, Oversleep{}, nil
	case TimingPublishedFit:
		return PauseUniform0, Oversleep{Div: 4, Max: 5 * time.Millisecond}, nil
	}
	return "", Oversleep{}, fmt.Errorf("unknown timing %q (want default or published-fit)", string(p))
}

// MarshalJSON writes a profile other than the default with its basis:
// {"name": "published-fit", "basis": "inferred from the published figures, …"}.
// (The default is left out of a configuration: its JSON stays as it was
// before profiles existed.)
func (p TimingModel) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name  string `json:"name"`
		Basis string `json:"basis"`
	}{p.Name(), p.Basis()})
}

// UnmarshalJSON reads a profile written by MarshalJSON, by its name.
func (p *TimingModel) UnmarshalJSON(b []byte) error {
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	q, err := ParseTimingModel(v.Name)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// WithTiming returns the editing loop under profile p: its pause and
// oversleep rules set, and p recorded.
func (e Editing) WithTiming(p TimingModel) Editing {
	pause, over, err := p.Rules()
	if err != nil {
		e.Timing = p // Validate reports it
		return e
	}
	e.Timing, e.Pause, e.Oversleep = p, pause, over
	return e
}

// WithRules returns the editing loop with a pause rule and an oversleep rule
// of its own, outside any profile.
func (e Editing) WithRules(pause string, over Oversleep) Editing {
	e.Timing, e.Pause, e.Oversleep = TimingDefault, pause, over
	return e
}

// checkTiming reports a configuration whose rules are not its profile's.
func (e Editing) checkTiming() error {
	pause, over, err := e.Timing.Rules()
	if err != nil {
		return fieldErr("timing", "%v", err)
	}
	if e.Timing != TimingDefault && (e.Pause != pause || e.Oversleep != over) {
		return fieldErr("timing", "%s sets pause %s and oversleep %s; this configuration has pause %s, oversleep %s",
			e.Timing.Name(), pause, over, e.Pause, e.Oversleep)
	}
	return nil
}
