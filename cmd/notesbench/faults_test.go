package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/internal/shell"
)

// Bad fault flags: one line naming the flag, exit 2, before anything
// starts; a kill or a pause of an HTTP server notesbench does not start is
// refused.
func TestFaultFlagsBadInput(t *testing.T) {
	const http = "http://127.0.0.1:1/mcp"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--nemesis", "kill"}, "notesbench: --nemesis: is about a server: give --target too"},
		{[]string{"race", "--target", http, "--nemesis", "kill"}, "notesbench: --nemesis: only a server notesbench starts can be killed or paused: target " + http + " is a server notesbench does not start; give the command that starts it (--spawn), or fault it with lose-replies or duplicate only"},
		{[]string{"create", "--target", http, "--nemesis", "pause,lose-replies"}, "notesbench: --nemesis: only a server notesbench starts can be killed or paused"},
		{[]string{"race", "--target", http, "--nemesis", "crash"}, `notesbench: --nemesis: "crash" is not a fault: want kill, pause, lose-replies or duplicate, comma-separated`},
		{[]string{"sources", "--target", http, "--nemesis", "duplicate,duplicate"}, `notesbench: --nemesis: "duplicate" is listed twice`},
		{[]string{"create", "--target", http, "--nemesis-every", "1s"}, "notesbench: --nemesis-every: spaces the faults of --nemesis: give --nemesis too"},
		{[]string{"race", "--target", http, "--nemesis", "duplicate", "--nemesis-every", "0s"}, "notesbench: --nemesis-every: must be more than 0"},
		{[]string{"race", "--target", http, "--call-timeout", "-1s"}, "notesbench: --call-timeout: cannot be negative"},
		{[]string{"race", "--target", "http://127.0.0.1:{port}/mcp"}, "notesbench: --target: http://127.0.0.1:{port}/mcp names {port}, the port of a server notesbench starts: give --spawn 'CMD' too"},
		{[]string{"race", "--target", http, "--spawn", "x {port}"}, "notesbench: --target: " + http + " names no {port}"},
		{[]string{"race", "--target", "stdio:x", "--spawn", "x"}, "notesbench: --spawn: target stdio:x is spawned already: --spawn starts an HTTP server"},
		{[]string{"race", "--target", "http://127.0.0.1:{port}/mcp", "--spawn", "'x"}, `notesbench: --spawn: "'x": unterminated ' quote`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { expectUsageError(t, tc.args, tc.want) })
	}
	// bench takes the same flags, refused in the same words, and writes no
	// file of its output before it refuses.
	out := filepath.Join(t.TempDir(), "bench.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--nemesis", "kill"}, "notesbench: --nemesis: is about a server: give --target too"},
		{[]string{"bench", "--target", http, "--nemesis", "kill,lose-replies"}, "notesbench: --nemesis: only a server notesbench starts can be killed or paused: target " + http + " is a server notesbench does not start; give the command that starts it (--spawn), or fault it with lose-replies or duplicate only"},
		{[]string{"bench", "--target", http, "--nemesis", "pause"}, "notesbench: --nemesis: only a server notesbench starts can be killed or paused"},
		{[]string{"bench", "--target", http, "--nemesis", "lose-reply"}, `notesbench: --nemesis: "lose-reply" is not a fault: want kill, pause, lose-replies or duplicate, comma-separated`},
		{[]string{"bench", "--target", http, "--nemesis-every", "1s"}, "notesbench: --nemesis-every: spaces the faults of --nemesis: give --nemesis too"},
		{[]string{"bench", "--target", http, "--nemesis", "duplicate", "--nemesis-every", "-1s"}, "notesbench: --nemesis-every: must be more than 0"},
		{[]string{"bench", "--call-timeout", "1s"}, "notesbench: --call-timeout: is about a server: give --target too"},
	} {
		args := append(tc.args, "--out", out)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			expectUsageError(t, args, tc.want)
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--out %s after the refusal: %v, want no file", out, err)
			}
		})
	}
	// A command that starts the server must listen where --target says,
	// {port}: one listening elsewhere was waited for, silently, for two
	// minutes. Every command that takes --spawn refuses it at once.
	const portless = "notesbench: --spawn: \"sleep 600\" names no {port}: notesbench starts the server on a free loopback port and reaches it where --target names {port}, so the command must listen there (such as --http 127.0.0.1:{port})"
	spawning := 0
	for name, cmd := range helpCommands(t) {
		if cmd.Flags().Lookup("spawn") == nil {
			continue
		}
		spawning++
		args := append(strings.Fields(name), "--target", "http://127.0.0.1:{port}/mcp", "--spawn", "sleep 600")
		if err := refusedBeforeRunning(t, args...); err == nil || cli.ExitCode(err) != 2 || "notesbench: "+err.Error() != portless {
			t.Errorf("%q: %v (exit %d), want %q, exit 2", args, err, cli.ExitCode(err), portless)
		}
	}
	if spawning < 8 {
		t.Errorf("only %d commands take --spawn", spawning)
	}
	// Experiments whose runs take no faults have no --nemesis.
	if code, _, stderr := runCLI(t, "refs", "--target", http, "--nemesis", "kill"); code != 2 || !strings.Contains(stderr, "unknown flag: --nemesis") {
		t.Errorf("refs --nemesis: exit %d, %q", code, stderr)
	}
}

// bench under kills and lost replies of notesbench serve, built from this
// tree: it runs to the end, and its JSON holds what the faults cost, each
// fault logged; the counts are the machine's, so the test holds to what
// is true of every run.
func TestBenchUnderFaults(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary and runs bench through many faults")
	}
	bin := buildNotesbench(t)
	target := "stdio:" + shell.Quote(bin) + " serve --db " + shell.Quote(filepath.Join(t.TempDir(), "notes.db"))
	code, stdout, stderr := runCLI(t, "bench", "--target", target, "--nemesis", "kill,lose-replies", "--nemesis-every", "20ms",
		"--writes", "100", "--warmup", "5", "--reps", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Config struct {
			Nemesis string `json:"nemesis"`
		} `json:"config"`
		Rows []struct {
			Writes               int `json:"writes"`
			Faults, Errors, Info int
		} `json:"rows"`
		Runs []struct {
			Writes   int `json:"writes"`
			Faults   int `json:"faults"`
			FaultLog []struct {
				Kind   string  `json:"kind"`
				StartS float64 `json:"start_s"`
				EndS   float64 `json:"end_s"`
				PID    int     `json:"pid"`
			} `json:"fault_log"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Config.Nemesis != "kill,lose-replies every 20ms" || len(rep.Rows) != 1 || len(rep.Runs) != 1 {
		t.Fatalf("nemesis %q, %d rows, %d runs", rep.Config.Nemesis, len(rep.Rows), len(rep.Runs))
	}
	row, run := rep.Rows[0], rep.Runs[0]
	t.Logf("%d writes timed of 100, %d errors, %d info, %d faults", row.Writes, row.Errors, row.Info, row.Faults)
	if row.Faults == 0 || row.Faults != run.Faults || len(run.FaultLog) != run.Faults || row.Writes > 100 || row.Writes+row.Errors < 100 || row.Info > row.Errors {
		t.Errorf("row %+v, run of %d faults, %d logged: every write ends ok or is counted, every fault is logged", row, run.Faults, len(run.FaultLog))
	}
	for _, f := range run.FaultLog {
		if (f.Kind != "kill" && f.Kind != "lose-replies") || f.PID == 0 || f.EndS < f.StartS {
			t.Errorf("fault %+v", f)
		}
	}
}
