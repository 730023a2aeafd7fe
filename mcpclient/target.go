package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
)

// notesProfile is the profile of a Target given none: the Notes contract's
// own tools, the built-in notes profile.
var notesProfile = sync.OnceValues(func() (*profile.Profile, error) { return profile.Builtin("notes") })

// Options configure a Target. The zero value is ready to use.
type Options struct {
	// Note is an existing, fresh Note to run on when the server offers no
	// notesbench_create_note; it serves one run.
	Note string
	// Stderr gets the stderr of spawned servers; nil keeps only its last
	// lines, for error messages.
	Stderr io.Writer
	// ConnectTimeout bounds the MCP handshake; 0 means 10 s, and for the
	// first handshake of a spawned server 2 minutes: a command such as
	// npx -y installs the server on its first run.
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
	served   *ext.Describe // nil when the server does not say
	prof     *profiled     // the profile given, or the notes profile
	replicas []string      // the URLs of a target of several, nil for one

	// firstTimeout bounds the first handshake when ConnectTimeout is 0.
	firstTimeout time.Duration

	mu        sync.Mutex
	conns     map[*conn]bool
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
// them as opts.Balance chooses (replicas.go).
func Dial(ctx context.Context, spec Spec, opts Options) (*Target, error) {
	if err := CheckProtocol(opts.Protocol); err != nil {
		return nil, fmt.Errorf("target %s: %w", spec.Raw, err)
	}
	d, first := httpDialer(spec.URL), time.Duration(0)
	if spec.Stdio() {
		d, first = stdioDialer(spec.Command, opts.Stderr), firstStdioHandshake
	}
	if len(spec.URLs) > 1 || !spec.Stdio() && opts.Token != "" {
		urls := spec.URLs
		if len(urls) == 0 {
			urls = []string{spec.URL}
		}
		var err error
		if d, err = replicaDialer(urls, opts.Balance, opts.BalanceSeed, opts.Token); err != nil {
			return nil, fmt.Errorf("target %s: %w", spec.Raw, err)
		}
	}
	t, err := dialTarget(ctx, spec.Raw, d, opts, first)
	if err == nil && len(spec.URLs) > 1 {
		t.replicas = spec.URLs
	}
	return t, err
}

// firstStdioHandshake bounds the first handshake of a spawned server.
const firstStdioHandshake = 2 * time.Minute

// New is Dial for a server reached through dial, named name in errors.
func New(ctx context.Context, name string, dial Dialer, opts Options) (*Target, error) {
	return dialTarget(ctx, name, dial.dialer(), opts, 0)
}

func dialTarget(ctx context.Context, name string, d dialer, opts Options, first time.Duration) (*Target, error) {
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	t := &Target{name: name, dial: d, opts: opts, firstTimeout: first, conns: map[*conn]bool{},
		client: mcp.NewClient(&mcp.Implementation{Name: "notesbench", Version: version},
			// The extension tools are listed to a client that asks for them.
			&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{ext.Capability: map[string]any{}}}})}
	c, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	t.control = c
	if err := t.listTools(ctx); err != nil {
		t.Close()
		return nil, err
	}
	p, own := opts.Profile, opts.Profile == nil
	if own {
		if p, err = notesProfile(); err != nil {
			t.Close()
			return nil, err
		}
	}
	if err := t.prepare(ctx, p, own); err != nil {
		t.Close()
		return nil, err
	}
	if !own && opts.Note == "" {
		if err := t.probe(ctx); err != nil {
			t.Close()
			return nil, err
		}
	}
	if own && t.Offers(ext.ToolDescribe) {
		var d ext.Describe
		r, err := c.reply(ctx, ext.ToolDescribe, json.RawMessage(`{}`))
		if err == nil && !r.IsError && json.Unmarshal(r.JSON(), &d) == nil {
			t.served = &d
		}
	}
	return t, nil
}

// conn is one MCP client session on a link of its own.
type conn struct {
	t    *Target
	cs   *mcp.ClientSession
	link *link
}

func (t *Target) connect(ctx context.Context) (*conn, error) {
	if c := t.shared(ctx); c != nil {
		return c, nil
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("target %s: closed", t.name)
	}
	l, err := t.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("target %s: starting the server: %w", t.name, err)
	}
	timeout := t.opts.ConnectTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
		if t.control == nil && t.firstTimeout > 0 {
			timeout = t.firstTimeout
		}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, err := t.client.Connect(cctx, l.transport, &mcp.ClientSessionOptions{ProtocolVersion: t.opts.Protocol})
	if err == nil {
		if err = t.negotiated(cs); err != nil {
			cs.Close()
			l.abort()
			return nil, err
		}
	}
	if err != nil {
		died, stray := l.died(), l.stray()
		l.abort()
		switch {
		case died == nil && stray != "":
			return nil, fmt.Errorf("target %s: no MCP handshake: %s", t.name, stray)
		case died != nil:
			return nil, fmt.Errorf("target %s: no MCP handshake: %v", t.name, died)
		case errors.Is(err, syscall.ECONNREFUSED):
			return nil, fmt.Errorf("target %s: unreachable: connection refused", t.name)
		case cctx.Err() != nil && ctx.Err() == nil:
			return nil, fmt.Errorf("target %s: no MCP handshake within %v: is it an MCP server?", t.name, timeout)
		}
		return nil, fmt.Errorf("target %s: no MCP handshake (is it an MCP server?): %v", t.name, err)
	}
	c := &conn{t: t, cs: cs, link: l}
	t.mu.Lock()
	t.conns[c] = true
	t.mu.Unlock()
	return c, nil
}

// close ends the session and what its link holds. Ending a session is best
// effort: a server that died or went away has nothing left to end, and
// saying so would only repeat the error the calls already met.
func (c *conn) close() error {
	c.cs.Close()
	c.link.end()
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
	for tool, err := range t.control.cs.Tools(ctx, nil) {
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

// capabilityTools are the tools of the contract each capability calls.
var capabilityTools = map[contract.Capability][]string{
	contract.CapRead:        {contract.ToolReadNoteTab},
	contract.CapWrite:       {contract.ToolEditNoteTab},
	contract.CapCreate:      {contract.ToolCreateNoteTab},
	contract.CapList:        {contract.ToolListNoteTabs},
	contract.CapAddSource:   {contract.ToolAddNoteSource},
	contract.CapListSources: {contract.ToolListNoteAttachments},
	contract.CapEditTabs:    {contract.ToolEditNoteTab, contract.ToolReadNoteTab},
	contract.CapPerson:      ext.PersonTools,
}

// Require returns an error naming the tools of caps the server does not
// list, and the tools it lists, for the experiment why names; nil when it
// lists them all.
func (t *Target) Require(why string, caps ...contract.Capability) error {
	return t.requireProfiled(why, caps...)
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
func (t *Target) Served() (contract.Variant, bool) {
	if !t.prof.contract {
		return t.servedProfiled(), true
	}
	if t.served == nil {
		return contract.Variant{}, false
	}
	return t.served.Variant.WithDefaults(), true
}

// Describe says what the runs go to: the target, and what the server says it
// is, or "as served" when it says nothing.
func (t *Target) Describe() string {
	if !t.prof.contract {
		return t.describeProfiled() + t.describeWire()
	}
	if t.served == nil {
		return fmt.Sprintf("MCP server %s, contract variant as served%s", t.name, t.describeWire())
	}
	return fmt.Sprintf("MCP server %s (%s; %s; %s)%s", t.name, t.served.Server, t.served.Backend, t.served.Variant.WithDefaults(), t.describeWire())
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

// Close ends every session and process the Target still holds.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return closeAll(&t.mu, t.conns, (*conn).close)
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
