package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/results"
)

// TestWire builds notesbench once and runs it as a server: conform over stdio
// against four configurations (each fails exactly the clauses it breaks),
// conform and typed writes over HTTP on an ephemeral loopback port, a graceful
// stop, and the bad targets.
func TestWire(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// Without the race detector, as make build builds it: a server several
	// times slower would not commit two writes within a millisecond.
	bin := buildNotesbench(t)

	t.Run("conform over stdio", func(t *testing.T) {
		for _, tc := range []struct {
			flags string
			fails string
		}{
			{"", ""},
			{"--guard none", "stale version, concurrent writers"},
			{"--order version-first", "same-key resend"},
			{"--version-format ms", "writes within a millisecond"},
			{"--key-reuse refuse", ""},
		} {
			db := filepath.Join(t.TempDir(), "notes.db")
			target := "stdio:'" + bin + "' serve --db '" + db + "' " + tc.flags
			code, stdout, stderr := conformCLI(t, "--target", target, "--format", "json")
			// conform's JSON envelope: one row per check.
			var rep struct {
				Rows []results.ConformCheck `json:"rows"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Rows) == 0 {
				t.Fatalf("%s: %v\n%s%s", tc.flags, err, stdout, stderr)
			}
			var fails []string
			for _, c := range rep.Rows {
				if c.Outcome == results.ConformFail {
					fails = append(fails, c.Name)
				}
			}
			if tc.flags == "--key-reuse refuse" && !named(rep.Rows, "same key, other arguments", "refused, nothing written: invalid_argument idempotency_key") {
				t.Errorf("serve %s: the key with other arguments was not refused\n%s", tc.flags, stdout)
			}
			wantCode := 0
			if tc.fails != "" {
				wantCode = 1
			}
			if tc.fails == "writes within a millisecond" && code == 0 && untested(rep.Rows, tc.fails) {
				// A loaded machine may bring too few round trips within a
				// millisecond of each other for the clause to tell (conform
				// says so, and the conform package fails ms versions on its
				// own clock); that --version-format reached serve is then
				// seen in how the versions are named.
				if !named(rep.Rows, "versions increase", "ms versions") {
					t.Errorf("serve %s: versions not named as ms versions\n%s", tc.flags, stdout)
				}
				continue
			}
			if got := strings.Join(fails, ", "); got != tc.fails || code != wantCode {
				t.Errorf("serve %s: exit %d, failed %q; want exit %d, failed %q\n%s", tc.flags, code, got, wantCode, tc.fails, stderr)
			}
			if _, err := os.Stat(db + "-wal"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("serve %s left a WAL file behind: %v", tc.flags, err)
			}
		}
	})

	t.Run("http", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "notes.db")
		url, stop := startServe(t, bin, "--http", "127.0.0.1:0", "--db", db)
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("listening on %s", url)
		}
		if code, _, stderr := conformCLI(t, "--target", url, "--format", "json"); code != 0 {
			t.Fatalf("conform over HTTP: exit %d\n%s", code, stderr)
		}
		spec, err := mcpclient.Parse(url)
		if err != nil {
			t.Fatal(err)
		}
		writeAndConflict(t, spec)
		if code, lines := stop(); code != 0 || !strings.Contains(lines, "notesbench serve: stopped; database closed") {
			t.Fatalf("SIGTERM: exit %d\n%s", code, lines)
		}
		if _, err := os.Stat(db + "-wal"); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("no checkpoint at shutdown: %v", err)
		}
	})

	t.Run("typed writes over stdio", func(t *testing.T) {
		spec, err := mcpclient.Parse("stdio:'" + bin + "' serve --db '" + filepath.Join(t.TempDir(), "notes.db") + "'")
		if err != nil {
			t.Fatal(err)
		}
		writeAndConflict(t, spec)
	})

	t.Run("experiments over stdio", func(t *testing.T) {
		server := func(flags string) string {
			return "stdio:'" + bin + "' serve --db '" + filepath.Join(t.TempDir(), "notes.db") + "' " + flags
		}
		fast := []string{"--seeds", "1-2", "--edits", "25", "--pause", "0", "--claude-think", "0-2ms", "--human-think", "0-2ms", "--replications", "0", "--format", "json"}
		type raceRow struct {
			Guard  string `json:"guard"`
			Policy string `json:"policy"`
			Lost   int    `json:"lost"`
		}
		run := func(args ...string) []raceRow {
			t.Helper()
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			var rep struct {
				Rows []raceRow `json:"rows"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			return rep.Rows
		}
		// The modes follow what the server says it serves.
		rows := run(append([]string{"race", "--target", server("")}, fast...)...)
		if len(rows) != 2 || rows[0].Guard != "note" || rows[0].Policy != "reapply" || rows[0].Lost != 0 {
			t.Errorf("race against the default server: %+v, want note/reapply losing nothing, then note/refresh", rows)
		}
		rows = run(append([]string{"race", "--target", server("--guard none")}, fast...)...)
		if len(rows) != 1 || rows[0].Guard != "none" || rows[0].Lost == 0 {
			t.Errorf("race against serve --guard none: %+v, want lost lines", rows)
		}
		code, stdout, stderr := runCLI(t, "create", "--target", server(""), "--seeds", "1-2", "--tabs", "10", "--replications", "0", "--format", "json")
		if code != 0 || !strings.Contains(stdout, `"order": "key-first"`) {
			t.Fatalf("create over a server: exit %d\n%s%s", code, stdout, stderr)
		}
		var create struct {
			Rows []struct {
				KeyPolicy  string `json:"key_policy"`
				Duplicates []int  `json:"duplicates"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(stdout), &create); err != nil {
			t.Fatal(err)
		}
		retries := 0
		for _, r := range create.Rows {
			if r.KeyPolicy != "retry" {
				continue
			}
			retries++
			if len(r.Duplicates) != 2 || r.Duplicates[0] != 0 || r.Duplicates[1] != 0 {
				t.Errorf("create, same key on retry: %v duplicates, want 0 for each of the 2 seeds", r.Duplicates)
			}
		}
		if retries == 0 {
			t.Errorf("create over a server: no row with the same key on retry:\n%s", stdout)
		}
		for _, args := range [][]string{
			{"sources", "--target", server(""), "--sessions", "3", "--replications", "0"},
			{"refs", "--target", server(""), "--trials", "15"},
			{"bench", "--target", server(""), "--writes", "40", "--warmup", "5", "--reps", "1"},
		} {
			code, stdout, stderr := runCLI(t, append(args, "--format", "markdown")...)
			if code != 0 {
				t.Errorf("%s over a server: exit %d\n%s", args[0], code, stderr)
			}
			if args[0] == "bench" && !strings.Contains(stdout, "Ping (median)") {
				t.Errorf("bench over a server shows no transport floor:\n%s", stdout)
			}
		}
		// A server without the person's actions is refused before any trial,
		// in one line naming the tool: no run to replay.
		bare := server("--extensions=none")
		if code, stdout, stderr := runCLI(t, "refs", "--target", bare, "--note", "n1"); code != 1 || stdout != "" ||
			!strings.HasPrefix(stderr, "notesbench: target "+bare+" lacks the tools notesbench_move_tab, notesbench_rename_tab, notesbench_add_tab, notesbench_set_cells, notesbench_set_text, which refs needs; it lists add_note_source, ") ||
			strings.Count(stderr, "\n") != 1 {
			t.Errorf("refs on a server without the person's actions: exit %d, %q", code, stderr)
		}
		expectUsageError(t, []string{"race", "--target", server(""), "--clock", "virtual"}, "notesbench: --clock: the virtual clock cannot drive")
		expectUsageError(t, []string{"race", "--target", server(""), "--modes", "tab/reapply"}, "notesbench: --modes: the target serves guard note")
		plain := server("")
		expectUsageError(t, []string{"race", "--target", plain, "--db", t.TempDir()}, "notesbench: --db: target "+plain+" keeps its own databases")
		expectUsageError(t, []string{"race", "--target", plain, "--memory"}, "notesbench: --memory: target "+plain+" keeps its own databases")
	})

	t.Run("bad targets", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + l.Addr().String() + "/mcp"
		l.Close()
		for _, tc := range []struct {
			target string
			code   int
			want   string
		}{
			{"ftp://x", 2, `notesbench: --target: malformed target "ftp://x": unknown kind (want stdio:COMMAND [ARGS] or http://HOST:PORT/PATH)`},
			{closed, 1, "notesbench: target " + closed + ": unreachable: connection refused"},
			{"stdio:false", 1, "notesbench: target stdio:false: no MCP handshake, at each of two starts: the server exited (exit status 1)"},
		} {
			// One line: a server that cannot be reached is no run to replay.
			code, stdout, stderr := conformCLI(t, "--target", tc.target)
			if code != tc.code || stderr != tc.want+"\n" || stdout != "" {
				t.Errorf("%s: exit %d, %q; want exit %d, %q", tc.target, code, stderr, tc.code, tc.want)
			}
		}
	})
}

// writeAndConflict drives writes through mcpclient: two sessions, one wins,
// the other gets the typed conflict naming the winner's version.
func writeAndConflict(t *testing.T, spec mcpclient.TargetSpec) {
	t.Helper()
	ctx := context.Background()
	tg, err := mcpclient.Dial(ctx, spec, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, err := tg.Open(ctx, contract.RunSpec{Name: "wire"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.CreateNote(ctx, "note-1"); err != nil {
		t.Fatal(err)
	}
	var sessions [2]contract.Session
	for i := range sessions {
		if sessions[i], err = b.Session(ctx); err != nil {
			t.Fatal(err)
		}
		defer sessions[i].Close()
	}
	req := contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: "1", IdempotencyKey: "a", Operation: contract.OpReplaceText, Text: "a"}
	won, err := sessions[0].EditNoteTab(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req.IdempotencyKey, req.Text = "b", "b"
	_, err = sessions[1].EditNoteTab(ctx, req)
	var ce *contract.ConflictError
	if !errors.As(err, &ce) || ce.Current != won.Version {
		t.Fatalf("second writer: %v, want a conflict naming %s", err, won.Version)
	}
}

// startServe starts notesbench serve over HTTP and returns its URL and a stop
// function that sends SIGTERM and returns the exit code and stderr. The
// process is killed when the test ends, if still running.
func startServe(t *testing.T, bin string, args ...string) (string, func() (int, string)) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	dieWithTest(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var lines strings.Builder
	urls := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			lines.WriteString(line + "\n")
			if rest, ok := strings.CutPrefix(line, "notesbench serve: listening on "); ok {
				url, _, _ := strings.Cut(rest, ";")
				urls <- url
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	var url string
	select {
	case url = <-urls:
	case <-exited:
		t.Fatalf("serve exited:\n%s", lines.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not say where it listens")
	}
	return url, func() (int, string) {
		cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		return cmd.ProcessState.ExitCode(), lines.String()
	}
}

// untested reports whether the named check ended info, not tested.
func untested(rows []results.ConformCheck, name string) bool {
	return named(rows, name, "not tested") && slices.ContainsFunc(rows, func(c results.ConformCheck) bool {
		return c.Name == name && c.Outcome == results.ConformInfo
	})
}

// named reports whether the named check's detail holds text.
func named(rows []results.ConformCheck, name, text string) bool {
	return slices.ContainsFunc(rows, func(c results.ConformCheck) bool {
		return c.Name == name && strings.Contains(c.Detail, text)
	})
}
