package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/sim"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/spf13/pflag"
)

// widest returns the display width of the widest line of s.
func widest(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, twwidth.Width(line))
	}
	return w
}

// smallRuns are a small run of every experiment command, its name first: the
// tests of what every command prints run each of them.
var smallRuns = [][]string{
	{"race", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--replications", "0"},
	{"tabs", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--replications", "0"},
	{"fast", "--clock", "virtual", "--seeds", "1", "--edits", "20", "--replications", "0"},
	{"create", "--seeds", "1", "--tabs", "3", "--replications", "0"},
	{"sources", "--sessions", "2", "--replications", "0"},
	{"refs", "--trials", "20"},
	{"outline", "--slides", "2", "--decks", "10", "--replications", "0"},
	{"validate"},
	{"bench", "--writes", "5", "--reps", "2", "--warmup", "0", "--guards", "none,note"},
}

// The table format fits the terminal: $COLUMNS when set, 80 when the width
// is unknown (stdout is not a terminal here).
func TestTableFitsTheTerminal(t *testing.T) {
	args := []string{"race", "--clock", "virtual", "--seeds", "1", "--edits", "6", "--replications", "0", "--format", "table"}
	for _, tc := range []struct {
		columns string
		width   int
	}{{"80", 80}, {"120", 120}, {"", 80}, {"wide", 80}} {
		t.Setenv("COLUMNS", tc.columns)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if w := widest(stdout); w > tc.width {
			t.Errorf("COLUMNS=%q: a line is %d wide, want at most %d:\n%s", tc.columns, w, tc.width, stdout)
		}
	}

	// Every command's tables fit 80 columns, published columns and verdicts
	// included (validate and refs show them at these parameters).
	t.Setenv("COLUMNS", "80")
	for _, args := range smallRuns {
		code, stdout, stderr := runCLI(t, append(args, "--format", "table")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if w := widest(stdout); w > 80 {
			t.Errorf("%v: a line is %d wide, want at most 80:\n%s", args, w, stdout)
		}
	}
}

// Inputs that used to run for ever, ignore Ctrl-C or exhaust memory are bad
// usage: one line naming the flag, exit 2, before anything runs.
func TestBoundsRefuseRunaways(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"outline", "--saves-per-minute", "1e308", "--replications", "0"}, "notesbench: --saves-per-minute: must be at most 600"},
		{[]string{"outline", "--saves-per-minute", "1e6"}, "notesbench: --saves-per-minute: must be at most 600"},
		{[]string{"outline", "--decks", "1000000", "--slides", "1000"}, "notesbench: --decks: 1000000 decks of 1051 writes"},
		{[]string{"outline", "--window", "2h"}, "notesbench: --window: must be at most 1h0m0s"},
		{[]string{"sources", "--sessions", "1000000000"}, "notesbench: --sessions: must be at most 100,000"},
		{[]string{"sources", "--sessions", "10000000"}, "notesbench: --sessions: must be at most 100,000"},
		{[]string{"sources", "--sessions", "20000", "--turns", "3", "--cites", "6"}, "notesbench: citations: 20000 sessions × 3 turns × 6 cites are more than 100000 citations per seed"},
		{[]string{"sources", "--pages", "5000"}, "notesbench: --pages: must be at most 1,000"},
		{[]string{"create", "--tabs", "1000000000"}, "notesbench: --tabs: must be at most 1,000"},
		{[]string{"refs", "--trials", "10000000"}, "notesbench: --trials: must be at most 100,000"},
		{[]string{"race", "--edits", "1000000"}, "notesbench: --edits: must be at most 10,000"},
		{[]string{"fast", "--edits", "1000000"}, "notesbench: --edits: must be at most 10,000"},
		{[]string{"race", "--replications", "1000000"}, "notesbench: --replications: must be at most 10,000"},
		{[]string{"race", "--parallel", "100000"}, "notesbench: --parallel: must be at most 256"},
		{[]string{"bench", "--writes", "1000000000"}, "notesbench: --writes: must be at most 1,000,000"},
		{[]string{"bench", "--text-size", "1000000000"}, "notesbench: --text-size: must be at most 1,048,576"},
		{[]string{"bench", "--writers", "1,100000"}, "notesbench: --writers: 100000 is more than 64"},
		{[]string{"reproduce", "--replications", "1000000"}, "notesbench: --replications: must be at most 10,000"},
		{[]string{"crash", "--kills", "1000000"}, "notesbench: --kills: must be at most 10,000"},
		{[]string{"refs", "--edits-max", "1000000"}, "notesbench: --edits-max: must be at most 100"},
		{[]string{"fast", "--clock", "virtual", "--service-time", "1000h"}, "notesbench: --service-time: must be at most 1s"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
}

// refusedBeforeRunning runs notesbench with args on a context already
// cancelled, and returns the error the command ended with: bad input is
// refused before anything runs, so it is the usage error; a command that
// starts its runs instead ends in the cancellation (or in nothing), at once.
func refusedBeforeRunning(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, args: args, width: 80, scratch: scratchFolder(t)}
	root := newRootCmdWith(a, experiments.All())
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// --parallel has one bound, sim.MaxParallel, and every command that takes
// it refuses a value beyond it, or below 0, before anything runs: audit ran
// for 15 s and create to the end with --parallel 9223372036854775807. The
// commands are found in the command tree, so that a new one is held too.
func TestParallelIsBoundedEverywhere(t *testing.T) {
	var names []string
	for name, cmd := range helpCommands(t) {
		if cmd.Flags().Lookup("parallel") == nil {
			continue
		}
		names = append(names, name)
		for _, tc := range []struct{ value, want string }{
			{"9223372036854775807", "--parallel: must be at most 256 (each run at once holds its own databases and editors)"},
			{strconv.Itoa(sim.MaxParallel + 1), "--parallel: must be at most 256 (each run at once holds its own databases and editors)"},
			{"-1", "--parallel: must be 0 or more"},
		} {
			err := refusedBeforeRunning(t, append(strings.Fields(name), "--parallel", tc.value)...)
			if err == nil || cli.ExitCode(err) != 2 || err.Error() != tc.want {
				t.Errorf("%s --parallel %s: %v (exit %d), want %q, exit 2", name, tc.value, err, cli.ExitCode(err), tc.want)
			}
		}
	}
	slices.Sort(names)
	for _, want := range []string{"audit", "create", "race", "refs", "sources"} {
		if !slices.Contains(names, want) {
			t.Errorf("commands with --parallel: %q, without %s", names, want)
		}
	}
}

// A flag of text given empty is refused, one line naming it, exit 2,
// before anything runs and with nothing written: an empty --target (a CI
// job's variable that was never set) audited the embedded store and passed,
// --nemesis "" ran without faults and serve --person "" without a person.
// Only a flag whose declaration says what its empty value means takes one.
func TestEmptyTextFlagsAreRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--target", "", "--out", filepath.Join(dir, "audit")}, "notesbench: --target: empty: give a value, or leave the flag out (default embedded)\n"},
		{[]string{"race", "--target", "", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--out", out}, "notesbench: --target: empty: give a value, or leave the flag out (default embedded)\n"},
		{[]string{"conform", "--target", ""}, "notesbench: --target: empty: give a value, or leave the flag out\n"},
		{[]string{"race", "--target", "stdio:nosuch", "--profile", ""}, "notesbench: --profile: empty: give a value, or leave the flag out\n"},
		{[]string{"conform", "--target", "stdio:nosuch", "--profile="}, "notesbench: --profile: empty: give a value, or leave the flag out\n"},
		{[]string{"race", "--store", "", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--out", out}, "notesbench: --store: empty: give a value, or leave the flag out (default sqlite)\n"},
		{[]string{"create", "--target", "http://127.0.0.1:{port}/mcp", "--spawn", ""}, "notesbench: --spawn: empty: give a value, or leave the flag out\n"},
		{[]string{"race", "--history", "", "--clock", "virtual", "--seeds", "1", "--edits", "3", "--out", out}, "notesbench: --history: empty: give a value, or leave the flag out\n"},
		{[]string{"race", "--out", "", "--clock", "virtual", "--seeds", "1", "--edits", "3"}, "notesbench: --out: empty: give a value, or leave the flag out\n"},
		{[]string{"race", "--target", "stdio:nosuch", "--nemesis", "", "--out", out}, "notesbench: --nemesis: empty: give a value, or leave the flag out\n"},
		{[]string{"sources", "--target", "stdio:nosuch", "--nemesis="}, "notesbench: --nemesis: empty: give a value, or leave the flag out\n"},
		{[]string{"serve", "--memory", "--person", ""}, "notesbench: --person: empty: give a value, or leave the flag out\n"},
		{[]string{"serve", "--memory", "--allow-host", ""}, "notesbench: --allow-host: empty: give a value, or leave the flag out\n"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != 2 || stdout != "" || stderr != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused runs wrote %v", entries)
	}

	// Every flag of text of every command, but those whose empty value
	// means something.
	refused := 0
	for name, cmd := range helpCommands(t) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if _, list := f.Value.(pflag.SliceValue); !list && f.Value.Type() != "string" && f.Value.Type() != "strings" {
				return
			}
			args := append(strings.Fields(name), "--"+f.Name+"=")
			if cli.EmptyMeaning(f) != "" {
				// Taken, so not run here (serve would serve): the check
				// alone lets it through.
				if err := cmd.ParseFlags(args[len(args)-1:]); err != nil || cli.RefuseEmpty(cmd) != nil {
					t.Errorf("%q: refused, though an empty --%s means %s", args, f.Name, cli.EmptyMeaning(f))
				}
				return
			}
			if cmd.Args != nil && cmd.Args(cmd, nil) != nil {
				args = append(args, "placeholder") // a command that needs an argument (check, merge)
			}
			err := refusedBeforeRunning(t, args...)
			refused++
			if err == nil || cli.ExitCode(err) != 2 || !strings.HasPrefix(err.Error(), "--"+f.Name+": empty: give a value, or leave the flag out") {
				t.Errorf("%q: %v (exit %d), want --%s refused as empty, exit 2", args, err, cli.ExitCode(err), f.Name)
			}
		})
	}
	if refused < 100 {
		t.Errorf("only %d flags of text refused an empty value", refused)
	}
}

// reproduce --out protects what it did not write: a REPRODUCED.md of someone
// else's, a folder of Go source (it wrote 136 files into the package report/),
// plots beside no reproduction; and --only must name something.
func TestReproduceProtectsItsFolder(t *testing.T) {
	dir := t.TempDir()
	mdDir := filepath.Join(dir, "notes")
	os.Mkdir(mdDir, 0o755)
	md := filepath.Join(mdDir, "REPRODUCED.md")
	os.WriteFile(md, []byte("# my own notes\n"), 0o644)
	goDir := filepath.Join(dir, "pkg")
	os.Mkdir(goDir, 0o755)
	os.WriteFile(filepath.Join(goDir, "doc.go"), []byte("package pkg\n"), 0o644)
	plotsDir := filepath.Join(dir, "pics")
	os.MkdirAll(filepath.Join(plotsDir, "plots"), 0o755)
	os.WriteFile(filepath.Join(plotsDir, "plots", "race-none-lost.svg"), []byte("<svg/>"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "--only", "validate", "--out", mdDir}, "notesbench: --out: " + md + " exists and was not written by notesbench reproduce"},
		{[]string{"reproduce", "--only", "validate", "--out", goDir}, "notesbench: --out: " + goDir + " holds Go source (doc.go)"},
		{[]string{"reproduce", "--only", "validate", "--out", filepath.Join("..", "..", "report")}, "notesbench: --out: " + filepath.Join("..", "..", "report") + " holds Go source"},
		{[]string{"reproduce", "--only", "validate", "--out", plotsDir}, "notesbench: --out: " + filepath.Join(plotsDir, "plots") + " holds files"},
		{[]string{"reproduce", "--only", ""}, "notesbench: --only: empty: give a value, or leave the flag out"},
		{[]string{"reproduce", "--only", " "}, "notesbench: --only: no experiments named"},
		{[]string{"reproduce", "--only", "race,,tabs"}, "notesbench: --only: an empty name in the list"},
		{[]string{"reproduce", "--only", "race,race"}, "notesbench: --only: race is listed twice"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
	if b, _ := os.ReadFile(md); string(b) != "# my own notes\n" {
		t.Error("reproduce overwrote a REPRODUCED.md of someone else's")
	}

	// The committed reproduction's folder takes the next one (make
	// reproduce), and a package never does.
	for _, tc := range []struct {
		dir string
		ok  bool
	}{{"reproduction", true}, {"results", false}} {
		again := &reproduceOptions{app: &app{stdout: io.Discard, stderr: io.Discard}, experiments: experiments.All(), format: formatFlag{"", tablesOrJSON}, clock: "virtual", replications: 1,
			out: filepath.Join("..", "..", tc.dir), only: "validate", onlySet: true}
		if _, _, err := again.plan(); (err == nil) != tc.ok {
			t.Errorf("%s/: %v", tc.dir, err)
		}
	}
}

// Counts of one take the singular in what cmd prints: one violation, one
// figure that differs from a baseline.
func TestPlurals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"note_id":"n","expected_version":"3","tab_type":"sheet"}`), 0o644)
	if code, _, stderr := runCLI(t, "validate", "create_note_tab", bad); code != 1 || !strings.Contains(stderr, "payload is invalid: 1 violation\n") {
		t.Errorf("one violation: exit %d, stderr %q", code, stderr)
	}

	base := filepath.Join(dir, "race.json")
	args := []string{"race", "--clock", "virtual", "--seeds", "1", "--edits", "5", "--modes", "none", "--replications", "0"}
	if code, _, stderr := runCLI(t, append(args, "--update-baseline", base)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(base)
	os.WriteFile(base, []byte(strings.Replace(string(b), `"max_tries": 1`, `"max_tries": 7`, 1)), 0o644)
	if code, _, stderr := runCLI(t, append(args, "--baseline", base)...); code != 1 || !strings.Contains(stderr, "regression: 1 figure differs from") {
		t.Errorf("one changed figure: exit %d, stderr %q", code, stderr)
	}
}

// --format json has every key the README promises for every experiment,
// verdicts, replications and warnings included when there are none (empty,
// not absent), and bench's differences; so does every report of a
// reproduction.
func TestJSONKeysAlwaysPresent(t *testing.T) {
	keys := []string{"experiment", "config", "rows", "runs", "published", "verdicts", "replications", "warnings", "notesbench_version"}
	check := func(t *testing.T, what string, rep map[string]json.RawMessage, extra ...string) {
		t.Helper()
		for _, k := range append(keys, extra...) {
			v, ok := rep[k]
			if !ok {
				t.Errorf("%s: no %q", what, k)
				continue
			}
			switch k {
			case "rows", "runs", "published", "verdicts", "warnings", "differences":
				if !strings.HasPrefix(string(v), "[") {
					t.Errorf("%s: %q is %s, want an array", what, k, v)
				}
			case "replications":
				if _, err := strconv.Atoi(string(v)); err != nil {
					t.Errorf("%s: %q is %s, want a number", what, k, v)
				}
			}
		}
	}
	for _, args := range smallRuns {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(args, "--format", "json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep map[string]json.RawMessage
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			var extra []string
			if args[0] == "bench" {
				extra = append(extra, "differences")
			}
			check(t, args[0], rep, extra...)
		})
	}
	t.Run("reproduce", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "reproduce", "--only", "validate,outline", "--replications", "1", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var all struct {
			Reports []map[string]json.RawMessage `json:"reports"`
		}
		if err := json.Unmarshal([]byte(stdout), &all); err != nil || len(all.Reports) != 2 {
			t.Fatalf("%d reports: %v", len(all.Reports), err)
		}
		for _, rep := range all.Reports {
			check(t, "reproduce "+string(rep["experiment"]), rep)
		}
	})
}

// --format csv is tidy for every experiment: one header, records as wide as
// it, the experiment in the table column, plain numbers where the figures
// are numbers (it used to print "279 of 1,000 (28 %)" and tables of several
// widths in one file).
func TestCSVReadsBackForEveryExperiment(t *testing.T) {
	for _, args := range smallRuns {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(args, "--format", "csv")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			header := []string{"table", "row", "figure", "seed", "ours", "published", "published_low", "published_high", "verdict"}
			if len(recs) < 2 || !slices.Equal(recs[0], header) {
				t.Fatalf("records %q", recs)
			}
			tables := map[string]bool{}
			for _, r := range recs[1:] {
				tables[r[0]] = true
				if r[0] == "validate" {
					continue
				}
				for _, f := range []string{r[4], r[6], r[7]} {
					if _, err := strconv.ParseFloat(f, 64); f != "" && err != nil {
						t.Errorf("not a plain number: %q in %q", f, r)
					}
				}
			}
			if !tables[args[0]] {
				t.Errorf("no record of table %s: %v", args[0], tables)
			}
		})
	}
}

// Shell completion suggests the values of every enum flag, and for a list the
// values not listed yet after what is typed.
func TestCompletionOfEnumFlags(t *testing.T) {
	complete := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			if !strings.HasPrefix(l, ":") {
				out = append(out, l)
			}
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"race", "--clock", ""}, []string{"real", "virtual"}},
		{[]string{"tabs", "--clock", ""}, []string{"real", "virtual"}},
		{[]string{"fast", "--clock", ""}, []string{"real", "virtual"}},
		{[]string{"reproduce", "--clock", ""}, []string{"real", "virtual"}},
		{[]string{"race", "--format", ""}, []string{"table", "markdown", "csv", "json"}},
		{[]string{"validate", "--format", ""}, []string{"table", "markdown", "csv", "json"}},
		{[]string{"bench", "--format", ""}, []string{"table", "markdown", "csv", "json", "gobench"}},
		{[]string{"reproduce", "--format", ""}, []string{"table", "markdown", "json"}},
		{[]string{"conform", "--format", ""}, []string{"table", "markdown", "json"}},
		{[]string{"bench", "--guards", ""}, []string{"none", "note", "tab"}},
		{[]string{"bench", "--guards", "note,"}, []string{"note,none", "note,tab"}},
		{[]string{"race", "--modes", ""}, []string{"none", "note/reapply", "note/refresh", "tab/reapply", "tab/refresh"}},
		{[]string{"race", "--modes", "none,note/reapply,"}, []string{"none,note/reapply,note/refresh", "none,note/reapply,tab/reapply", "none,note/reapply,tab/refresh"}},
		{[]string{"tabs", "--scopes", ""}, []string{"none", "note", "tab"}},
		{[]string{"fast", "--formats", ""}, []string{"ms", "us-suffix", "counter"}},
		{[]string{"race", "--synchronous", ""}, []string{"normal", "full"}},
		{[]string{"bench", "--synchronous", ""}, []string{"normal", "full"}},
		{[]string{"serve", "--synchronous", ""}, []string{"normal", "full"}},
		{[]string{"serve", "--guard", ""}, []string{"none", "note", "tab"}},
		{[]string{"serve", "--order", ""}, []string{"key-first", "version-first"}},
		{[]string{"serve", "--version-format", ""}, []string{"ms", "us-suffix", "counter"}},
		{[]string{"create", "--table", ""}, []string{"a", "b", "both"}},
		{[]string{"reproduce", "--only", "race,"}, othersAfter("race,", experiment.Names(experiments.All()))},
		{[]string{"validate", ""}, []string{"list_note_tabs", "read_note_tab", "read_sheet_range", "list_note_attachments", "edit_note_tab", "create_note_tab", "add_note_source"}},
	} {
		if got := complete(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("%v completes to %q, want %q", tc.args, got, tc.want)
		}
	}
}

// othersAfter returns head followed by each name but the one head lists.
func othersAfter(head string, names []string) []string {
	var out []string
	for _, n := range names {
		if n+"," != head {
			out = append(out, head+n)
		}
	}
	return out
}
