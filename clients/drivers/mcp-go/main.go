// Command mcp-go is a notesbench client-audit driver for mark3labs/mcp-go's
// client, over streamable HTTP, at the library's defaults (no timeout of its
// own on a call). It is a module of its own, so that notesbench does not
// depend on the library it audits: go build -o mcp-go-driver . here.
//
// It appends NOTESBENCH_LINES lines to the Note as an application would:
// read the tab, write its text with the line added, the version read and an
// idempotency key of the line's own. After a version conflict it reads again
// and writes again with the same key. After any other error it sends the
// same write again, key and all (-new-key: reads again and writes with a new
// key), at most four calls a line. It prints one JSON line per call
// (docs/clients.md).
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
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

const tries = 4

func main() {
	newKey := flag.Bool("new-key", false, "after an error, read again and write with a new idempotency key")
	timeout := flag.Duration("timeout", 0, "give up on a call after this long (0: never, the library's default)")
	flag.Parse()
	if err := run(context.Background(), *newKey, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-go driver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, newKey bool, timeout time.Duration) error {
	url, note, tab := os.Getenv("NOTESBENCH_SERVER_URL"), os.Getenv("NOTESBENCH_NOTE_ID"), os.Getenv("NOTESBENCH_TAB_ID")
	lines, err := strconv.Atoi(os.Getenv("NOTESBENCH_LINES"))
	if err != nil || url == "" || note == "" || tab == "" {
		return errors.New("run me under notesbench audit --client: NOTESBENCH_SERVER_URL, NOTESBENCH_NOTE_ID, NOTESBENCH_TAB_ID and NOTESBENCH_LINES must be set")
	}
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("starting: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "notesbench-driver-mcp-go", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initializing: %w", err)
	}
	s := &conn{c: c, timeout: timeout}
	out := json.NewEncoder(os.Stdout)
	prefix := randomHex()
	for i := 1; i <= lines; i++ {
		key := fmt.Sprintf("%s-%d", prefix, i)
		args, err := nextWrite(ctx, s, note, tab, i, key)
		if err != nil {
			return err
		}
		for try := 1; try <= tries; try++ {
			told, msg := call(ctx, s, args)
			out.Encode(map[string]any{"line": i, "tool": "edit_note_tab", "idempotency_key": key, "told": told, "error": msg})
			if told == "ok" {
				break
			}
			if msg == "version_conflict" || newKey {
				if newKey && msg != "version_conflict" {
					key = fmt.Sprintf("%s-%d-%d", prefix, i, try)
				}
				if args, err = nextWrite(ctx, s, note, tab, i, key); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// conn is the application's client, with its timeout on each call.
type conn struct {
	c       *client.Client
	timeout time.Duration
}

func (s *conn) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return s.c.CallTool(ctx, req)
}

// structured is a tool result's object.
func structured(res *mcp.CallToolResult) []byte {
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return b
	}
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return []byte(t.Text)
		}
	}
	return nil
}

// nextWrite reads the tab and makes the write that appends line i to it. A
// read that fails is made again, at most four times.
func nextWrite(ctx context.Context, s *conn, note, tab string, i int, key string) (map[string]any, error) {
	var res *mcp.CallToolResult
	var err error
	for try := 1; try <= tries; try++ {
		if res, err = s.call(ctx, "read_note_tab", map[string]any{"note_id": note, "tab_id": tab}); err == nil {
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
	b := structured(res)
	if err := json.Unmarshal(b, &read); err != nil || res.IsError {
		return nil, fmt.Errorf("reading the tab: %s", b)
	}
	return map[string]any{"note_id": note, "tab_id": tab, "expected_version": read.Version, "idempotency_key": key,
		"operation": "replace_text", "text": read.Text + fmt.Sprintf("line %d\n", i)}, nil
}

// call makes one write and says what the application was told.
func call(ctx context.Context, s *conn, args map[string]any) (told, msg string) {
	res, err := s.call(ctx, "edit_note_tab", args)
	if err != nil {
		return "error", err.Error()
	}
	if res.IsError {
		var r struct {
			Error string `json:"error"`
		}
		b := structured(res)
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
