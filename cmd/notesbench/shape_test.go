package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiments"
)

// An interrupted reproduction returns the interruption; it used to read the
// first table of a bench step that had failed and panic.
func TestReproduceInterruptedReturnsTheError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, only := range []string{"bench", "race", "refs"} {
		o := &reproduceOptions{app: &app{stdout: new(strings.Builder), stderr: new(strings.Builder)}, experiments: experiments.All(), format: formatFlag{"", tablesOrJSON}, clock: "virtual",
			replications: 1, only: only}
		if err := runReproduce(ctx, o); !errors.Is(err, context.Canceled) {
			t.Errorf("--only %s: %v, want the interruption", only, err)
		}
	}
}

// How runs execute never fails a baseline: parallelism, in-memory databases and
// where the files go change no count.
func TestBaselineIgnoresRunSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	race := []string{"race", "--clock", "virtual", "--replications", "0", "--seeds", "1-2", "--edits", "8"}
	refs := []string{"refs", "--trials", "60"}
	raceBase, refsBase := filepath.Join(dir, "race.json"), filepath.Join(dir, "refs.json")
	for _, args := range [][]string{
		append(race, "--update-baseline", raceBase),
		append(refs, "--parallel", "1", "--update-baseline", refsBase),
		append(race, "--parallel", "2", "--baseline", raceBase),
		append(race, "--memory", "--baseline", raceBase),
		append(race, "--db", t.TempDir(), "--synchronous", "full", "--baseline", raceBase),
		append(refs, "--parallel", "3", "--baseline", refsBase),
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// A baseline recorded with other parameters cannot be compared: one line
// saying which, exit 2, instead of a diff of every shifted figure; seeds are
// written as --seeds takes them (200 seeds were some 800 characters).
func TestBaselineRecordedWithOtherParameters(t *testing.T) {
	t.Parallel()
	race := filepath.Join("..", "..", "results", "baselines", "race.json")
	expectUsageError(t, []string{"race", "--clock", "virtual", "--replications", "0", "--seeds", "1-4", "--edits", "10", "--baseline", race},
		"notesbench: --baseline: "+race+" was recorded with other parameters: edits 100 vs 10; seeds 1-5 vs 1-4")
	expectUsageError(t, []string{"race", "--clock", "virtual", "--replications", "0", "--seeds", "1-200,300", "--baseline", race},
		"notesbench: --baseline: "+race+" was recorded with other parameters: seeds 1-5 vs 1-200,300")
}

// Table B alone carries table B's notes, not table A's.
func TestCreateTableBAloneHasItsOwnNotes(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "create", "--table", "b", "--replications", "0", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "table A") || strings.Contains(stdout, "osfoundry-version-check.en.txt") {
		t.Errorf("table B shows table A's notes:\n%s", stdout)
	}
	if !strings.Contains(stdout, "osfoundry-tab-ids-and-keys.it.txt") {
		t.Errorf("table B lacks its own source:\n%s", stdout)
	}
}
