package clientaudit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
)

// The environment a driver gets: the server's URL (HTTP), or the command
// that starts it (stdio, what {serve} stands for), and the Note.
const (
	EnvServerURL     = "NOTESBENCH_SERVER_URL"
	EnvServerCommand = "NOTESBENCH_SERVER_COMMAND"
	EnvNoteID        = "NOTESBENCH_NOTE_ID"
	EnvTabID         = "NOTESBENCH_TAB_ID"
	EnvLines         = "NOTESBENCH_LINES"
)

// Options is one client audit.
type Options struct {
	// Command is the driver, run by sh -c once per fault. Where it holds
	// ServePlaceholder, its library starts the server itself (stdio): the
	// placeholder, unquoted, is replaced by one shell word, the command
	// line that starts a relay (Relay).
	Command string
	// Relay is the command that runs Relay, the socket's path appended:
	// notesbench relay.
	Relay []string
	// Lines is how many lines the driver appends in each run.
	Lines int
	// Seed chooses which writes each fault hits.
	Seed uint64
	// Faults are the faults to run, after a run without one.
	Faults []WireFault
	// Hits is how many writes each fault hits in its run.
	Hits int
	// Hold is how long a lost reply holds the connection before it closes
	// it; Slow how late a slow reply comes.
	Hold, Slow time.Duration
	// RunTimeout bounds one run of the driver.
	RunTimeout time.Duration
	// Backend holds the Notes, one per run; the audit serves it. Variant is
	// the contract it serves, as serve tells a client that asks.
	Backend contract.Backend
	Variant contract.Variant
	// ServerVersion is the version serve gives in its handshake.
	ServerVersion string
	// Env is added to the driver's environment.
	Env []string
	// Stderr gets the driver's standard error, each line prefixed with the
	// fault; nil drops it.
	Stderr io.Writer
	// Progress, when set, is called as each run begins.
	Progress func(fault string)
}

// The most lines a driver is asked to append, and the longest wait a fault
// may hold a reply: bounds that keep one run within minutes, not days.
const (
	maxLines = 1000
	maxWait  = 30 * time.Minute
)

// Validate refuses the bounds a client audit cannot run at: a field error
// named as audit --client's flag for it is (lines, hits, hold, slow,
// run_timeout).
func (cfg Options) Validate() error {
	switch {
	case cfg.Lines < 1 || cfg.Lines > maxLines:
		return field.Errorf("lines", "is %d: a run appends 1 to %d lines", cfg.Lines, maxLines)
	case cfg.Hits < 1 || cfg.Hits > cfg.Lines:
		return field.Errorf("hits", "is %d: a fault hits 1 to --lines (%d) writes", cfg.Hits, cfg.Lines)
	case cfg.Hold <= 0 || cfg.Hold > maxWait:
		return field.Errorf("hold", "is %s: it must be above 0 and at most %s", cfg.Hold, maxWait)
	case cfg.Slow <= 0 || cfg.Slow > maxWait:
		return field.Errorf("slow", "is %s: it must be above 0 and at most %s", cfg.Slow, maxWait)
	case cfg.RunTimeout <= 0:
		return field.Errorf("run_timeout", "is %s: it must be above 0", cfg.RunTimeout)
	}
	return nil
}

// ServePlaceholder in a driver's command stands for the command that
// starts the server over stdio.
const ServePlaceholder = "{serve}"

// Stdio reports whether the driver's library starts the server itself.
func (cfg Options) Stdio() bool { return strings.Contains(cfg.Command, ServePlaceholder) }

// Run runs the driver once without a fault and once per fault, each against
// a Note of its own served over HTTP on loopback behind the proxy, and judges
// each run from the driver's lines, the requests the server received and the
// Note's final text. A run that fails (the driver exits non-zero, or writes a
// line that is not the protocol's) is recorded with its error and the audit
// goes on; ctx ending stops the run under way and marks the audit
// interrupted. The error is for what stops the audit itself: options that
// do not validate, the Backend.
func Run(ctx context.Context, cfg Options) (results.ClientAudit, error) {
	a := results.ClientAudit{Command: cfg.Command, Lines: cfg.Lines, Seed: cfg.Seed}
	if err := cfg.Validate(); err != nil {
		return a, err
	}
	for _, f := range cfg.Faults {
		if !f.On(cfg.Stdio()) {
			return a, fmt.Errorf("%s is not made over %s", f.Kind, Transport(cfg.Stdio()))
		}
	}
	runs := append([]WireFault{{Kind: ""}}, cfg.Faults...)
	for i, f := range runs {
		if ctx.Err() != nil {
			a.Interrupted = true
			break
		}
		if cfg.Progress != nil {
			cfg.Progress(name(f))
		}
		r, who, err := cfg.run(ctx, i, f)
		if err != nil {
			return a, err
		}
		if ctx.Err() != nil {
			a.Interrupted = true
			break
		}
		if who.client != "" {
			a.Client = who.client
		}
		if who.protocol != "" {
			a.Protocol = who.protocol
		}
		a.Runs = append(a.Runs, r)
	}
	return a, nil
}

func name(f WireFault) string {
	if f.Kind == "" {
		return NoFault
	}
	return f.Kind
}

// plan picks the writes (by the order of their keys' first request) the
// fault of run i hits: Hits of the Lines, from the seed.
func (cfg Options) plan(i int) map[int]bool {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	out := map[int]bool{}
	for _, n := range rng.Perm(cfg.Lines)[:cfg.Hits] {
		out[n+1] = true
	}
	return out
}

// audits numbers the runs of this process, so that each Note is new in a
// Backend several audits share.
var audits atomic.Int64

// who is what the library said of itself.
type who struct{ client, protocol string }

// run is one run of the driver under f.
func (cfg Options) run(ctx context.Context, i int, f WireFault) (results.ClientRun, who, error) {
	r := results.ClientRun{Fault: name(f)}
	note := fmt.Sprintf("client-%d-%d-%s", audits.Add(1), i, r.Fault)
	if err := cfg.Backend.CreateNote(ctx, note); err != nil {
		return r, who{}, fmt.Errorf("creating the run's Note: %w", err)
	}
	tab, err := markdownTab(ctx, cfg.Backend, note)
	if err != nil {
		return r, who{}, err
	}

	// The server, until the run ends.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	srv, err := serve.New(sctx, kept{cfg.Backend}, serve.Options{Version: cfg.ServerVersion, Note: note, Variant: cfg.Variant})
	if err != nil {
		return r, who{}, err
	}
	defer srv.Close()
	plan := map[int]bool{}
	if f.Kind != "" {
		plan = cfg.plan(i)
	}
	// One start for the driver's lines and the requests, set before the
	// goroutine that takes the lines begins.
	start := time.Now()
	lines := &driverLines{max: cfg.Lines, start: start}
	out, err := newOutput(lines.take)
	if err != nil {
		return r, who{}, err
	}
	led := newLedger(f, plan, start, out.sync)
	env := append(os.Environ(), cfg.Env...)
	env = append(env, EnvNoteID+"="+note, EnvTabID+"="+tab, EnvLines+"="+strconv.Itoa(cfg.Lines))
	command := cfg.Command
	var wg sync.WaitGroup
	defer wg.Wait()
	if cfg.Stdio() {
		// The relays, on a Unix socket in a folder of the run's own.
		dir, err := os.MkdirTemp("", "nb-relay-")
		if err != nil {
			out.finish(0)
			return r, who{}, err
		}
		defer os.RemoveAll(dir)
		rel, socket, err := listenRelays(sctx, dir, srv, led, cfg.Hold, cfg.Slow)
		if err != nil {
			out.finish(0)
			return r, who{}, err
		}
		defer rel.close()
		defer stop() // a relay's session ends with the run
		// {serve} becomes one word of the shell: the command line that
		// starts the relay, quoted, for a library that runs it with sh -c.
		start := shell.Line(append(append([]string(nil), cfg.Relay...), socket))
		command = strings.ReplaceAll(command, ServePlaceholder, shell.Quote(start))
		env = append(env, EnvServerCommand+"="+start)
	} else {
		// The server on loopback, and the proxy before it.
		sln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			out.finish(0)
			return r, who{}, err
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = srv.ServeListener(sctx, sln) }()
		defer stop()
		p, err := newProxy(sctx, "http://"+sln.Addr().String()+serve.HTTPPath, led, cfg.Hold, cfg.Slow)
		if err != nil {
			out.finish(0)
			return r, who{}, err
		}
		defer p.close()
		pln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			out.finish(0)
			return r, who{}, err
		}
		hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return sctx }}
		wg.Add(1)
		go func() { defer wg.Done(); _ = hs.Serve(pln) }()
		defer func() {
			stop() // a held reply lets go
			sh, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if hs.Shutdown(sh) != nil {
				hs.Close()
			}
		}()
		env = append(env, EnvServerURL+"=http://"+pln.Addr().String()+serve.HTTPPath)
	}

	calls, derr := cfg.drive(ctx, r.Fault, command, env, out, lines)
	reqs, injected, client, protocol := led.seen()
	r.Injected = injected
	if ctx.Err() != nil {
		return r, who{client, protocol}, nil
	}
	text, err := readText(context.WithoutCancel(ctx), cfg.Backend, note, tab)
	if err != nil {
		return r, who{}, err
	}
	judge(&r, cfg.Lines, calls, reqs, text)
	if derr != nil {
		r.Error = derr.Error()
	}
	return r, who{client, protocol}, nil
}

// kept is a Backend a server's Close leaves open: the audit's, shared by its
// runs.
type kept struct{ contract.Backend }

func (kept) Close() error { return nil }

// A call is one line the driver wrote: one call of the application's.
type call struct {
	at    time.Duration
	Line  int    `json:"line"`
	Tool  string `json:"tool"`
	Key   string `json:"idempotency_key"`
	Told  string `json:"told"`
	Error string `json:"error"`
}

// drive runs the driver and reads its lines.
func (cfg Options) drive(ctx context.Context, fault, command string, env []string, out *output, lines *driverLines) ([]call, error) {
	rctx, cancel := context.WithTimeout(ctx, cfg.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, "sh", "-c", command)
	cmd.Env = env
	ownGroup(cmd)
	cmd.Cancel = func() error { signalGroup(cmd); return nil }
	cmd.WaitDelay = 5 * time.Second
	tail := &lastLines{prefix: fault + ": ", w: cfg.Stderr}
	cmd.Stderr = tail
	cmd.Stdout = out.w
	if err := cmd.Start(); err != nil {
		out.finish(0)
		return nil, fmt.Errorf("starting the driver: %w", err)
	}
	out.started()
	werr := cmd.Wait()
	signalGroup(cmd) // what the driver left running
	out.finish(5 * time.Second)
	calls, bad := lines.calls, lines.bad
	switch {
	case rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return calls, fmt.Errorf("the driver ran out of its time (%s)%s", cfg.RunTimeout, tail.last())
	case bad != nil:
		return calls, bad
	case werr != nil:
		return calls, fmt.Errorf("the driver failed: %v%s", werr, tail.last())
	}
	return calls, nil
}

// driverLines takes a driver's lines (output calls take, in order, from
// one goroutine).
type driverLines struct {
	max   int
	start time.Time
	n     int
	calls []call
	bad   error
}

func (d *driverLines) take(text string) {
	d.n++
	text = strings.TrimSpace(text)
	if text == "" || d.bad != nil {
		return
	}
	var c call
	if err := strictJSON(text, &c); err != nil {
		d.bad = fmt.Errorf("the driver's output line %d is not the protocol's (%v): %.120s", d.n, err, text)
		return
	}
	if err := c.check(d.max); err != nil {
		d.bad = fmt.Errorf("the driver's output line %d: %v", d.n, err)
		return
	}
	c.at = time.Since(d.start)
	d.calls = append(d.calls, c)
}

// strictJSON decodes one JSON object into v, refusing unknown fields.
func strictJSON(text string, v any) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one value")
	}
	return nil
}

func (c call) check(lines int) error {
	switch {
	case c.Line < 1 || c.Line > lines:
		return fmt.Errorf("line %d is not one of 1..%d", c.Line, lines)
	case c.Tool == "":
		return errors.New(`no "tool"`)
	case c.Told != "ok" && c.Told != "error":
		return fmt.Errorf(`"told" is %q, not "ok" or "error"`, c.Told)
	}
	return nil
}

// markdownTab is the Note's markdown tab.
func markdownTab(ctx context.Context, b contract.Backend, note string) (string, error) {
	s, err := b.Session(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	tabs, err := s.ListNoteTabs(ctx, note)
	if err != nil {
		return "", err
	}
	for _, t := range tabs.Tabs {
		if t.Type == contract.TypeMarkdown {
			return t.TabID, nil
		}
	}
	return "", fmt.Errorf("note %s has no markdown tab", note)
}

// readText is the text the run left in the Note.
func readText(ctx context.Context, b contract.Backend, note, tab string) (string, error) {
	s, err := b.Session(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	c, err := s.ReadNoteTab(ctx, note, tab)
	if err != nil {
		return "", fmt.Errorf("reading what the run left: %w", err)
	}
	return c.Text, nil
}

// lastLines passes what is written on, each line prefixed, and keeps the last
// few lines for an error.
type lastLines struct {
	prefix string
	w      io.Writer
	mu     sync.Mutex
	part   []byte
	kept   []string
}

func (l *lastLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, b...)
	for {
		i := strings.IndexByte(string(l.part), '\n')
		if i < 0 {
			break
		}
		line := string(l.part[:i])
		l.part = l.part[i+1:]
		if l.w != nil {
			fmt.Fprintf(l.w, "%s%s\n", l.prefix, line)
		}
		l.kept = append(l.kept, line)
		if len(l.kept) > 3 {
			l.kept = l.kept[1:]
		}
	}
	return len(b), nil
}

func (l *lastLines) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.kept
	if len(l.part) > 0 {
		kept = append(kept, string(l.part))
	}
	if len(kept) == 0 {
		return ""
	}
	return "; its last words: " + strings.Join(kept, " / ")
}
