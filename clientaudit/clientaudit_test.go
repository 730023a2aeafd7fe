package clientaudit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/clientaudit"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// goDriver builds the Go SDK's driver, and returns its path.
func goDriver(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "go-sdk-driver")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/notesbench/notesbench/clients/drivers/go-sdk").CombinedOutput(); err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	return bin
}

// audit runs a client audit of command against a fresh in-memory store,
// every fault: a lost reply holds its connection (or the server) for a
// tenth of a second, then closes it, and a slow reply comes after a minute,
// where the driver's own timeout (2 s) ends the wait, so a run takes
// seconds.
func audit(t *testing.T, command string, lines int) results.ClientAudit {
	t.Helper()
	return auditWith(t, command, faultsOver(strings.Contains(command, clientaudit.ServePlaceholder)), 100*time.Millisecond, time.Minute, lines)
}

// faultsOver are the faults made over stdio, or over HTTP.
func faultsOver(stdio bool) []clientaudit.WireFault {
	f, err := clientaudit.ParseFaults("all", stdio)
	if err != nil {
		panic(err)
	}
	return f
}

// auditWith runs a client audit of command under faults, a lost reply held
// for hold and a slow one late by slow, 6 lines a run unless lines says.
func auditWith(t *testing.T, command string, faults []clientaudit.WireFault, hold, slow time.Duration, lines ...int) results.ClientAudit {
	t.Helper()
	n := 6
	if len(lines) > 0 {
		n = lines[0]
	}
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, contract.Variant{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var stderr strings.Builder
	a, err := clientaudit.Run(context.Background(), clientaudit.Options{
		Command: command, Lines: n, Seed: 1, Faults: faults, Hits: 1,
		Hold: hold, Slow: slow, RunTimeout: 2 * time.Minute, Relay: relay,
		Backend: b, ServerVersion: "test", Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Runs) != 1+len(faults) {
		t.Fatalf("%d runs, want %d\n%s", len(a.Runs), 1+len(faults), stderr.String())
	}
	for _, r := range a.Runs {
		if r.Error != "" {
			t.Errorf("%s: %s\n%s", r.Fault, r.Error, stderr.String())
		}
	}
	return a
}

// The faults that hit a write after it committed: a new key after any of
// them writes the line twice.
var afterCommit = map[string]bool{clientaudit.LoseReply: true, clientaudit.CutStream: true, clientaudit.Reply502: true, clientaudit.SlowReply: true}

// TestAKeptKeyPassesAndANewKeyFails holds the audit to what it is for: a
// driver that sends a failed write again with its key passes under every
// fault, and one that makes it again with a new key writes the line twice
// under every fault that hit a committed write, and fails, with the
// operations that show it.
func TestAKeptKeyPassesAndANewKeyFails(t *testing.T) {
	bin := goDriver(t)
	const lines = 6
	// The two audits wait on the driver's timeouts, most of their time:
	// they run side by side.
	t.Run("kept key", func(t *testing.T) {
		t.Parallel()
		kept := audit(t, bin+" -timeout 2s", lines)
		keptKeyPassed(t, kept, lines)
	})
	t.Run("new key", func(t *testing.T) {
		t.Parallel()
		fresh := audit(t, bin+" -timeout 2s -new-key", lines)
		newKeyFailed(t, fresh, func(fault string) bool { return afterCommit[fault] })
	})
}

// keptKeyPassed checks the audit of a driver that sends a failed write
// again with its key: it passed, every fault hit one write, every line was
// told ok, and the faults after a commit told a call error of it.
func keptKeyPassed(t *testing.T, kept results.ClientAudit, lines int) {
	t.Helper()
	if !kept.Passed() {
		t.Errorf("a driver that keeps its key did not pass: %+v", kept.Runs)
	}
	if kept.Client != "notesbench-driver-go-sdk 1" {
		t.Errorf("client %q, want the driver's clientInfo", kept.Client)
	}
	for _, r := range kept.Runs {
		want := 1
		if r.Fault == clientaudit.NoFault {
			want = 0
		}
		if r.Injected != want {
			t.Errorf("%s: hit %d writes, want %d", r.Fault, r.Injected, want)
		}
		if r.OK != lines || r.NewKey != 0 {
			t.Errorf("%s: told ok %d times with %d new keys, want %d and 0", r.Fault, r.OK, r.NewKey, lines)
		}
		if (r.FailedCommitted > 0) != afterCommit[r.Fault] {
			t.Errorf("%s: %d calls told error of a write that had committed", r.Fault, r.FailedCommitted)
		}
	}
}

// newKeyFailed checks the audit of a driver that makes a failed write again
// with a new key: it failed, with one line applied twice under each fault
// after a commit, proved by the operations that show it. On a loaded
// machine the driver's own -timeout may run out on a call no fault hit,
// and it makes that write again with a new key too: a line applied twice
// that the audit rightly counts, proved by the timeout the application was
// told. Every line applied twice is proved, and by the fault or that
// timeout alone. hits says whether a fault hits a committed write.
func newKeyFailed(t *testing.T, fresh results.ClientAudit, hits func(fault string) bool) {
	t.Helper()
	if !fresh.Failed() {
		t.Fatalf("a driver that makes a failed write again with a new key did not fail: %+v", fresh.Runs)
	}
	for _, r := range fresh.Runs {
		want := 0
		if hits(r.Fault) {
			want = 1
		}
		byFault := 0
		for _, proof := range r.Proofs {
			p := strings.Join(proof.Events, "\n")
			switch {
			case proof.Anomaly != results.ClientAppliedTwice:
				t.Errorf("%s: a proof of %s:\n%s", r.Fault, proof.Anomaly, p)
			case strings.Contains(p, "fault "+r.Fault+": committed"):
				byFault++
				for _, part := range []string{"the application was told error", `holds "line`, "twice"} {
					if !strings.Contains(p, part) {
						t.Errorf("%s: the proof does not say %q:\n%s", r.Fault, part, p)
					}
				}
			case !strings.Contains(p, "the application was told error: context deadline exceeded"):
				t.Errorf("%s: a line applied twice that neither the fault nor the driver's timeout explains:\n%s", r.Fault, p)
			}
		}
		if byFault != want || r.AppliedTwice != len(r.Proofs) {
			t.Errorf("%s: %d lines applied twice, %d of them by the fault, %d proved; want %d by the fault, each proved", r.Fault, r.AppliedTwice, byFault, len(r.Proofs), want)
		}
	}
}

// TestADriverThatBreaksTheProtocolIsNotJudged: a line that is not the
// protocol's, or a driver that exits non-zero, leaves its run unjudged with
// why, and the audit goes on and fails.
func TestADriverThatBreaksTheProtocolIsNotJudged(t *testing.T) {
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, contract.Variant{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct{ command, want string }{
		{`echo '{"line": 1, "tool": "edit_note_tab", "told": "maybe"}'`, `"told" is "maybe"`},
		{`echo 'hello'`, "not the protocol's"},
		{`echo '{"line": 9, "tool": "edit_note_tab", "told": "ok"}'`, "line 9 is not one of 1..2"},
		{`exit 3`, "exit status 3"},
		{`true`, "no call for line 1"},
	} {
		a, err := clientaudit.Run(context.Background(), clientaudit.Options{Command: tc.command, Lines: 2, Seed: 1,
			Faults: faultsOver(false)[:1], Hits: 1, Hold: time.Second, Slow: time.Second, RunTimeout: time.Minute, Backend: b})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Runs) != 2 || !a.Failed() {
			t.Fatalf("%s: %d runs, failed %v", tc.command, len(a.Runs), a.Failed())
		}
		if got := a.Runs[0].Error; !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %q, want it to say %q", tc.command, got, tc.want)
		}
	}
}

// TestMain fails the package when a goroutine of an audit (the server, the
// proxy, a held reply) outlives it. Run with relayEnv set, the test binary
// is the relay {serve} starts (notesbench relay SOCKET).
func TestMain(m *testing.M) {
	if os.Getenv(relayEnv) == "1" {
		if err := clientaudit.Relay(os.Args[1], os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// relayEnv makes the test binary the relay.
const relayEnv = "CLIENTAUDIT_TEST_RELAY"

// relay is the command that starts the relay: this test binary.
var relay = []string{"env", relayEnv + "=1", os.Args[0]}

// Over stdio, where the library starts the server itself: the same, under
// the faults made there (a lost reply, a late one, the server process
// killed -9 after the write committed), each of which hits a committed
// write.
func TestAKeptKeyPassesAndANewKeyFailsOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("the same over HTTP runs in the quick loop: make test runs this")
	}
	bin := goDriver(t)
	const lines = 6
	t.Run("kept key", func(t *testing.T) {
		t.Parallel()
		if kept := audit(t, bin+" -timeout 2s -server {serve}", lines); !kept.Passed() {
			t.Errorf("a driver that keeps its key did not pass: %+v", kept.Runs)
		}
	})
	t.Run("new key", func(t *testing.T) {
		t.Parallel()
		fresh := audit(t, bin+" -timeout 2s -new-key -server {serve}", lines)
		if len(fresh.Runs) != 4 {
			t.Fatalf("%d runs, want none, lose-reply, slow-reply and kill", len(fresh.Runs))
		}
		hits := func(fault string) bool { return fault != clientaudit.NoFault }
		newKeyFailed(t, fresh, hits)
		for _, r := range fresh.Runs {
			if hits(r.Fault) && r.FailedCommitted == 0 {
				t.Errorf("%s: no call told error of a committed write", r.Fault)
			}
		}
	})
}

// TestJavaScriptDrivers runs two of the JavaScript drivers, each library
// installed at its pinned version: the TypeScript SDK 1.x client and the
// Vercel AI SDK's, as an agent calls a tool through it. Each passes under
// every fault sending a failed write again with its key, and writes a line
// twice after a lost reply when it makes the write again with a new key.
func TestJavaScriptDrivers(t *testing.T) {
	testpass.Large(t, "installs two libraries from npm and runs node twelve times")
	dir := filepath.Dir(filepath.Dir(npmtest.Install(t, npmtest.TSSDK1, npmtest.AISDKMCP)))
	files, _ := filepath.Glob("../clients/drivers/js/*.mjs")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"ts-sdk-1", "ai-sdk"} {
		t.Run(name, func(t *testing.T) {
			command := "node " + filepath.Join(dir, name+".mjs")
			if a := auditWith(t, command, faultsOver(false), 2*time.Second, 2*time.Second); !a.Passed() {
				t.Errorf("the driver keeping its key did not pass: %+v", a.Runs)
			}
			a := auditWith(t, command+" --new-key", []clientaudit.WireFault{clientaudit.Faults[0]}, 2*time.Second, 2*time.Second)
			if got := a.Runs[1].AppliedTwice; got != 1 || !a.Failed() {
				t.Errorf("with a new key after a lost reply: %d lines applied twice, want 1: %+v", got, a.Runs[1])
			}
		})
	}
}
