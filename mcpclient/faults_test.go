package mcpclient

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/nemesis"
)

// faultLog is what a test hears of a run's faults.
type faultLog struct {
	mu     sync.Mutex
	faults []history.Fault
}

func (l *faultLog) begin(kind string, pid int) func(string) {
	start := time.Now()
	return func(detail string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.faults = append(l.faults, history.Fault{Kind: kind, PID: pid, Detail: detail, Start: start.UnixNano(), End: time.Now().UnixNano()})
	}
}

func (l *faultLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, f := range l.faults {
		out = append(out, f.Kind)
	}
	return out
}

// faultyRun opens a run of tg, creates its Note and starts its faults,
// heard by the log returned; the faults stop when the test ends.
func faultyRun(t *testing.T, tg *Target) (*backend, *faultLog) {
	t.Helper()
	b := openNote(t, tg, "faults").(*backend)
	log := &faultLog{}
	stop := b.InjectFaults(log.begin)
	t.Cleanup(func() { stop() })
	return b, log
}

// logCalls returns the stderr of spawned servers that log each call, and
// the count of the calls of tool they logged.
func logCalls() (*lockedWriter, func(tool string) int) {
	w := &lockedWriter{}
	return w, func(tool string) int { return strings.Count(w.String(), " "+tool+" ") }
}

type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// eventually waits until ok holds, for something another process does in
// its own time (a server's log reaches its stderr after its reply), and
// fails the test naming what when a minute passes first.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute: %s, did not happen", what)
		}
	}
}

func edit(s contract.Session, v contract.Version, key, text string) (contract.EditResult, error) {
	return s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: v, IdempotencyKey: key,
		Operation: contract.OpReplaceText, Text: text})
}

// A reply lost over stdio: the server committed and wrote its reply, which
// the pipe drops; the connection is cut, the call is info (reply lost), and
// the session's next call starts the server again and finds the write
// there. The resend with the same key is a replay.
func TestLoseReplyOverStdio(t *testing.T) {
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")), Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultLoseReplies}}})
	b, log := faultyRun(t, tg)
	s := sessionT(t, b)
	if _, err := s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
		t.Fatal(err)
	}
	b.faults.lose.Add(1)
	_, err := edit(s, "1", "k1", "one")
	if contract.OutcomeOf(err) != contract.Info || contract.KindOf(err) != contract.KindReplyLost {
		t.Fatalf("the write whose reply was lost: %v (%s, %s); want info, reply_lost", err, contract.OutcomeOf(err), contract.KindOf(err))
	}
	r, err := s.ReadNoteTab(ctx, "note-1", "markdown")
	if err != nil || r.Text != "one" || r.Version != "2" {
		t.Fatalf("after the lost reply: %+v %v; want the write committed", r, err)
	}
	again, err := edit(s, "1", "k1", "one")
	if err != nil || !again.Replayed {
		t.Fatalf("the resend with the same key: %+v %v; want a replay", again, err)
	}
	if got := log.kinds(); !slices.Equal(got, []string{history.FaultLoseReplies}) || log.faults[0].PID == 0 {
		t.Fatalf("faults heard: %+v", log.faults)
	}
}

// A write sent twice at once over stdio: the server gets both (its log
// shows two calls), the client one reply; a server that keeps its keys
// replays the second.
func TestDuplicateOverStdio(t *testing.T) {
	stderr, calls := logCalls()
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db"), logEnv+"=1"), Options{Stderr: stderr, Faults: &nemesis.Faults{Kinds: []string{history.FaultDuplicate}}})
	b, log := faultyRun(t, tg)
	s := sessionT(t, b)
	b.faults.dup.Add(1)
	res, err := edit(s, "1", "k1", "twice")
	if err != nil || res.Version != "2" {
		t.Fatalf("the write sent twice: %+v %v", res, err)
	}
	r, err := s.ReadNoteTab(ctx, "note-1", "markdown")
	if err != nil || r.Text != "twice" || r.Version != "2" {
		t.Fatalf("after the duplicate: %+v %v; want one commit", r, err)
	}
	eventually(t, "the server logs two edit_note_tab calls", func() bool { return calls("edit_note_tab") == 2 })
	if got := log.kinds(); !slices.Equal(got, []string{history.FaultDuplicate}) {
		t.Fatalf("faults heard: %+v", log.faults)
	}
}

// A kill of a run's server processes over stdio: the next call of each
// session starts its server again, and the committed writes are there.
func TestKillOverStdio(t *testing.T) {
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")), Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultKill}}})
	b, log := faultyRun(t, tg)
	s1, s2 := sessionT(t, b), sessionT(t, b)
	if _, err := edit(s1, "1", "k1", "kept"); err != nil {
		t.Fatal(err)
	}
	if err := b.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	for i, s := range []contract.Session{s1, s2} {
		r, err := s.ReadNoteTab(ctx, "note-1", "markdown")
		if err != nil || r.Text != "kept" {
			t.Fatalf("session %d after the kill: %+v %v", i+1, r, err)
		}
	}
	if len(log.faults) != 1 || log.faults[0].Kind != history.FaultKill || !strings.Contains(log.faults[0].Detail, "2 server processes") {
		t.Fatalf("faults heard: %+v", log.faults)
	}
}

// A pause past the call timeout: the call in flight times out (info), and
// once the server goes on the session works again.
func TestPauseOverStdio(t *testing.T) {
	t.Parallel() // waits out a pause of a second, most of its time
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")),
		Options{CallTimeout: 300 * time.Millisecond, Faults: &nemesis.Faults{Kinds: []string{history.FaultPause}, Pause: time.Second}})
	b, log := faultyRun(t, tg)
	s := sessionT(t, b)
	if _, err := s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
		t.Fatal(err)
	}
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		b.faults.pause(make(chan struct{}))
	}()
	for len(b.faults.processes()) == 0 || !stoppedAll(b.faults.processes()) {
		time.Sleep(time.Millisecond)
	}
	_, err := edit(s, "1", "k1", "late")
	if contract.KindOf(err) != contract.KindTimeout {
		t.Fatalf("a write to a stopped server: %v; want a timeout", err)
	}
	<-paused
	r, err := s.ReadNoteTab(ctx, "note-1", "markdown")
	if err != nil {
		t.Fatalf("after the pause: %v", err)
	}
	if _, err := edit(s, r.Version, "k1", "late"); err != nil {
		t.Fatalf("the resend after the pause: %v", err)
	}
	if got := log.kinds(); !slices.Equal(got, []string{history.FaultPause}) {
		t.Fatalf("faults heard: %+v", log.faults)
	}
}

// stoppedAll reports whether every process is stopped (state T in /proc).
func stoppedAll(procs []*process) bool {
	for _, p := range procs {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			return true // no /proc: take the signal's word
		}
		_, rest, _ := strings.Cut(string(b), ") ")
		if !strings.HasPrefix(rest, "T") {
			return false
		}
	}
	return true
}

// helperHTTPCommand is the command that starts the helper as an HTTP server
// of db on addr.
func helperHTTPCommand(t *testing.T, db, addr string, env ...string) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"env", "GORACE=atexit_sleep_ms=0", helperEnv + "=" + db, httpHelperEnv + "=1", addrEnv + "=" + addr}, env...)
	return append(args, exe, "-test.run=^$")
}

// Over HTTP, a server notesbench starts (--spawn): a lost reply through the
// proxy, a duplicate through it, a kill that starts the server again on the
// same port; the sessions go on after each.
func TestFaultsOverHTTP(t *testing.T) {
	if _, err := exec.LookPath("env"); err != nil {
		t.Skip("no env(1)")
	}
	stderr, calls := logCalls()
	spec, err := Parse("http://127.0.0.1:{port}/mcp")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "notes.db")
	tg := dialT(t, spec, Options{Stderr: stderr, Spawn: helperHTTPCommand(t, db, "127.0.0.1:{port}", logEnv+"=1"),
		Faults: &nemesis.Faults{Kinds: []string{history.FaultKill, history.FaultLoseReplies, history.FaultDuplicate}}})
	b, log := faultyRun(t, tg)
	s := sessionT(t, b)

	b.faults.lose.Add(1)
	_, err = edit(s, "1", "k1", "one")
	if contract.OutcomeOf(err) != contract.Info {
		t.Fatalf("the write whose reply the proxy lost: %v", err)
	}
	if again, err := edit(s, "1", "k1", "one"); err != nil || !again.Replayed {
		t.Fatalf("the resend: %+v %v; want a replay", again, err)
	}

	b.faults.dup.Add(1)
	if res, err := edit(s, "2", "k2", "two"); err != nil || res.Version != "3" {
		t.Fatalf("the write sent twice: %+v %v", res, err)
	}
	// One edit per key reached the server, and k1's twice: its resend; k2's
	// twice: the duplicate.
	eventually(t, "the server logs four edit_note_tab calls", func() bool { return calls("edit_note_tab") == 4 })

	if err := b.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := s.ReadNoteTab(ctx, "note-1", "markdown")
	if err != nil || r.Text != "two" {
		t.Fatalf("after the kill: %+v %v", r, err)
	}
	if got := log.kinds(); !slices.Equal(got, []string{history.FaultLoseReplies, history.FaultDuplicate, history.FaultKill}) {
		t.Fatalf("faults heard: %+v", log.faults)
	}
}

// A seeded schedule makes faults on its own, of the kinds asked for, and
// stop reports how many; the run's calls go on through them.
func TestFaultSchedule(t *testing.T) {
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")),
		Options{Faults: &nemesis.Faults{Kinds: []string{history.FaultLoseReplies, history.FaultDuplicate}, Every: 5 * time.Millisecond}})
	b := openNote(t, tg, "schedule").(*backend)
	log := &faultLog{}
	stop := b.InjectFaults(log.begin)
	s := sessionT(t, b)
	v := contract.Version("1")
	for i := 0; len(log.kinds()) < 4; i++ {
		if i == 2000 {
			t.Fatalf("2000 writes, %d faults", len(log.kinds()))
		}
		res, err := edit(s, v, fmt.Sprint("k", i), fmt.Sprint("text ", i))
		var conflict *contract.ConflictError
		switch {
		case err == nil:
			v = res.Version
		case errors.As(err, &conflict):
			v = conflict.Current
		case contract.OutcomeOf(err) != contract.Info:
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	if n := stop(); n < 4 || n != len(log.kinds()) {
		t.Fatalf("stop says %d faults, the log heard %d", n, len(log.kinds()))
	}
	for _, k := range log.kinds() {
		if k != history.FaultLoseReplies && k != history.FaultDuplicate {
			t.Fatalf("a fault of kind %s", k)
		}
	}
}

// A kill or a pause needs a process notesbench starts: against an HTTP
// server it does not, Dial refuses before anything starts.
func TestFaultsNeedAProcess(t *testing.T) {
	spec, _ := Parse("http://127.0.0.1:9/mcp")
	for _, kind := range []string{history.FaultKill, history.FaultPause} {
		_, err := Dial(ctx, spec, Options{CallTimeout: time.Second, Faults: &nemesis.Faults{Kinds: []string{kind}}})
		want := "target http://127.0.0.1:9/mcp: only a server notesbench starts can be killed or paused: target http://127.0.0.1:9/mcp is a server notesbench does not start; give the command that starts it (--spawn), or fault it with lose-replies or duplicate only"
		if err == nil || err.Error() != want || !errors.Is(err, ErrNotSpawned) {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// Whichever codec speaks to a server, what a run goes to names the faults
// it makes: a profile's Describe once left them out.
func TestDescribeNamesTheFaults(t *testing.T) {
	faults := &nemesis.Faults{Kinds: []string{history.FaultLoseReplies}, Every: time.Second}
	spec := helperTarget(t, filepath.Join(t.TempDir(), "notes.db"))
	for _, opts := range []Options{{Faults: faults}, {Faults: faults, Profile: builtin(t, "notes")}} {
		d := dialT(t, spec, opts).Describe()
		if !strings.HasSuffix(d, "; faults: lose-replies every 1s on average (seeded)") || !strings.Contains(d, "; MCP ") {
			t.Errorf("profile %v: %q names not the wire and the faults", opts.Profile != nil, d)
		}
	}
}
