package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// An experiment is added as the README's "Adding an experiment" says, and
// nothing else changes: this toy is its three files in one — its runs (what
// sim/X.go holds), its row with its accessor table (results/X.go) and its
// descriptor with its table (experiment/X.go) — and the line that lists it.
// The command, its flags, bounds, completion, output formats, --out and the
// baselines come from the descriptor.

// coins is the toy's configuration: flips per seed, counting heads. It
// runs against no target and on no clock, so it records neither.
type coins struct {
	Seeds []uint64 `json:"seeds"`
	Flips int      `json:"flips"`
}

// coinsRun is one seed's run.
type coinsRun struct {
	Seed  uint64 `json:"seed"`
	Heads int    `json:"heads"`
}

// coinsRow is the toy's one row: heads over every seed.
type coinsRow struct {
	Side  string `json:"side"`
	Heads int    `json:"heads"`
	Flips int    `json:"flips"`
}

var coinsFields = results.Fields[coinsRow]{
	Keys:    map[string]func(coinsRow) string{"side": func(r coinsRow) string { return r.Side }},
	Figures: map[string]func(coinsRow) results.Value{"heads": results.Count(func(r coinsRow) int { return r.Heads })},
}

func (r coinsRow) KeyOf(name string) string                   { return coinsFields.Key(r, name) }
func (r coinsRow) FigureOf(name string) (results.Value, bool) { return coinsFields.Figure(r, name) }
func (r coinsRow) Names() (keys, figures []string)            { return coinsFields.Names() }

func (c coins) SeedList() []uint64 { return c.Seeds }
func (c coins) Describe(contract.Target) string {
	return fmt.Sprintf("seeds %s, %d flips each", sim.FormatSeeds(c.Seeds), c.Flips)
}
func (coins) Departures(contract.Target) []string { return nil }

func (c coins) Validate(contract.Target) error {
	if c.Flips < 1 {
		return field.Errorf("flips", "must be at least 1")
	}
	return field.AtMost("flips", c.Flips, 1000, "a toy")
}

func (c coins) Run(_ context.Context, _ sim.Runtime, seeds []uint64) (sim.Result[coinsRow, coinsRun], error) {
	var res sim.Result[coinsRow, coinsRun]
	row := coinsRow{Side: "heads"}
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 0))
		run := coinsRun{Seed: seed}
		for range c.Flips {
			run.Heads += r.IntN(2)
		}
		res.Runs = append(res.Runs, run)
		row.Heads += run.Heads
		row.Flips += c.Flips
	}
	res.Rows = []coinsRow{row}
	return res, nil
}

// coinsExperiment is the toy's descriptor.
var coinsExperiment = experiment.Define(coinsDef())

// coinsDef declares the toy experiment.
func coinsDef() experiment.Def[coins, coinsRow, coinsRun] {
	return experiment.Def[coins, coinsRow, coinsRun]{
		Info: experiment.Info{
			Name: "coins", Short: "Heads in coin flips (a toy)", Long: "coins flips a seeded coin.",
			Examples:     []string{"notesbench coins --flips 100"},
			Replications: experiment.NoReplications, Baseline: true,
		},
		Default: func() coins { return coins{Seeds: []uint64{1, 2}, Flips: 10} },
		Params: func(c *coins) []experiment.Param {
			return []experiment.Param{experiment.Seeds(&c.Seeds), experiment.Int("flips", &c.Flips, "flips per seed").AsPublished()}
		},
		Rule: results.Rule[coinsRow]{Judge: func(*results.Experiment, []coinsRow) []results.Verdict { return nil }},
		Tables: func(rows []coinsRow, _ *results.Experiment) []report.MainTable {
			t := report.Table{Title: "Coins", Header: []string{"Side", "Heads"}}
			for _, r := range rows {
				t.Rows = append(t.Rows, []string{r.Side, report.Of(int64(r.Heads), int64(r.Flips))})
			}
			return report.One(t)
		},
	}
}

// A declaration that cannot work is refused when it is defined: a rule that
// judges its rows alone with replications behind it, one that needs
// replications with none, and timings without an editing loop.
func TestDefineRefusesBadDeclarations(t *testing.T) {
	for name, edit := range map[string]func(d *experiment.Def[coins, coinsRow, coinsRun]){
		"replications for a rule judged without": func(d *experiment.Def[coins, coinsRow, coinsRun]) { d.Replications = 5 },
		"no replications for a replicated rule":  func(d *experiment.Def[coins, coinsRow, coinsRun]) { d.Rule.Judge = nil },
		"timings without an editing loop":        func(d *experiment.Def[coins, coinsRow, coinsRun]) { d.Reproduce.Timings = true },
	} {
		d := coinsDef()
		edit(&d)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: defined", name)
				}
			}()
			experiment.Define(d)
		}()
	}
}

func runToy(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWith(args, strings.NewReader(""), &stdout, &stderr, append(experiments.All(), coinsExperiment))
	return code, stdout.String(), stderr.String()
}

func TestToyExperiment(t *testing.T) {
	code, stdout, stderr := runToy(t, "coins", "--seeds", "1-3", "--flips", "20", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Experiment string         `json:"experiment"`
		Config     map[string]any `json:"config"`
		Rows       []coinsRow     `json:"rows"`
		Runs       []coinsRun     `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Experiment != "coins" || rep.Config["flips"] != 20.0 || len(rep.Runs) != 3 || rep.Rows[0].Flips != 60 {
		t.Fatalf("result %+v", rep)
	}
	code, stdout, _ = runToy(t, "coins", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "| heads | ") || !strings.Contains(stdout, "ours: seeds 1-2, 10 flips each") {
		t.Errorf("markdown:\n%s", stdout)
	}
	code, stdout, _ = runToy(t, "coins", "--flips", "5", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "flips 5 (published 10)") {
		t.Errorf("a parameter of its own is not named as one:\n%s", stdout)
	}

	// Its bounds and bad values are one line naming the flag.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"coins", "--flips", "0"}, "notesbench: --flips: must be at least 1\n"},
		{[]string{"coins", "--flips", "5000"}, "notesbench: --flips: must be at most 1,000 (a toy)\n"},
		{[]string{"coins", "--flips", "x"}, "notesbench: --flips: \"x\" is not a whole number\n"},
		{[]string{"coins", "--seeds", "3-1"}, "notesbench: --seeds: range 3-1 is empty\n"},
	} {
		if code, _, stderr := runToy(t, tc.args...); code != 2 || stderr != tc.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, stderr, tc.want)
		}
	}

	// Its result is a baseline like any other.
	base := filepath.Join(t.TempDir(), "coins.json")
	if code, _, stderr := runToy(t, "coins", "--update-baseline", base); code != 0 {
		t.Fatalf("update-baseline: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runToy(t, "coins", "--baseline", base); code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runToy(t, "coins", "--flips", "11", "--baseline", base); code != 2 || !strings.Contains(stderr, "recorded with other parameters: flips 10 vs 11") {
		t.Errorf("other parameters: exit %d, %s", code, stderr)
	}

	// The help lists it beside the registered ones, and reproduce offers it.
	code, stdout, _ = runToy(t, "--help")
	if code != 0 || !regexp.MustCompile(`(?m)^  coins +Heads in coin flips \(a toy\)$`).MatchString(stdout) || !strings.Contains(stdout, "  race ") {
		t.Errorf("help:\n%s", stdout)
	}
	code, stdout, _ = runToy(t, "__complete", "reproduce", "--only", "")
	if code != 0 || !strings.Contains(stdout, "coins\n") || !strings.Contains(stdout, "bench\n") {
		t.Errorf("reproduce --only completion: %s", stdout)
	}

	// Its flags complete from its parameters.
	code, stdout, _ = runToy(t, "__complete", "coins", "--")
	if code != 0 || !strings.Contains(stdout, "--flips") || !strings.Contains(stdout, "--update-baseline") {
		t.Errorf("completion: %s", stdout)
	}
}

// --note names a Note on a server: every command that takes it refuses it
// without one; refs, create and sources once ignored it.
func TestNoteWithoutTargetIsRefused(t *testing.T) {
	for _, name := range []string{"race", "refs", "create", "sources", "bench"} {
		expectUsageError(t, []string{name, "--note", "foo"}, "notesbench: --note: names a Note on a server: give --target too")
	}
}

// Two flags naming one file to write are refused before anything runs: the
// result would overwrite the history.
func TestTwoOutputsOneFile(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.jsonl")
	for _, args := range [][]string{
		{"race", "--clock", "virtual", "--seeds", "1", "--history", h, "--out", h},
		{"race", "--clock", "virtual", "--seeds", "1", "--out", h, "--update-baseline", dir + "/./h.jsonl"},
		{"create", "--history", dir + "/sub/../h.jsonl", "--update-baseline", h},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "names the same file as") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused runs left %v", entries)
	}
}

// reproduce --out takes a folder written with a trailing slash, as the
// README writes it, and creates it.
func TestReproduceOutWithTrailingSlash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-reproduction") + "/"
	code, _, stderr := runCLI(t, "reproduce", "--only", "validate", "--replications", "1", "--format", "markdown", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "REPRODUCED.md")); err != nil {
		t.Error(err)
	}
}

// Misuse is exit 2 everywhere, with no replay line: a stray argument, an
// unknown shell to complete.
func TestMisuseExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "--target", "embedded", "extra"},
		{"serve", "extra"},
		{"crash", "extra"},
		{"completion", "bogus"},
		{"race", "extra"},
	} {
		expectUsageError(t, args, "notesbench: unknown command")
	}
}

// A bad value of any flag is named in notesbench's words, never Go's.
func TestFlagValuesInOwnWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crash", "--kills", "1e9"}, `notesbench: --kills: "1e9" is not a whole number`},
		{[]string{"check", "--timeout", "soon", "x"}, `notesbench: --timeout: "soon" is not a duration (such as 4s or 60µs)`},
		{[]string{"race", "--edits", "1e9"}, `notesbench: --edits: "1e9" is not a whole number`},
		{[]string{"create", "--drop", "half"}, `notesbench: --drop: "half" is not a number`},
		{[]string{"outline", "--window", "4"}, `notesbench: --window: "4" is not a duration (such as 4s or 60µs)`},
		{[]string{"sources", "--turns", "1000"}, "notesbench: citations: 300 sessions × 1000 turns × 6 cites are more than 100000 citations per seed"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want) || strings.Contains(stderr, "strconv") || strings.Contains(stderr, "Go struct") {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Values with no sensible use are bounds like any other: a drop that resends
// for ever, a pause of days.
func TestRunawaysAreBounded(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--drop", "0.999999"}, "notesbench: --drop: must be at most 0.99"},
		{[]string{"sources", "--drop", "0.995"}, "notesbench: --drop: must be at most 0.99"},
		{[]string{"race", "--pause", "99999h"}, "notesbench: --pause: must be at most 1m0s"},
		{[]string{"race", "--claude-think", "1h"}, "notesbench: --claude-think: must be at most 1m0s"},
		{[]string{"tabs", "--oversleep", "2m"}, "notesbench: --oversleep: must be at most 1m0s"},
		{[]string{"fast", "--pause", "0-2h"}, "notesbench: --pause: must be at most 1m0s"},
	} {
		expectUsageError(t, tc.args, tc.want)
	}
}

// A --start-at passed is refused before anything runs.
func TestStartAtPassed(t *testing.T) {
	expectUsageError(t, []string{"race", "--clock", "virtual", "--start-at", "2001-01-01T00:00:00Z"}, "notesbench: --start-at: 2001-01-01T00:00:00Z has passed")
}
