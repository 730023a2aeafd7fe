package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goClient is a test client of the Go SDK over streamable HTTP, speaking
// the Notes tools as any MCP client would: JSON arguments, result objects.
type goClient struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func dialGoAgent(t *testing.T, url, name string) *goClient {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	// At 2026-07-28 each request is a session of its own, and serve records
	// a client's requests as one session by the connection they come on.
	// net/http returns a connection to its pool after the caller has read
	// the reply, so that a busy machine may dial a second one for the next
	// call: one connection per host keeps the agent one session whatever
	// the load, and its re-read after a conflict judged within it.
	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	t.Cleanup(hc.CloseIdleConnections)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("%s: connecting to %s: %v", name, url, err)
	}
	return &goClient{t: t, cs: cs}
}

func (c *goClient) close() { c.cs.Close() }

// call calls a tool and returns its result object and whether it is an
// error result.
func (c *goClient) call(tool string, args any) (map[string]json.RawMessage, bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		c.t.Fatalf("%s: result %s: %v", tool, b, err)
	}
	return out, res.IsError
}

// read returns the Note's text and the version it read.
func (c *goClient) read() (string, json.RawMessage) {
	c.t.Helper()
	out, isErr := c.call("read_note_tab", map[string]any{"note_id": "note-1", "tab_id": "markdown"})
	var text string
	if isErr || json.Unmarshal(out["data"], &text) != nil {
		c.t.Fatalf("read_note_tab: %v", out)
	}
	return text, out["version"]
}

// waitForChange waits until the Note's version is no longer version: the
// person edited it.
func (c *goClient) waitForChange(version json.RawMessage) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := c.call("list_note_tabs", map[string]any{"note_id": "note-1"})
		if string(out["version"]) != string(version) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the person made no edit in 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// clientWrite is what a write told the client: a conflict, with the
// current version, or a commit.
type clientWrite struct {
	conflict bool
	current  json.RawMessage
}

func (c *goClient) write(text string, expected json.RawMessage, key string) clientWrite {
	c.t.Helper()
	out, isErr := c.call("edit_note_tab", map[string]any{"note_id": "note-1", "tab_id": "markdown", "expected_version": expected,
		"idempotency_key": key, "operation": "replace_text", "text": text})
	if !isErr {
		return clientWrite{}
	}
	if string(out["error"]) != `"version_conflict"` {
		c.t.Fatalf("edit_note_tab: %s", fmt.Sprint(out))
	}
	return clientWrite{conflict: true, current: out["current_version"]}
}
