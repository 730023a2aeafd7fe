package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
)

// docStore is a small MCP server of documents kept as lines, shared by
// every session: create answers a fresh document's id, which only it
// knows; begin is what each session must call before any other; put takes
// the lines whole and checks the version; patch replaces the first match
// of old; delete removes a document. It records what the profile features
// under test must make it see.
type docStore struct {
	mu      sync.Mutex
	next    int
	docs    map[string]*storedDoc
	begun   map[*mcp.ServerSession]bool
	unbegun []string // calls made by a session before its begin
	patches []string // the old text of each patch
	inits   int      // calls of init
	deleted []string
	// corrupt answers every delete with a JSON-RPC internal error, as a
	// server that can no longer parse its file does.
	corrupt bool
	// slowCreate is how long create takes, slowFirstGet the first get.
	slowCreate, slowFirstGet time.Duration
	gets                     int
}

type storedDoc struct {
	lines   []string
	version int
}

func newDocStore() *docStore {
	return &docStore{docs: map[string]*storedDoc{}, begun: map[*mcp.ServerSession]bool{}}
}

// dialer serves the store over the SDK's in-memory transports, a server
// session per client session.
func (d *docStore) dialer(t testing.TB) Dialer {
	srv := mcp.NewServer(&mcp.Implementation{Name: "docstore", Version: "test"}, nil)
	obj := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	srv.AddTool(&mcp.Tool{Name: "begin", InputSchema: obj(``)}, d.begin)
	srv.AddTool(&mcp.Tool{Name: "create", InputSchema: obj(``)}, d.tool(d.create))
	srv.AddTool(&mcp.Tool{Name: "get", InputSchema: obj(`"id":{"type":"string"}`)}, d.tool(d.get))
	// put declares what a whole-text write may; patch declares what it may
	// not (a patch repeated applies again), as a server may get wrong.
	srv.AddTool(&mcp.Tool{Name: "put", InputSchema: obj(`"id":{"type":"string"},"lines":{"type":"array"},"expected":{"type":"number"}`),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, d.tool(d.put))
	srv.AddTool(&mcp.Tool{Name: "patch", InputSchema: obj(`"id":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}}, d.tool(d.patch))
	srv.AddTool(&mcp.Tool{Name: "init", InputSchema: obj(`"id":{"type":"string"},"text":{"type":"string"}`)}, d.tool(d.init))
	del := d.tool(d.delete)
	if d.corrupt {
		del = func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32603, Message: "Unexpected non-whitespace character after JSON at position 312"}
		}
	}
	srv.AddTool(&mcp.Tool{Name: "delete", InputSchema: obj(`"id":{"type":"string"}`)}, del)
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err == nil {
			t.Cleanup(func() { ss.Close() })
		}
		return ct, err
	}
}

type docArgs struct {
	ID       string   `json:"id"`
	Lines    []string `json:"lines"`
	Expected *int     `json:"expected"`
	Old      *string  `json:"old"`
	New      string   `json:"new"`
	Text     string   `json:"text"`
}

func (d *docStore) begin(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.begun[req.Session] = true
	return textResult(`{}`, false), nil
}

// tool wraps a handler of the store: under its lock, with its arguments
// decoded, a call of a session that has not begun recorded.
func (d *docStore) tool(h func(a docArgs) (string, bool)) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a docArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return textResult("bad arguments: "+err.Error(), true), nil
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.begun[req.Session] {
			d.unbegun = append(d.unbegun, req.Params.Name)
		}
		text, isErr := h(a)
		return textResult(text, isErr), nil
	}
}

func textResult(text string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isErr}
}

func (d *docStore) create(docArgs) (string, bool) {
	time.Sleep(d.slowCreate)
	d.next++
	id := fmt.Sprintf("doc-%d", d.next)
	d.docs[id] = &storedDoc{lines: []string{}, version: 1}
	return fmt.Sprintf(`{"id":%q,"seq":%d}`, id, d.next), false
}

func (d *docStore) get(a docArgs) (string, bool) {
	if d.gets++; d.gets == 1 {
		time.Sleep(d.slowFirstGet)
	}
	doc, ok := d.docs[a.ID]
	if !ok && a.ID == "soft" {
		return `{"status":"missing"}`, false // a refusal in a reply not marked as an error
	}
	if !ok {
		return "no document " + a.ID, true
	}
	b, _ := json.Marshal(map[string]any{"lines": doc.lines, "version": doc.version})
	return string(b), false
}

func (d *docStore) put(a docArgs) (string, bool) {
	doc, ok := d.docs[a.ID]
	if !ok {
		return "no document " + a.ID, true
	}
	if a.Expected != nil && *a.Expected != doc.version {
		return fmt.Sprintf("stale: the document is at %d", doc.version), true
	}
	doc.lines, doc.version = a.Lines, doc.version+1
	return fmt.Sprintf(`{"version":%d}`, doc.version), false
}

func (d *docStore) patch(a docArgs) (string, bool) {
	doc, ok := d.docs[a.ID]
	if !ok || a.Old == nil {
		return "no document " + a.ID, true
	}
	d.patches = append(d.patches, *a.Old)
	text := strings.Join(doc.lines, "\n")
	if !strings.Contains(text, *a.Old) {
		return "no match", true
	}
	text = strings.Replace(text, *a.Old, a.New, 1)
	doc.lines, doc.version = strings.Split(text, "\n"), doc.version+1
	return `{}`, false
}

func (d *docStore) init(a docArgs) (string, bool) {
	doc, ok := d.docs[a.ID]
	if !ok {
		return "no document " + a.ID, true
	}
	d.inits++
	doc.lines, doc.version = strings.Split(a.Text, "\n"), doc.version+1
	return `{}`, false
}

func (d *docStore) delete(a docArgs) (string, bool) {
	if _, ok := d.docs[a.ID]; !ok {
		return "no document " + a.ID, true
	}
	delete(d.docs, a.ID)
	d.deleted = append(d.deleted, a.ID)
	return `{}`, false
}

// docStoreProfile is a format-2 profile of the store: each document's id
// bound from its create, a begin per session, the lines written whole as
// {content_lines} with a version check, and a teardown that deletes it.
const docStoreProfile = `{
  "format_version": 2,
  "name": "docstore",
  "setup": {
    "session": [{"tool": "begin", "arguments": {}}],
    "document": "{run}-{note}",
    "create": [{"tool": "create", "arguments": {}, "bind": {"id": {"pointer": "/id"}, "seq": {"pointer": "/seq"}}}]
  },
  "read": {"tool": "get", "arguments": {"id": "{id}"}, "content": {"pointer": "/lines", "lines": true}, "version": {"pointer": "/version"}},
  "write": {"tool": "put", "arguments": {"id": "{id}", "lines": "{content_lines}", "expected": "{expected_version}"},
    "version_check": true, "version": {"pointer": "/version"}},
  "conflict": {"pattern": "^stale", "current_version": {"from": "text", "pattern": "at (\\d+)"}},
  "version_format": "counter",
  "teardown": [{"tool": "delete", "arguments": {"id": "{id}"}}]
}`

// parseProfile parses a profile of a test, or fails it.
func parseProfile(t testing.TB, data string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse([]byte(data), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openRun opens a run of tg with one Note, n, and a session on it.
func openRun(t *testing.T, tg *Target) (contract.Backend, contract.Session) {
	t.Helper()
	b, err := tg.Open(ctx, contract.RunSpec{Name: "features"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateNote(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// write reads the Note n and writes text on what it read.
func write(t *testing.T, s contract.Session, text string) contract.EditResult {
	t.Helper()
	read, err := s.ReadNoteTab(ctx, "n", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", Operation: contract.OpReplaceText,
		ExpectedVersion: read.Version, IdempotencyKey: "k-" + text, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A document's id bound from its create reaches every call on it; each
// session makes its setup.session calls before its first; the write
// carries the lines as a JSON array and is version-checked; the teardown
// deletes the document when the run ends, and --keep (Options.Keep) leaves
// it, listed by Kept.
func TestProfileFeatures(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			d := newDocStore()
			tg, err := New(ctx, "docstore", d.dialer(t), Options{Profile: parseProfile(t, docStoreProfile), Keep: keep})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			b, s := openRun(t, tg)
			if res := write(t, s, "one\ntwo"); res.Version != "2" {
				t.Errorf("version after the first write %s, want 2", res.Version)
			}
			write(t, s, "one\ntwo\nthree")
			// A stale version is a conflict that names the current one.
			_, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: "n", TabID: "markdown", Operation: contract.OpReplaceText, ExpectedVersion: "1", Text: "x"})
			var ce *contract.ConflictError
			if !errors.As(err, &ce) || ce.Current != "3" {
				t.Errorf("stale write: %v", err)
			}
			// doc-1 was the profile's trial before any run, torn down.
			d.mu.Lock()
			lines := slices.Clone(d.docs["doc-2"].lines)
			d.mu.Unlock()
			if strings.Join(lines, "|") != "one|two|three" {
				t.Errorf("stored lines %q", lines)
			}
			s.Close()
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if len(d.unbegun) > 0 {
				t.Errorf("calls before the session's begin: %v", d.unbegun)
			}
			if keep {
				if !slices.Equal(d.deleted, []string{"doc-1"}) || len(d.docs) != 1 || !slices.Equal(tg.Kept(), []string{b.(*backend).run + "-n"}) {
					t.Errorf("kept: deleted %v, %d documents left, Kept %v", d.deleted, len(d.docs), tg.Kept())
				}
			} else if !slices.Equal(d.deleted, []string{"doc-1", "doc-2"}) || len(d.docs) != 0 || len(tg.Kept()) != 0 {
				t.Errorf("teardown: deleted %v, %d documents left, Kept %v", d.deleted, len(d.docs), tg.Kept())
			}
		})
	}
}

// A teardown the server answers with a JSON-RPC error (a store that can no
// longer parse its file) does not fail the run: the run's own counts stand.
func TestTeardownOnACorruptStore(t *testing.T) {
	d := newDocStore()
	d.corrupt = true
	if err := writeOneRun(t, d, Options{}); err != nil {
		t.Errorf("closing the run: %v", err)
	}
}

// writeOneRun runs one write through the docStore profile on d, with opts,
// and returns the error of closing the run.
func writeOneRun(t *testing.T, d *docStore, opts Options) error {
	t.Helper()
	opts.Profile = parseProfile(t, docStoreProfile)
	tg, err := New(ctx, "docstore", d.dialer(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	b, s := openRun(t, tg)
	write(t, s, "one")
	s.Close()
	return b.Close()
}

// A patch write to an empty document, which has no line to anchor on,
// sends the whole text as the patch's new text with old empty, or makes the
// profile's write.empty call.
func TestPatchFromEmpty(t *testing.T) {
	const patchProfile = `{
  "format_version": 2,
  "name": "docpatch",
  "setup": {"session": [{"tool": "begin", "arguments": {}}], "document": "{run}-{note}",
    "create": [{"tool": "create", "arguments": {}, "bind": {"id": {"pointer": "/id"}}}]},
  "read": {"tool": "get", "arguments": {"id": "{id}"}, "content": {"pointer": "/lines", "lines": true}},
  "write": {"tool": "patch", "arguments": {"id": "{id}", "old": "{old}", "new": "{new}"}, "version_check": false%s}
}`
	for _, tc := range []struct {
		name, empty string
		patches     []string
		inits       int
	}{
		{"the patch", "", []string{"", "one"}, 0},
		{"write.empty", `, "empty": {"tool": "init", "arguments": {"id": "{id}", "text": "{content}"}}`, []string{"one"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocStore()
			tg, err := New(ctx, "docstore", d.dialer(t), Options{Profile: parseProfile(t, fmt.Sprintf(patchProfile, tc.empty))})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			b, s := openRun(t, tg)
			defer b.Close()
			defer s.Close()
			write(t, s, "one")
			write(t, s, "one\ntwo")
			d.mu.Lock()
			defer d.mu.Unlock()
			// doc-1 was the profile's trial before any run (a read alone,
			// for a patch write).
			if !slices.Equal(d.patches, tc.patches) || d.inits != tc.inits || strings.Join(d.docs["doc-2"].lines, "|") != "one|two" {
				t.Errorf("patches %q, inits %d, lines %q", d.patches, d.inits, d.docs["doc-2"].lines)
			}
		})
	}
}

// A document named with --note is never created, so a profile that binds
// variables per document cannot run on one, and is never torn down.
func TestBindsNeedCreate(t *testing.T) {
	d := newDocStore()
	_, err := New(ctx, "docstore", d.dialer(t), Options{Profile: parseProfile(t, docStoreProfile), Note: "mine"})
	if err == nil || err.Error() != "target docstore: profile docstore: setup.create[0] binds variables of each document's, and the document named (mine) is not created" {
		t.Errorf("%v", err)
	}
}

// An error class with is_error false classes replies not marked as errors
// too: a status "missing" in a reply of text is a refusal, not a document
// whose content cannot be found.
func TestErrorClassOfAnOKReply(t *testing.T) {
	data := strings.Replace(docStoreProfile, `"version_format": "counter",`, `"version_format": "counter",
  "errors": [{"is_error": false, "pointer": "/status", "equals": "missing", "class": "refused"}],`, 1)
	data = strings.Replace(data, `"read": {"tool": "get", "arguments": {"id": "{id}"}`, `"read": {"tool": "get", "arguments": {"id": "soft"}`, 1)
	// The profile's trial before any run reads a fresh document of its own:
	// the refusal is its error, one line, before anything is measured.
	d := newDocStore()
	_, err := New(ctx, "docstore", d.dialer(t), Options{Profile: parseProfile(t, data)})
	var re *contract.RefusedError
	if !strings.Contains(fmt.Sprint(err), `read (get refused: "{\"status\":\"missing\"}") (tried on a fresh document before any run)`) {
		t.Errorf("the trial: %v", err)
	}
	// A run's read that gets the reply is a refusal, a fail.
	tg := &Target{prof: &profiled{p: parseProfile(t, data)}, codec: interpreter{}, name: "docstore"}
	sess := &session{b: &backend{t: tg}}
	err = sess.classify(reading, "read", "get", &profile.Reply{Text: `{"status":"missing"}`})
	if !errors.As(err, &re) || contract.OutcomeOf(err) != contract.Fail {
		t.Errorf("%v (%T)", err, err)
	}
}

// An error class "gone" makes a reply that says the document no longer
// exists a definite failure of kind gone, naming the tool and its words;
// another class keeps its meaning.
func TestErrorClassGone(t *testing.T) {
	data := strings.Replace(docStoreProfile, `"version_format": "counter",`, `"version_format": "counter",
  "errors": [{"pattern": "ENOENT", "class": "gone"}, {"pattern": "busy", "class": "refused"}],`, 1)
	tg := &Target{prof: &profiled{p: parseProfile(t, data)}, codec: interpreter{}, name: "docstore"}
	sess := &session{b: &backend{t: tg}}
	err := sess.classify(reading, "read", "get", &profile.Reply{IsError: true, Text: "ENOENT: no such file"})
	var gone *contract.GoneError
	if !errors.As(err, &gone) || contract.OutcomeOf(err) != contract.Fail || contract.KindOf(err) != contract.KindGone ||
		err.Error() != `target docstore: read (get says the document is gone: "ENOENT: no such file")` {
		t.Errorf("%v (%T)", err, err)
	}
	err = sess.classify(reading, "read", "get", &profile.Reply{IsError: true, Text: "busy"})
	if contract.KindOf(err) != contract.KindRefused {
		t.Errorf("a refusal: %v (%T)", err, err)
	}
}

// A run's setup is notesbench's, not the client's under test: a create
// slower than the call timeout (which a pause nemesis sets shorter than its
// pauses) still sets the run up, bounded by the start timeout instead.
func TestSetupIsNotBoundByTheCallTimeout(t *testing.T) {
	d := newDocStore()
	d.slowCreate = 300 * time.Millisecond
	if err := writeOneRun(t, d, Options{CallTimeout: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// The probe before any run (a read on a fresh document) is set-up too: a
// first read slower than --call-timeout, as a loaded machine may answer, is
// no finding.
func TestTheProbeIsNotBoundByTheCallTimeout(t *testing.T) {
	d := newDocStore()
	d.slowFirstGet = 300 * time.Millisecond
	if err := writeOneRun(t, d, Options{CallTimeout: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// The hints a server declares of the tool a profile writes through are the
// target's mapping's, by the server's name; a tool the target does not
// write through is not among them.
func TestMappingHasTheWriteToolsHints(t *testing.T) {
	d := newDocStore()
	tg, err := New(ctx, "docstore", d.dialer(t), Options{Profile: parseProfile(t, docStoreProfile)})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	got := tg.Mapping().Hints
	if want := map[string]contract.ToolHints{"put": {Idempotent: true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("hints %+v, want %+v", got, want)
	}
}
