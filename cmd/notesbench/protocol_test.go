package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/serve"
)

// The flags of how a server is reached are checked before anything
// connects: each bad value is one line naming its flag, exit 2.
func TestWireFlagsRefused(t *testing.T) {
	one, two := "http://127.0.0.1:1/mcp", "http://127.0.0.1:1/mcp,http://127.0.0.1:2/mcp"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--target", one, "--protocol", "2024-01-01"},
			`notesbench: --protocol: "2024-01-01" is not an MCP protocol version notesbench speaks (want 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05)`},
		{[]string{"race", "--protocol", "2025-11-25"}, "notesbench: --protocol: says how a server is reached: give --target too"},
		{[]string{"create", "--target", one, "--balance", "round-robin"},
			"notesbench: --balance: chooses among replicas: give --target several HTTP URLs, comma-separated"},
		{[]string{"race", "--target", two, "--balance", "nearest"}, `notesbench: --balance: unknown balance policy "nearest" (want random or round-robin)`},
		{[]string{"race", "--target", one, "--sessions", "pooled"}, `notesbench: --sessions: unknown sessions setting "pooled" (want per-editor or shared)`},
		{[]string{"race", "--sessions", "shared"}, "notesbench: --sessions: says how a server is reached: give --target too"},
		{[]string{"sources", "--target", one, "--mcp-sessions", "pooled"}, `notesbench: --mcp-sessions: unknown sessions setting "pooled" (want per-editor or shared)`},
		{[]string{"conform", "--target", "embedded", "--protocol", "2025-11-25"}, "notesbench: --protocol: says how a server is reached, not the embedded store"},
		{[]string{"conform", "--target", two + ",", "--balance", "random"}, `notesbench: --target: malformed target`},
		{[]string{"race", "--target", "stdio:x", "--token-file", "../../go.mod"}, "notesbench: --token-file: names the bearer token of an HTTP server: give --target http://…"},
		{[]string{"race", "--target", one, "--token-file", "no-such-token"}, "notesbench: --token-file: no-such-token: no such file or directory"},
	} {
		expectUsageError(t, tc.args, tc.want)
	}
}

// sessionsOnly serves a server of the contract as a server of 2025-11-25
// does: the SDK's handler with sessions, which refuses the stateless
// protocol. It stops when the test ends.
func sessionsOnly(t *testing.T) string {
	t.Helper()
	srv := inMemoryServer(t)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// inMemoryServer is serve on an in-memory store of the contract's default
// variant, closed when the test ends (after what the test's later cleanups
// stop).
func inMemoryServer(t *testing.T) *serve.Server {
	t.Helper()
	v := contract.Variant{}.WithDefaults()
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(context.Background(), b, serve.Options{Version: "test", Describe: "SQLite in memory", Variant: v})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// --protocol pins the version: a server that does not speak it is one line,
// exit 1; the version a run spoke is in its JSON (config.protocol) and in
// the setup line of its table.
func TestProtocolPinnedAndRecorded(t *testing.T) {
	old := sessionsOnly(t)
	code, stdout, stderr := runCLI(t, "race", "--target", old, "--protocol", "2026-07-28", "--seeds", "1", "--edits", "2")
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 1 || stdout != "" || len(lines) != 1 ||
		lines[0] != "notesbench: target "+old+" does not speak MCP protocol 2026-07-28: it negotiated 2025-11-25" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	out := filepath.Join(t.TempDir(), "race.json")
	code, stdout, stderr = runCLI(t, "race", "--target", old, "--seeds", "1", "--edits", "2", "--modes", "note/reapply", "--out", out)
	if code != 0 || !strings.Contains(stdout, "; MCP 2025-11-25, one MCP session per editor") {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	var rec struct {
		Config map[string]any `json:"config"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Config["protocol"] != "2025-11-25" || rec.Config["mcp_sessions"] != "per-editor" {
		t.Errorf("config: %v", rec.Config)
	}
}

// conform against serve --http runs on 2026-07-28 and says so, in its table
// and its JSON.
func TestConformSaysItsProtocol(t *testing.T) {
	v := contract.Variant{}.WithDefaults()
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	srv, err := serve.New(ctx, b, serve.Options{Version: "test", Describe: "SQLite in memory", Variant: v})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
		srv.Close()
	})
	url := "http://" + ln.Addr().String() + serve.HTTPPath
	code, stdout, stderr := conformCLI(t, "--target", url)
	if code != 0 || !strings.Contains(stdout, "; MCP 2026-07-28 (stateless), one MCP session per editor") {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = conformCLI(t, "--target", url, "--format", "json")
	var rec struct {
		Config struct {
			Protocol string `json:"protocol"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); code != 0 || err != nil || rec.Config.Protocol != "2026-07-28" {
		t.Errorf("exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
}

// A client of a server beyond loopback sends its token: --token-file on
// race and conform, refused without it.
func TestTargetTokenFile(t *testing.T) {
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	v := contract.Variant{}.WithDefaults()
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	srv, err := serve.New(ctx, b, serve.Options{Version: "test", Variant: v, HTTP: serve.HTTPOptions{Token: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
		srv.Close()
	})
	url := "http://" + ln.Addr().String() + serve.HTTPPath
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "race", "--target", url, "--seeds", "1", "--edits", "2"); code != 1 || !strings.Contains(stderr, "Unauthorized") {
		t.Errorf("without the token: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "race", "--target", url, "--seeds", "1", "--edits", "2", "--modes", "note/reapply", "--token-file", token); code != 0 {
		t.Errorf("race with the token: exit %d: %s", code, stderr)
	}
	if code, _, stderr := conformCLI(t, "--target", url, "--token-file", token); code != 0 {
		t.Errorf("conform with the token: exit %d: %s", code, stderr)
	}
}
