// Command go-sdk is a notesbench client-audit driver for the official MCP Go
// SDK's client (github.com/modelcontextprotocol/go-sdk), over streamable
// HTTP, at the library's defaults: no timeout of its own on a call, the
// transport's default reconnects.
//
// It appends NOTESBENCH_LINES lines to the Note as an application would:
// read the tab, write its text with the line added, the version read and an
// idempotency key of the line's own. After a version conflict it reads again
// and writes again with the same key. After any other error it sends the
// same write again, key and all (-new-key: reads again and writes with a new
// key, as an application that knows nothing of keys does), at most four
// calls a line. It prints one JSON line per call (docs/clients.md).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const tries = 4

func main() {
	newKey := flag.Bool("new-key", false, "after an error, read again and write with a new idempotency key")
	timeout := flag.Duration("timeout", 0, "give up on a call after this long (0: never, the library's default)")
	server := flag.String("server", "", "start the server with this command (sh -c) and speak to it over stdio, instead of $NOTESBENCH_SERVER_URL: -server {serve} in a client audit")
	flag.Parse()
	if err := run(context.Background(), *newKey, *timeout, *server); err != nil {
		fmt.Fprintln(os.Stderr, "go-sdk driver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, newKey bool, timeout time.Duration, server string) error {
	url, note, tab := os.Getenv("NOTESBENCH_SERVER_URL"), os.Getenv("NOTESBENCH_NOTE_ID"), os.Getenv("NOTESBENCH_TAB_ID")
	lines, err := strconv.Atoi(os.Getenv("NOTESBENCH_LINES"))
	if err != nil || (url == "" && server == "") || note == "" || tab == "" {
		return errors.New("run me under notesbench audit --client: NOTESBENCH_SERVER_URL (or -server), NOTESBENCH_NOTE_ID, NOTESBENCH_TAB_ID and NOTESBENCH_LINES must be set")
	}
	session := &conn{client: mcp.NewClient(&mcp.Implementation{Name: "notesbench-driver-go-sdk", Version: "1"}, nil), url: url, server: server, timeout: timeout}
	defer session.close()
	out := json.NewEncoder(os.Stdout)
	prefix := randomHex()
	for i := 1; i <= lines; i++ {
		key := fmt.Sprintf("%s-%d", prefix, i)
		args, err := nextWrite(ctx, session, note, tab, i, key)
		if err != nil {
			return err
		}
		for try := 1; try <= tries; try++ {
			told, msg := call(ctx, session, args)
			out.Encode(map[string]any{"line": i, "tool": "edit_note_tab", "idempotency_key": key, "told": told, "error": msg})
			if told == "ok" {
				break
			}
			if msg == "version_conflict" || newKey {
				if newKey && msg != "version_conflict" {
					key = fmt.Sprintf("%s-%d-%d", prefix, i, try)
				}
				if args, err = nextWrite(ctx, session, note, tab, i, key); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// conn is the application's session, made again after the library closed
// it: the Go SDK ends a session whose response was cut, or whose server
// process exited.
type conn struct {
	client  *mcp.Client
	url     string
	server  string // the command that starts the server over stdio, if any
	timeout time.Duration
	s       *mcp.ClientSession
}

// transport reaches the server: over stdio, a process started anew each
// time; over streamable HTTP, its URL.
func (c *conn) transport() mcp.Transport {
	if c.server != "" {
		return &mcp.CommandTransport{Command: exec.Command("sh", "-c", c.server)}
	}
	return &mcp.StreamableClientTransport{Endpoint: c.url}
}

func (c *conn) call(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	if c.s == nil {
		s, err := c.client.Connect(ctx, c.transport(), nil)
		if err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
		c.s = s
	}
	res, err := c.s.CallTool(ctx, p)
	if errors.Is(err, mcp.ErrConnectionClosed) {
		c.close()
	}
	return res, err
}

func (c *conn) close() {
	if c.s != nil {
		c.s.Close()
		c.s = nil
	}
}

// nextWrite reads the tab and makes the write that appends line i to it. A
// read that fails is made again, at most four times.
func nextWrite(ctx context.Context, s *conn, note, tab string, i int, key string) (map[string]any, error) {
	var res *mcp.CallToolResult
	var err error
	for try := 1; try <= tries; try++ {
		if res, err = s.call(ctx, &mcp.CallToolParams{Name: "read_note_tab", Arguments: map[string]any{"note_id": note, "tab_id": tab}}); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the tab: %w", err)
	}
	var read struct {
		Text    string          `json:"data"` // a markdown tab's data is its text
		Version json.RawMessage `json:"version"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &read); err != nil || res.IsError {
		return nil, fmt.Errorf("reading the tab: %s", b)
	}
	return map[string]any{"note_id": note, "tab_id": tab, "expected_version": read.Version, "idempotency_key": key,
		"operation": "replace_text", "text": read.Text + fmt.Sprintf("line %d\n", i)}, nil
}

// call makes one write and says what the application was told.
func call(ctx context.Context, s *conn, args map[string]any) (told, msg string) {
	res, err := s.call(ctx, &mcp.CallToolParams{Name: "edit_note_tab", Arguments: args})
	if err != nil {
		return "error", err.Error()
	}
	if res.IsError {
		var r struct {
			Error string `json:"error"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &r) == nil && r.Error != "" {
			return "error", r.Error
		}
		return "error", string(b)
	}
	return "ok", ""
}

func randomHex() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
