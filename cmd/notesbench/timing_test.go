package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

func TestTimingBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--timing", "published-fit", "--pause", "0"}, "notesbench: --timing: cannot be combined with --pause or --oversleep: a timing model sets both (published-fit: pause uniform0, oversleep slack:d/4,max=5ms)"},
		{[]string{"tabs", "--timing", "default", "--oversleep", "5ms"}, "notesbench: --timing: cannot be combined with --pause or --oversleep"},
		{[]string{"race", "--timing", "macos"}, `notesbench: --timing: unknown timing "macos" (want default or published-fit)`},
		{[]string{"race", "--oversleep", "slack:d/0"}, `notesbench: --oversleep: "slack:d/0": d/0: N must be a whole number of at least 1`},
		{[]string{"tabs", "--oversleep", "lots"}, "notesbench: --oversleep: lots: not a duration (want none, a duration such as 5ms, or slack:d/N,max=D)"},
		{[]string{"race", "--pause", "uniform"}, "notesbench: --pause: uniform: not a duration (want think, uniform0, a duration or a range such as 10ms-70ms)"},
		{[]string{"fast", "--pause", "uniform0"}, "notesbench: --pause: fast has no think time: give a duration or a range, such as 0 or 0-2ms"},
		{[]string{"fast", "--oversleep", "slack:d/4,max=0"}, `notesbench: --oversleep: "slack:d/4,max=0": max=0 leaves no slack: write none`},
	} {
		expectUsageError(t, tc.args, tc.want)
	}
}

// The flags make the configuration: a profile, or rules of one's own; fast's
// "no pause" is left out of its JSON however it is written, so the published
// setup's baseline still applies.
func TestTimingFlagsMakeTheConfig(t *testing.T) {
	t.Parallel()
	raceCfg := func(args ...string) race.Config {
		t.Helper()
		return configured(t, race.Experiment, args...).Config().(race.Config)
	}
	if c := raceCfg("--timing", "published-fit"); c.Timing != sim.TimingPublishedFit || c.Pause != sim.PauseUniform0 || c.Oversleep.String() != "slack:d/4,max=5ms" {
		t.Errorf("--timing published-fit: %+v", c.Editing)
	}
	if c := raceCfg("--pause", "uniform0", "--oversleep", "5ms"); c.Timing != sim.TimingDefault || c.Pause != sim.PauseUniform0 || c.Oversleep.String() != "5ms" {
		t.Errorf("--pause uniform0 --oversleep 5ms: %+v", c.Editing)
	}
	if c := raceCfg("--timing", "default"); c.Editing != raceCfg().Editing || c.Pause != sim.PauseThink || !c.Oversleep.IsZero() {
		t.Errorf("--timing default: %+v, want %+v", c.Editing, raceCfg().Editing)
	}
	for _, pause := range []string{"0", "0ms", "0-0"} {
		if cfg := configured(t, fast.Experiment, "--pause", pause).Config().(fast.Config); cfg.Pause != "" {
			t.Errorf("fast --pause %s: pause %q", pause, cfg.Pause)
		}
	}
}

// published-fit is labelled wherever it shows: the notes under the table, and
// the JSON config.
func TestPublishedFitIsLabelled(t *testing.T) {
	t.Parallel()
	args := []string{"tabs", "--clock", "virtual", "--seeds", "1", "--edits", "5", "--replications", "0", "--timing", "published-fit"}
	code, stdout, stderr := runCLI(t, append(args, "--format", "markdown")...)
	if code != 0 || !strings.Contains(stdout, "timing published-fit: inferred from the published figures, not stated in the write-up") {
		t.Fatalf("exit %d, %s; the notes lack the label:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, append(args, "--format", "json")...)
	var rep struct {
		Config struct {
			Pause     string `json:"pause"`
			Oversleep string `json:"oversleep"`
			Timing    struct {
				Name  string `json:"name"`
				Basis string `json:"basis"`
			} `json:"timing"`
		} `json:"config"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if c := rep.Config; c.Pause != "uniform0" || c.Oversleep != "slack:d/4,max=5ms" || c.Timing.Name != "published-fit" || c.Timing.Basis != sim.PublishedFitBasis {
		t.Errorf("config %+v", c)
	}
}

// Shells complete --timing with its two profiles, each described.
func TestTimingCompletion(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"race", "tabs"} {
		code, stdout, stderr := runCLI(t, "__complete", cmd, "--timing", "")
		if code != 0 || !strings.Contains(stdout, "default\tpause think, no oversleep") || !strings.Contains(stdout, "published-fit\tpause uniform0, oversleep slack:d/4,max=5ms: inferred from the published figures") {
			t.Errorf("%s: exit %d, %q %q", cmd, code, stdout, stderr)
		}
	}
	if _, stdout, _ := runCLI(t, "__complete", "race", "--pause", ""); !strings.Contains(stdout, "uniform0\t") {
		t.Errorf("--pause completes to %q", stdout)
	}
}

// reproduce sets the default timing and published-fit side by side for the
// race engine's experiments: both verdict sets in one table, the ablation of
// the profile's ingredients, the profile's reports apart from the summary,
// and its own summary line. It runs the tabs setup 36 times, which the race
// detector makes cost 15 s: under -race it is left to go test without it.
func TestReproduceShowsBothTimingModels(t *testing.T) {
	testpass.Large(t, "36 runs of the published tabs setup")
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "reproduce", "--only", "tabs", "--replications", "1", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "REPRODUCED.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### False conflicts by version scope\n", "### False conflicts by version scope (timing published-fit)\n",
		"### Verdicts under both timing models: published figures against 1 replications of each",
		"| Row | Figure | Published | default: ours (mean) |", "| published-fit: verdict |",
		"### Ablation of the published-fit timing: which ingredient moves which figure (1 replications each)",
		"| default (pause think, no oversleep) | pause uniform0 alone | oversleep min(d/4, 5ms) alone | both: published-fit |",
		"Under the published-fit timing (inferred from the published figures, not stated in the write-up), ",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("REPRODUCED.md lacks %q", want)
		}
	}
	if !strings.Contains(stdout, "Under the published-fit timing (inferred from the published figures, not stated in the write-up), ") {
		t.Errorf("stdout lacks the published-fit summary:\n%s", stdout)
	}
	var js results.Reproduction
	if b, err := os.ReadFile(filepath.Join(dir, "reproduced.json")); err != nil || json.Unmarshal(b, &js) != nil {
		t.Fatalf("reproduced.json: %v", err)
	}
	tm := js.Timing
	if tm == nil || len(tm.Reports) != 1 || len(tm.Verdicts) != 1 || len(tm.Ablations) != 1 || len(tm.Ablations[0].Models) != 4 {
		t.Fatalf("timing models %+v", tm)
	}
	if len(js.Reports) != 1 || js.Judged != len(js.Reports[0].Verdicts) || tm.DefaultJudged != js.Judged || tm.Judged != len(tm.Reports[0].Verdicts) {
		t.Errorf("the summary counts %d verdicts of %d reports; default %d, profile %d", js.Judged, len(js.Reports), tm.DefaultJudged, tm.Judged)
	}
	if js.Consistent != tm.DefaultConsistent {
		t.Errorf("the default model's verdicts: %d in the summary, %d beside published-fit", js.Consistent, tm.DefaultConsistent)
	}
}
