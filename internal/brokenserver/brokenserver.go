// Package brokenserver is a small MCP server for notesbench's fault tests
// that breaks one promise on purpose, so that each nemesis can be shown to
// find its breakage: it acknowledges a write before it persists it, it
// truncates a document's file and then writes it, it keeps its idempotency
// keys in process memory, or it records a key after the write's side effect.
// Run correctly (ModeCorrect) it keeps every promise, as a control.
//
// A document is a JSON file in a folder, so that every process serving the
// folder sees the same documents (over stdio each session is a process of
// its own); a call holds a lock on the document's lock file, shared for a
// read, exclusive for a write. The tools and the profile that maps the
// Notes contract onto them (Profile): create_doc, read_doc, write_doc (the
// text whole, with an expected version and a key), add_item (a tab or a
// source, with a key and no version) and list_items.
//
// It is test code: nothing outside tests starts it, and it is not serve.
package brokenserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The promise a server breaks.
const (
	// ModeCorrect keeps every promise: a write is acknowledged once its
	// file is replaced whole (written aside, then renamed), its key with it.
	ModeCorrect = "correct"
	// ModeAckEarly acknowledges a write before it persists it: the reply
	// goes out at once, and the file is written AckDelay later, the lock
	// held until then (so that without a kill nothing is lost).
	ModeAckEarly = "ack-early"
	// ModeTruncate writes a file in place: it truncates it, waits
	// TruncateWindow, then writes it; a kill in between leaves it empty,
	// which reads as an empty document.
	ModeTruncate = "truncate"
	// ModeMemoryKeys keeps its idempotency keys in the memory of the
	// process: another process (a session started again) knows none.
	ModeMemoryKeys = "memory-keys"
	// ModeKeyAfter records a write's key after its side effect, KeyDelay
	// later: a resend in between is applied again.
	ModeKeyAfter = "key-after"
	// ModeStaleLock keeps a lock file of its own while it runs, removed on
	// a clean exit, and refuses to start while a lock of a process that is
	// gone is left: after the first kill it never starts again, as a
	// Markdown vault's server did.
	ModeStaleLock = "stale-lock"
	// ModeEmptied writes a file in place as ModeTruncate does, but an empty
	// file is no document: every call on it is refused, as a task store
	// left at 0 bytes by a kill refused them.
	ModeEmptied = "emptied"
)

// Modes lists the modes.
var Modes = []string{ModeCorrect, ModeAckEarly, ModeTruncate, ModeMemoryKeys, ModeKeyAfter, ModeStaleLock, ModeEmptied}

// The windows of the broken modes: long beside the rest of a write, so that
// a fault made while a write is in flight falls in them.
const (
	AckDelay       = 30 * time.Millisecond
	TruncateWindow = 30 * time.Millisecond
	// KeyDelay passes in small steps, so that a process stopped and
	// continued in the middle of it still has the rest to wait.
	KeyDelay = 60 * time.Millisecond
)

// The environment of a test binary that serves (Main).
const (
	// DirEnv names the folder of the documents; set, the binary serves.
	DirEnv = "NOTESBENCH_TEST_BROKEN_DIR"
	// ModeEnv names the mode (ModeCorrect when unset).
	ModeEnv = "NOTESBENCH_TEST_BROKEN_MODE"
	// HTTPEnv, when set, is the address to serve streamable HTTP on
	// instead of stdio.
	HTTPEnv = "NOTESBENCH_TEST_BROKEN_HTTP"
	// WindowEnv, when set, is how long ModeTruncate and ModeEmptied leave
	// a file empty (a Go duration) instead of TruncateWindow.
	WindowEnv = "NOTESBENCH_TEST_BROKEN_WINDOW"
)

//go:embed profile.json
var profileJSON []byte

// Profile returns the profile (package profile's format) of the server.
func Profile() []byte { return profileJSON }

// Main serves the folder DirEnv names in the mode ModeEnv names, over stdio
// or, with HTTPEnv, over streamable HTTP, and returns the exit status.
func Main() int {
	mode := os.Getenv(ModeEnv)
	if mode == "" {
		mode = ModeCorrect
	}
	srv, err := New(os.Getenv(DirEnv), mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "brokenserver:", err)
		return 2
	}
	if mode == ModeStaleLock {
		unlock, err := takeLock(os.Getenv(DirEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, "brokenserver:", err)
			return 1
		}
		defer unlock()
	}
	if addr := os.Getenv(HTTPEnv); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "brokenserver:", err)
			return 1
		}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		err = http.Serve(ln, h)
		fmt.Fprintln(os.Stderr, "brokenserver:", err)
		return 1
	}
	err = srv.Run(context.Background(), &mcp.StdioTransport{})
	persisting.Wait() // what ModeAckEarly acknowledged is written before a clean exit
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintln(os.Stderr, "brokenserver:", err)
		return 1
	}
	return 0
}

// takeLock is ModeStaleLock's start: it refuses to start while the lock of
// a process that is gone is left in dir, else leaves one of its own, which
// the func it returns removes.
func takeLock(dir string) (func(), error) {
	locks, err := filepath.Glob(filepath.Join(dir, "server-*.pid"))
	if err != nil {
		return nil, err
	}
	for _, l := range locks {
		pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(l), "server-"), ".pid"))
		if err != nil {
			continue
		}
		if syscall.Kill(pid, 0) != nil {
			return nil, fmt.Errorf("a stale lock, %s: the process that left it is gone; remove it to start", filepath.Base(l))
		}
	}
	mine := filepath.Join(dir, fmt.Sprintf("server-%d.pid", os.Getpid()))
	if err := os.WriteFile(mine, nil, 0o644); err != nil {
		return nil, err
	}
	return func() { os.Remove(mine) }, nil
}

// persisting holds ModeAckEarly's writes acknowledged and not yet written.
var persisting sync.WaitGroup

// New returns the server of the documents in dir, breaking the promise mode
// names.
func New(dir, mode string) (*mcp.Server, error) {
	if !contains(Modes, mode) {
		return nil, fmt.Errorf("mode %q is not one of %s", mode, strings.Join(Modes, ", "))
	}
	if dir == "" {
		return nil, errors.New("no folder for the documents")
	}
	d := &docs{dir: dir, mode: mode, keys: map[string]map[string]result{}, window: TruncateWindow}
	if w := os.Getenv(WindowEnv); w != "" {
		var err error
		if d.window, err = time.ParseDuration(w); err != nil || d.window < 0 {
			return nil, fmt.Errorf("%s=%q is not a duration", WindowEnv, w)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "brokenserver-" + mode, Version: "test"}, nil)
	obj := func(required string, props ...string) json.RawMessage {
		p := make([]string, len(props))
		for i, name := range props {
			p[i] = fmt.Sprintf("%q:{}", name)
		}
		return json.RawMessage(`{"type":"object","required":[` + required + `],"properties":{` + strings.Join(p, ",") + `}}`)
	}
	s.AddTool(&mcp.Tool{Name: "create_doc", Description: "Create an empty document.", InputSchema: obj(`"doc"`, "doc")}, d.createDoc)
	s.AddTool(&mcp.Tool{Name: "read_doc", Description: "Read a document's text and version.", InputSchema: obj(`"doc"`, "doc")}, d.readDoc)
	s.AddTool(&mcp.Tool{Name: "write_doc", Description: "Replace a document's text, if its version is the one expected.",
		InputSchema: obj(`"doc","text"`, "doc", "text", "expected_version", "key")}, d.writeDoc)
	s.AddTool(&mcp.Tool{Name: "add_item", Description: "Add a tab or a source to a document.",
		InputSchema: obj(`"doc","kind"`, "doc", "kind", "label", "url", "title", "key")}, d.addItem)
	s.AddTool(&mcp.Tool{Name: "list_items", Description: "List a document's tabs or sources.", InputSchema: obj(`"doc","kind"`, "doc", "kind")}, d.listItems)
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// docs are the documents of a folder, served in one mode.
type docs struct {
	dir  string
	mode string
	// window is how long a write in place leaves its file empty.
	window time.Duration
	// keys are ModeMemoryKeys's: the keys this process has seen, per
	// document.
	mu   sync.Mutex
	keys map[string]map[string]result
}

// state is a document as its file holds it. An empty file is an empty
// document.
type state struct {
	Version int               `json:"version"`
	Text    string            `json:"text"`
	Items   []item            `json:"items"`
	Keys    map[string]result `json:"keys"`
	Seq     int               `json:"seq"`
}

type item struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// result is what a write answered, kept under its key.
type result struct {
	Version int    `json:"version"`
	ID      string `json:"id,omitempty"`
}

type args struct {
	Doc             string `json:"doc"`
	Text            string `json:"text"`
	ExpectedVersion *int   `json:"expected_version"`
	Key             string `json:"key"`
	Kind            string `json:"kind"`
	Label           string `json:"label"`
	URL             string `json:"url"`
	Title           string `json:"title"`
}

func (d *docs) path(doc string) (string, error) {
	if doc == "" || strings.ContainsAny(doc, `/\`) || doc == "." || doc == ".." {
		return "", fmt.Errorf("bad document name %q", doc)
	}
	return filepath.Join(d.dir, doc+".json"), nil
}

// lock takes the document's lock, shared or exclusive, for every process.
func (d *docs) lock(file string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(file+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func (d *docs) load(file string) (state, error) {
	var st state
	b, err := os.ReadFile(file)
	if err != nil {
		return st, err
	}
	if len(b) == 0 && d.mode == ModeEmptied {
		return st, fmt.Errorf("document %s not found: its file is empty", strings.TrimSuffix(filepath.Base(file), ".json"))
	}
	if len(b) == 0 {
		return st, nil // truncated: an empty document
	}
	err = json.Unmarshal(b, &st)
	return st, err
}

// save writes st to file as the mode does.
func (d *docs) save(file string, st state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if d.mode == ModeTruncate || d.mode == ModeEmptied {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		time.Sleep(d.window) // the file is empty all this while
		_, err = f.Write(b)
		return errors.Join(err, f.Close())
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func decode(req *mcp.CallToolRequest) (args, error) {
	var a args
	err := json.Unmarshal(req.Params.Arguments, &a)
	return a, err
}

func reply(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

func refuse(v any) (*mcp.CallToolResult, error) {
	r, err := reply(v)
	if r != nil {
		r.IsError = true
	}
	return r, err
}

func (d *docs) createDoc(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decode(req)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	file, err := d.path(a.Doc)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	unlock, err := d.lock(file, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(file); err == nil {
		return refuse(map[string]string{"error": "exists"})
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.WriteFile(file, []byte(`{"version":1}`), 0o644); err != nil {
		return nil, err
	}
	return reply(map[string]any{"doc": a.Doc, "version": 1})
}

func (d *docs) readDoc(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return d.reading(req, func(_ args, st state) (*mcp.CallToolResult, error) {
		return reply(map[string]any{"text": st.Text, "version": st.Version})
	})
}

// reading answers a call that reads a document: its arguments decoded, the
// document loaded under a shared lock and handed to answer; a refusal for
// bad arguments or a document that does not load.
func (d *docs) reading(req *mcp.CallToolRequest, answer func(a args, st state) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	a, err := decode(req)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	file, err := d.path(a.Doc)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	unlock, err := d.lock(file, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := d.load(file)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	return answer(a, st)
}

func (d *docs) listItems(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return d.reading(req, func(a args, st state) (*mcp.CallToolResult, error) {
		items := []item{}
		for _, it := range st.Items {
			if it.Kind == a.Kind {
				items = append(items, it)
			}
		}
		return reply(map[string]any{"items": items, "version": st.Version})
	})
}

// known returns the result kept under key, as the mode keeps keys.
func (d *docs) known(doc string, st state, key string) (result, bool) {
	if key == "" {
		return result{}, false
	}
	if d.mode == ModeMemoryKeys {
		d.mu.Lock()
		defer d.mu.Unlock()
		r, ok := d.keys[doc][key]
		return r, ok
	}
	r, ok := st.Keys[key]
	return r, ok
}

// remember keeps r under key in st, or, for ModeMemoryKeys, in memory.
func (d *docs) remember(doc string, st *state, key string, r result) {
	if key == "" {
		return
	}
	if d.mode == ModeMemoryKeys {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.keys[doc] == nil {
			d.keys[doc] = map[string]result{}
		}
		d.keys[doc][key] = r
		return
	}
	if st.Keys == nil {
		st.Keys = map[string]result{}
	}
	st.Keys[key] = r
}

// write is every write: under the exclusive lock it loads the document,
// answers a key it knows with its first result, lets apply check and
// change the state, and persists it with its key, as the mode does.
func (d *docs) write(doc, key string, apply func(st *state) (r result, refused *mcp.CallToolResult)) (*mcp.CallToolResult, error) {
	file, err := d.path(doc)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	unlock, err := d.lock(file, true)
	if err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	st, err := d.load(file)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	if r, ok := d.known(doc, st, key); ok {
		return reply(map[string]any{"version": r.Version, "id": r.ID, "replayed": true})
	}
	r, refused := apply(&st)
	if refused != nil {
		return refused, nil
	}
	switch d.mode {
	case ModeKeyAfter:
		// The side effect first, its key later.
		if err := d.save(file, st); err != nil {
			return nil, err
		}
		unlock()
		locked = false
		for range 30 {
			time.Sleep(KeyDelay / 30)
		}
		unlock, err := d.lock(file, true)
		if err != nil {
			return nil, err
		}
		defer unlock()
		now, err := d.load(file)
		if err != nil {
			return nil, err
		}
		d.remember(doc, &now, key, r)
		if err := d.save(file, now); err != nil {
			return nil, err
		}
	case ModeAckEarly:
		// The acknowledgement first; the file later, the lock held till then.
		d.remember(doc, &st, key, r)
		locked = false
		persisting.Go(func() {
			defer unlock()
			time.Sleep(AckDelay)
			if err := d.save(file, st); err != nil {
				fmt.Fprintln(os.Stderr, "brokenserver: persisting late:", err)
			}
		})
	default:
		d.remember(doc, &st, key, r)
		if err := d.save(file, st); err != nil {
			return nil, err
		}
	}
	return reply(map[string]any{"version": r.Version, "id": r.ID, "replayed": false})
}

func (d *docs) writeDoc(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decode(req)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	return d.write(a.Doc, a.Key, func(st *state) (result, *mcp.CallToolResult) {
		if a.ExpectedVersion != nil && *a.ExpectedVersion != st.Version {
			r, _ := refuse(map[string]any{"error": "version_conflict", "current_version": st.Version})
			return result{}, r
		}
		st.Version++
		st.Text = a.Text
		return result{Version: st.Version}, nil
	})
}

func (d *docs) addItem(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decode(req)
	if err != nil {
		return refuse(map[string]string{"error": err.Error()})
	}
	if a.Kind != "tab" && a.Kind != "source" {
		return refuse(map[string]string{"error": "kind must be tab or source"})
	}
	return d.write(a.Doc, a.Key, func(st *state) (result, *mcp.CallToolResult) {
		st.Version++
		st.Seq++
		it := item{Kind: a.Kind, ID: a.Kind + "-" + strconv.Itoa(st.Seq), Label: a.Label, URL: a.URL, Title: a.Title}
		st.Items = append(st.Items, it)
		return result{Version: st.Version, ID: it.ID}, nil
	})
}
