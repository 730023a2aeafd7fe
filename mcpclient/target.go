package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/nemesis"
)

// Options configure a Target. The zero value is ready to use.
type Options struct {
	// Note is an existing, fresh Note to run on when the server offers no
	// notesbench_create_note; it serves one run.
	Note string
	// Stderr gets the stderr of spawned servers; nil keeps only its last
	// lines, for error messages.
	Stderr io.Writer
	// ConnectTimeout bounds a start of the server, to the end of the MCP
	// handshake; 0 means DefaultConnectTimeout, and for the first
	// handshake of a spawned server 2 minutes: a command such as npx -y
	// installs the server on its first run. A start that runs out of it is
	// made once more, whole, before it counts as failed: one slow start
	// of a server on a loaded machine is no finding.
	ConnectTimeout time.Duration
	// LenientSchemas lets Dial connect to a server whose tool schemas differ
	// from the contract's, reporting the differences in SchemaProblems instead
	// of failing. A missing tool still fails. conform uses it, to report a
	// difference as a failed check.
	LenientSchemas bool
	// Version is the client's version in the handshake.
	Version string
	// Profile, when set, maps the contract onto the server's own tools
	// (package profile); nil means the contract's own tools.
	Profile *profile.Profile
	// Keep skips the profile's teardown: each run's documents stay on the
	// server, for inspection (Target.Kept lists them).
	Keep bool
	// Protocol pins the MCP protocol version every session asks for; a
	// server that does not speak it is an *UnspokenError. "" negotiates the
	// newest the server speaks: 2026-07-28 first (stateless), then
	// 2025-11-25 and older.
	Protocol string
	// Sessions is the session mode; "" means contract.SessionsPerEditor.
	Sessions contract.SessionMode
	// Balance chooses each call's replica, for a target of several URLs;
	// "" means contract.BalanceRandom, seeded with BalanceSeed.
	Balance     contract.Balance
	BalanceSeed uint64
	// Token, for an HTTP target, is the bearer token every request carries
	// (Authorization: Bearer TOKEN), as a server that needs one asks.
	Token string
	// CallTimeout bounds each tool call: a call without a reply by then
	// ends in an info outcome (contract.KindTimeout), and the session goes
	// on. 0 means no bound.
	CallTimeout time.Duration
	// Faults, when set, makes faults between notesbench and the server (see
	// nemesis.Faults and CheckFaults); nil makes none.
	Faults *nemesis.Faults
	// Spawn, for an HTTP target whose URL names PortPlaceholder, is the
	// command that starts the server, its words naming the port the same
	// way: Dial starts it on a free loopback port and waits until it
	// listens, a kill starts it again, and Close ends it.
	Spawn []string

	// TempDir is the folder DirPlaceholder's folder is made in; "" is the
	// system's.
	TempDir string

	// againTimeout, when set, bounds a start made once more instead of
	// ConnectTimeout: a test whose first start must run out of a short time
	// gives the second the time a loaded machine needs.
	againTimeout time.Duration
}

// Target is the contract over MCP: a contract.Target whose Backends are one
// server's Notes, reached over stdio or streamable HTTP. It is safe for
// concurrent use, and so are its Sessions.
type Target struct {
	name   string
	dial   dialer
	opts   Options
	client *mcp.Client

	control  *conn // for Note creation and describe
	tools    map[string]*mcp.Tool
	problems []string
	prof     *profiled // the profile given, or the notes profile
	codec    codec     // how the contract's operations reach the server
	replicas []string  // the URLs of a target of several, nil for one

	// firstTimeout bounds the first handshake when ConnectTimeout is 0.
	firstTimeout time.Duration

	// The fault layer (faults.go): the faults made (nil: none), the server
	// spawned for HTTP (nil: none), the proxy in front of it (nil: none),
	// and the tools whose calls are writes, which faults on the wire take.
	faults     *nemesis.Faults
	spawned    *spawned
	proxy      *proxy
	stdio      bool
	writeTools map[string]bool
	// bg holds what faults left to end in the background (sessions and
	// processes they ended); Close waits for it.
	bg sync.WaitGroup

	// stateDir is the folder DirPlaceholder stands for, removed by Close;
	// "" when the target names none.
	stateDir string

	mu        sync.Mutex
	conns     map[*conn]bool
	runs      map[*runFaults]bool // the runs whose faults someone hears of
	namedUsed bool
	closed    bool
	kept      []string // the documents Keep left in place
	protocol  string   // the version the first session negotiated
}

// Dial connects to the target spec names and checks that it lists the seven
// tools of the contract with the contract's required fields. Close the Target
// when done: it ends every process it spawned. Cancelling ctx kills them too.
//
// A spec of several URLs is one server's replicas: each call goes to one of
// them as opts.Balance chooses (replicas.go); faults are not made between
// notesbench and replicas. With opts.Spawn it first starts the HTTP server
// (see Options.Spawn); with opts.Faults it makes them (see Faults): a fault
// that cannot be made on spec is an error (CheckFaults) before anything
// starts.
func Dial(ctx context.Context, spec TargetSpec, opts Options) (*Target, error) {
	if err := CheckProtocol(opts.Protocol); err != nil {
		return nil, fmt.Errorf("target %s: %w", spec.Raw, err)
	}
	if err := CheckFaults(spec, opts); err != nil {
		return nil, fmt.Errorf("target %s: %w", spec.Raw, err)
	}
	if spec.Stdio() && len(opts.Spawn) > 0 {
		return nil, fmt.Errorf("target %s is spawned already: a command to start it is for an HTTP target", spec.Raw)
	}
	spec, opts, dir, err := withStateDir(spec, opts)
	if err != nil {
		return nil, err
	}
	t, err := dial(ctx, spec, opts, dir)
	if err != nil && dir != "" {
		os.RemoveAll(dir) // no Target holds it
	}
	return t, err
}

// dial is Dial once the placeholders are filled in; the Target it makes
// holds dir, which its Close removes.
func dial(ctx context.Context, spec TargetSpec, opts Options, dir string) (*Target, error) {
	if spec.Stdio() {
		t := newTarget(spec.Raw, stdioDialer(spec.Command, opts.Stderr), opts, firstStdioHandshake)
		t.stdio, t.stateDir = true, dir
		return dialTarget(ctx, t)
	}
	if len(spec.URLs) > 1 || opts.Token != "" {
		if len(spec.URLs) > 1 && (opts.Faults != nil || len(opts.Spawn) > 0) {
			return nil, fmt.Errorf("target %s: faults and a command to start the server are for a target of one URL, not of replicas", spec.Raw)
		}
		urls := spec.URLs
		if len(urls) == 0 {
			urls = []string{spec.URL}
		}
		if opts.Faults != nil || len(opts.Spawn) > 0 {
			return nil, fmt.Errorf("target %s: faults and a command to start the server are not made on a target with a bearer token", spec.Raw)
		}
		d, err := replicaDialer(urls, opts.Balance, opts.BalanceSeed, opts.Token)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", spec.Raw, err)
		}
		t, err := dialTarget(ctx, newTarget(spec.Raw, d, opts, 0))
		if err == nil && len(spec.URLs) > 1 {
			t.replicas = spec.URLs
		}
		return t, err
	}
	var srv *spawned
	switch {
	case len(opts.Spawn) > 0:
		var err error
		if srv, spec, err = spawnServer(ctx, spec, opts); err != nil {
			return nil, err
		}
	case strings.Contains(spec.URL, PortPlaceholder):
		return nil, fmt.Errorf("target %s names %s: give the command that starts the server on it", spec.Raw, PortPlaceholder)
	}
	var px *proxy
	if opts.Faults.On(nemesis.Wire) {
		var err error
		if px, err = newProxy(spec.URL); err != nil {
			if srv != nil {
				srv.stop()
			}
			return nil, err
		}
	}
	t := newTarget(spec.Raw, httpDialer(spec.URL, srv, px), opts, 0)
	t.spawned, t.proxy, t.stateDir = srv, px, dir
	return dialTarget(ctx, t)
}

// DefaultConnectTimeout is Options.ConnectTimeout's default: a Node server
// starts in well under a second idle, and in several on a loaded 2-core
// machine with a dozen others starting beside it.
const DefaultConnectTimeout = time.Minute

// firstStdioHandshake bounds the first handshake of a spawned server.
const firstStdioHandshake = 2 * time.Minute

// New is Dial for a server reached through dial, named name in errors. It
// makes no faults on the wire (opts.Faults may only ask for Kill, which a
// server reached so cannot take).
func New(ctx context.Context, name string, dial Dialer, opts Options) (*Target, error) {
	return dialTarget(ctx, newTarget(name, dial.dialer(), opts, 0))
}

// newTarget returns the Target of name, reached through d, not yet dialled.
func newTarget(name string, d dialer, opts Options, first time.Duration) *Target {
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	return &Target{name: name, dial: d, opts: opts, firstTimeout: first, conns: map[*conn]bool{}, runs: map[*runFaults]bool{}, faults: opts.Faults,
		client: mcp.NewClient(&mcp.Implementation{Name: "notesbench", Version: version},
			// The extension tools are listed to a client that asks for them.
			&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{ext.Capability: map[string]any{}}}})}
}

func dialTarget(ctx context.Context, t *Target) (*Target, error) {
	c, err := t.connect(ctx)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.control = c
	if err := t.listTools(ctx); err != nil {
		t.Close()
		return nil, err
	}
	p, cd, err := chooseCodec(t.opts.Profile)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.prof, t.codec, t.writeTools = newProfiled(p), cd, writeTools(p)
	if err := cd.open(ctx, t); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// writeTools returns the tools whose calls are writes through p.
func writeTools(p *profile.Profile) map[string]bool {
	tools := map[string]bool{}
	if p.Write != nil {
		tools[p.Write.Tool] = true
	}
	if p.Create != nil {
		tools[p.Create.Tool] = true
	}
	if p.AddSource != nil {
		tools[p.AddSource.Tool] = true
	}
	return tools
}

// conn is one MCP client session on a link of its own. With faults, a
// fault may end what the link connects to (the process killed, the
// connection cut, the server started again): the next call then opens the
// session again, on a new link (ready), so cs and link change, under mu.
type conn struct {
	t *Target
	// run is the run whose faults hit the conn; nil for the Target's own.
	run *runFaults

	mu   sync.Mutex // with faults, guards cs and link
	cs   *mcp.ClientSession
	link *link
}

// current returns the conn's session and link.
func (c *conn) current() (*mcp.ClientSession, *link) {
	if c.t.faults == nil {
		return c.cs, c.link
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cs, c.link
}

// session returns the conn's MCP session.
func (c *conn) session() *mcp.ClientSession {
	cs, _ := c.current()
	return cs
}

// ready returns the conn's session and link, opened again when a fault
// ended them: a new process over stdio, a new session over HTTP. A session
// that cannot be opened again is an info outcome of the call that needed it.
func (c *conn) ready(ctx context.Context) (*mcp.ClientSession, *link, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.t.stale(c.link) {
		return c.cs, c.link, nil
	}
	cs, l, err := c.t.handshake(ctx, c.run)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, contract.Indeterminate(contract.KindDied, fmt.Errorf("%w (connecting again after a fault)", err))
	}
	old, oldLink := c.cs, c.link
	c.cs, c.link = cs, l
	c.run.remove(oldLink)
	c.t.bg.Go(func() {
		old.Close()
		oldLink.abort()
	})
	return cs, l, nil
}

// stale reports whether a fault ended what l connects to.
func (t *Target) stale(l *link) bool {
	return l.gone.Load() || (l.proc != nil && l.proc.hasExited()) || (l.wire != nil && l.wire.cut.Load()) ||
		(t.spawned != nil && l.epoch != t.spawned.life())
}

// spawnsPerSession reports whether each session is a server process of its
// own: a stdio target.
func (t *Target) spawnsPerSession() bool { return t.stdio }

func (t *Target) connect(ctx context.Context) (*conn, error) { return t.connectFor(ctx, nil) }

// connectFor opens a conn whose faults are run's (nil: none).
func (t *Target) connectFor(ctx context.Context, run *runFaults) (*conn, error) {
	if c := t.shared(ctx); c != nil {
		return c, nil
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("target %s: closed", t.name)
	}
	cs, l, err := t.handshake(ctx, run)
	if err != nil {
		return nil, err
	}
	c := &conn{t: t, run: run, cs: cs, link: l}
	t.mu.Lock()
	t.conns[c] = true
	t.mu.Unlock()
	return c, nil
}

// handshake opens a link and an MCP session on it; with faults, the link's
// wire is run's. A start that runs out of its time, or whose server exits
// before the handshake, is made once more: one slow start on a loaded
// machine, or one lost to another process starting on the same store at
// that moment (a database another start holds locked), is no finding.
func (t *Target) handshake(ctx context.Context, run *runFaults) (*mcp.ClientSession, *link, error) {
	cs, l, err := t.start(ctx, run, false)
	var slow *slowStartError
	var died *diedStartError
	if (errors.As(err, &slow) || errors.As(err, &died)) && ctx.Err() == nil {
		first := err
		cs, l, err = t.start(ctx, run, true)
		switch {
		case errors.As(err, &slow) && errors.As(first, new(*slowStartError)):
			slow.twice = true
		case errors.As(err, &died) && errors.As(first, new(*diedStartError)):
			died.twice = true
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if t.faults != nil {
		run.add(l)
		go func() {
			cs.Wait()
			l.gone.Store(true)
		}()
	}
	return cs, l, nil
}

// slowStartError is a start that ran out of its time; twice says the
// start made again did too.
type slowStartError struct {
	name    string
	timeout time.Duration
	twice   bool
}

func (e *slowStartError) Error() string {
	again := ""
	if e.twice {
		again = ", at each of two starts"
	}
	return fmt.Sprintf("target %s: no MCP handshake within %v%s (--start-timeout): is it an MCP server?", e.name, e.timeout, again)
}

// diedStartError is a start whose server exited before the handshake;
// twice says the start made again ended so too.
type diedStartError struct {
	name  string
	died  error
	twice bool
}

func (e *diedStartError) Error() string {
	if e.twice {
		return fmt.Sprintf("target %s: no MCP handshake, at each of two starts: %v", e.name, e.died)
	}
	return fmt.Sprintf("target %s: no MCP handshake: %v", e.name, e.died)
}

func (e *diedStartError) Unwrap() error { return e.died }

// startTimeout bounds a start of the server (--start-timeout), and a call
// of a run's setup.
func (t *Target) startTimeout() time.Duration {
	if t.opts.ConnectTimeout > 0 {
		return t.opts.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// start starts the server (or connects to it) and makes the MCP handshake,
// within the start's time; again says it is the start made once more.
func (t *Target) start(ctx context.Context, run *runFaults, again bool) (*mcp.ClientSession, *link, error) {
	var w *wire
	if run != nil {
		w = &wire{run: run}
	}
	l, err := t.dial(ctx, w)
	if err != nil {
		return nil, nil, fmt.Errorf("target %s: starting the server: %w", t.name, err)
	}
	timeout := t.startTimeout()
	if t.opts.ConnectTimeout <= 0 && t.control == nil && t.firstTimeout > 0 {
		timeout = max(timeout, t.firstTimeout)
	}
	if again && t.opts.againTimeout > 0 {
		timeout = t.opts.againTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, err := t.client.Connect(cctx, l.transport, &mcp.ClientSessionOptions{ProtocolVersion: t.opts.Protocol})
	if err == nil {
		if err = t.negotiated(cs); err != nil {
			cs.Close()
			l.abort()
			return nil, nil, err
		}
	}
	if err != nil {
		died, stray := l.died(), l.stray()
		l.abort()
		switch {
		case died == nil && stray != "":
			return nil, nil, fmt.Errorf("target %s: no MCP handshake: %s", t.name, stray)
		case died != nil:
			return nil, nil, &diedStartError{name: t.name, died: died}
		case errors.Is(err, syscall.ECONNREFUSED):
			return nil, nil, fmt.Errorf("target %s: unreachable: connection refused", t.name)
		case cctx.Err() != nil && ctx.Err() == nil:
			return nil, nil, &slowStartError{name: t.name, timeout: timeout}
		}
		return nil, nil, fmt.Errorf("target %s: no MCP handshake (is it an MCP server?): %v", t.name, err)
	}
	return cs, l, nil
}

// close ends the session and what its link holds. Ending a session is best
// effort: a server that died or went away has nothing left to end, and
// saying so would only repeat the error the calls already met.
func (c *conn) close() error {
	cs, l := c.current()
	cs.Close()
	l.end()
	c.run.remove(l)
	c.t.mu.Lock()
	delete(c.t.conns, c)
	c.t.mu.Unlock()
	return nil
}

// listTools reads tools/list and checks the schemas of the contract's tools
// it lists. A tool it does not list is no error here: each experiment asks for
// the tools it uses (Require).
func (t *Target) listTools(ctx context.Context) error {
	t.tools = map[string]*mcp.Tool{}
	for tool, err := range t.control.session().Tools(ctx, nil) {
		if err != nil {
			return t.control.fail("tools/list", err)
		}
		t.tools[tool.Name] = tool
	}
	for _, ct := range contract.Tools() {
		lt, ok := t.tools[ct.Name]
		if !ok {
			continue
		}
		for _, p := range schemaDiff(ct.InputSchema, lt.InputSchema) {
			t.problems = append(t.problems, ct.Name+": "+p)
		}
	}
	if len(t.problems) > 0 && !t.opts.LenientSchemas {
		tool, problem, _ := strings.Cut(t.problems[0], ": ")
		return fmt.Errorf("target %s: tool %s differs from the contract's: %s", t.name, tool, problem)
	}
	return nil
}

// listed returns the names of the tools the server lists, sorted.
func (t *Target) listed() []string {
	names := make([]string, 0, len(t.tools))
	for name := range t.tools {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// LacksError is the one line for a server that lacks tools an experiment
// needs: the target, the tools missing, what needs them, and the tools it
// lists. It is nil when nothing is missing.
func LacksError(target, why string, missing, listed []string) error {
	if len(missing) == 0 {
		return nil
	}
	what := "the tool " + missing[0]
	if len(missing) > 1 {
		what = "the tools " + strings.Join(missing, ", ")
	}
	lists := "no tools"
	if len(listed) > 0 {
		lists = strings.Join(listed, ", ")
	}
	return fmt.Errorf("target %s lacks %s, which %s needs; it lists %s", target, what, why, lists)
}

// schemaDiff lists how a listed input schema differs from the contract's in
// what a client relies on: every required field required, no other field
// required, and every property of the contract declared. Each difference is a
// short phrase: "expected_version is not required".
func schemaDiff(want json.RawMessage, got any) []string {
	type schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var w, g schema
	if err := json.Unmarshal(want, &w); err != nil {
		return []string{"the contract's schema is unreadable: " + err.Error()}
	}
	b, err := json.Marshal(got)
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		return []string{"the input schema is not a JSON Schema object"}
	}
	var out []string
	for _, r := range w.Required {
		if !slices.Contains(g.Required, r) {
			out = append(out, r+" is not required")
		}
	}
	for _, r := range g.Required {
		if !slices.Contains(w.Required, r) {
			out = append(out, r+" is required, the contract leaves it optional")
		}
	}
	var props []string
	for p := range w.Properties {
		props = append(props, p)
	}
	sort.Strings(props)
	for _, p := range props {
		if _, ok := g.Properties[p]; !ok {
			out = append(out, "no property "+p)
		}
	}
	return out
}

// Name returns the target as the user wrote it.
func (t *Target) Name() string { return t.name }

// Offers reports whether the server lists the tool.
func (t *Target) Offers(tool string) bool {
	_, ok := t.tools[tool]
	return ok
}

// offersPerson reports whether the server lists every tool of the person's
// actions (contract.Person).
func (t *Target) offersPerson() bool {
	for _, tool := range ext.PersonTools {
		if !t.Offers(tool) {
			return false
		}
	}
	return true
}

var _ contract.Capable = (*Target)(nil)

// SchemaProblems lists how the listed schemas differ from the contract's, as
// "edit_note_tab: expected_version is not required"; empty when they do not.
func (t *Target) SchemaProblems() []string { return slices.Clone(t.problems) }

// ListedTools returns the seven tools as the server lists them, in the
// contract's order, with securitySchemes read back from _meta.
func (t *Target) ListedTools() []contract.Tool {
	var out []contract.Tool
	for _, ct := range contract.Tools() {
		lt, ok := t.tools[ct.Name]
		if !ok {
			continue
		}
		tool := contract.Tool{Name: lt.Name, Description: lt.Description}
		tool.InputSchema, _ = json.Marshal(lt.InputSchema)
		if lt.Annotations != nil {
			tool.Annotations.ReadOnlyHint = lt.Annotations.ReadOnlyHint
			tool.Annotations.DestructiveHint = lt.Annotations.DestructiveHint == nil || *lt.Annotations.DestructiveHint
		}
		if ss, ok := lt.Meta["securitySchemes"]; ok {
			b, _ := json.Marshal(ss)
			_ = json.Unmarshal(b, &tool.SecuritySchemes)
		}
		out = append(out, tool)
	}
	return out
}

// Served returns the contract variant the server says it serves, and false
// when it does not say (it offers no notesbench_describe).
func (t *Target) Served() (contract.Variant, bool) { return t.codec.served(t) }

// Describe says what the runs go to: the target, what the server says it is
// ("as served" when it says nothing) or the profile that maps it, the wire,
// and the faults it makes, whichever codec speaks to it.
func (t *Target) Describe() string {
	return t.codec.describe(t) + t.describeWire() + t.describeFaults()
}

// VariantError is a run that asks for a contract variant the server does not
// serve, or cannot be known to serve.
type VariantError struct {
	Target string
	Want   contract.Variant
	Served *contract.Variant // nil when the server does not say
}

func (e *VariantError) Error() string {
	if e.Served == nil {
		return fmt.Sprintf("target %s does not say which contract variant it serves, so a run cannot ask for %s: run with the variant as served", e.Target, e.Want)
	}
	return fmt.Sprintf("target %s serves %s, not %s", e.Target, *e.Served, e.Want)
}

// Open returns the Backend of one run: the server's Notes, seen through IDs of
// the run's own (see the package documentation).
//
// A Target cannot choose the contract variant: the server decides. A zero
// run.Variant means the variant as served; any other must equal what the
// server says it serves (notesbench_describe), else Open returns a
// *VariantError. run.Clock is not sent anywhere: the server commits on its
// own clock, which the virtual clock cannot drive, so the caller must refuse a
// run on it.
func (t *Target) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	if run.Variant != (contract.Variant{}) {
		want := run.Variant.WithDefaults()
		served, ok := t.Served()
		if !ok {
			return nil, &VariantError{Target: t.name, Want: want}
		}
		if served != want {
			return nil, &VariantError{Target: t.name, Want: want, Served: &served}
		}
	}
	return t.openProfiled(run)
}

// Close ends every session and process the Target still holds, the server
// it spawned and its proxy.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	err := closeAll(&t.mu, t.conns, (*conn).close)
	t.bg.Wait()
	if t.proxy != nil {
		t.proxy.close()
	}
	if t.spawned != nil {
		t.spawned.stop()
	}
	if t.stateDir != "" {
		// Every process of the server is gone: what it kept goes too.
		err = errors.Join(err, os.RemoveAll(t.stateDir))
	}
	return err
}

// closeAll closes every member of open, a set guarded by mu, all of them
// even when one fails, and returns their errors joined. It holds mu only to
// take the members, since closing one deletes it from the set.
func closeAll[T comparable](mu *sync.Mutex, open map[T]bool, close func(T) error) error {
	mu.Lock()
	members := make([]T, 0, len(open))
	for x := range open {
		members = append(members, x)
	}
	mu.Unlock()
	var errs []error
	for _, x := range members {
		errs = append(errs, close(x))
	}
	return errors.Join(errs...)
}
