// Package ghshape is a small MCP server in the shape of GitHub's file tools,
// for notesbench's tests of the github example profile: get_file_contents
// answers a file's blob sha and its content in base64, and
// create_or_update_file writes a file, taking the sha of the blob it
// replaces and answering 409 when that is not the current one. Files live in
// a folder, so that every process serving it sees the same repository; a
// write compares and sets under a lock on the folder. It is not GitHub: the
// shape follows GitHub's REST contents API as its documentation describes
// it, and nothing here was checked against GitHub itself.
package ghshape

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Env names the environment variable that makes a test binary serve a
// folder with Main.
const Env = "NOTESBENCH_TEST_GHSHAPE_DIR"

// Main serves the folder Env names over stdin and stdout and returns the
// process's exit status.
func Main() int {
	srv := New(os.Getenv(Env))
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintln(os.Stderr, "ghshape:", err)
		return 1
	}
	return 0
}

// New returns the server of the repositories kept in dir.
func New(dir string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ghshape", Version: "test"}, nil)
	r := &repo{dir: dir}
	s.AddTool(&mcp.Tool{Name: "get_file_contents", Description: "Get the contents of a file from a repository.",
		InputSchema: json.RawMessage(`{"type":"object","required":["owner","repo","path"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"path":{"type":"string"},"branch":{"type":"string"}}}`)},
		r.get)
	s.AddTool(&mcp.Tool{Name: "create_or_update_file", Description: "Create or update a single file in a repository; updating needs the sha of the file being replaced.",
		InputSchema: json.RawMessage(`{"type":"object","required":["owner","repo","path","content","message","branch"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"path":{"type":"string"},"content":{"type":"string"},"message":{"type":"string"},"branch":{"type":"string"},"sha":{"type":"string"}}}`)},
		r.put)
	return s
}

// repo is the folder the repositories are kept in.
type repo struct{ dir string }

type fileArgs struct {
	Owner   string  `json:"owner"`
	Repo    string  `json:"repo"`
	Path    string  `json:"path"`
	Branch  string  `json:"branch"`
	Content string  `json:"content"`
	Message string  `json:"message"`
	SHA     *string `json:"sha"`
}

// file returns where a file is kept, and false for a path that leaves the
// repository.
func (r *repo) file(a fileArgs) (string, bool) {
	branch := a.Branch
	if branch == "" {
		branch = "main"
	}
	for _, part := range []string{a.Owner, a.Repo, branch} {
		if part == "" || strings.ContainsAny(part, `/\`) || part == "." || part == ".." {
			return "", false
		}
	}
	clean := filepath.Clean("/" + a.Path)
	if a.Path == "" || clean == "/" {
		return "", false
	}
	return filepath.Join(r.dir, a.Owner, a.Repo, branch, clean), true
}

// blobSHA is git's object name of a blob: what GitHub calls a file's sha.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// apiError is an error result as a client of GitHub's API would show it.
func apiError(status int, format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("GitHub API error (%d): %s", status, fmt.Sprintf(format, args...))}}}
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

// target decodes the arguments of a call on one file and returns them with
// the file's path, or the API error the call is answered with instead.
func (r *repo) target(req *mcp.CallToolRequest) (fileArgs, string, *mcp.CallToolResult) {
	var a fileArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
		return a, "", apiError(422, "%v", err)
	}
	path, ok := r.file(a)
	if !ok {
		return a, "", apiError(404, "Not Found")
	}
	return a, path, nil
}

func (r *repo) get(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, path, refused := r.target(req)
	if refused != nil {
		return refused, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return apiError(404, "Not Found"), nil
	}
	if err != nil {
		return nil, err
	}
	// GitHub breaks base64 content into lines of 60 characters.
	enc := base64.StdEncoding.EncodeToString(data)
	var lines []string
	for len(enc) > 60 {
		lines, enc = append(lines, enc[:60]), enc[60:]
	}
	lines = append(lines, enc)
	return jsonResult(map[string]any{"type": "file", "encoding": "base64", "size": len(data), "name": filepath.Base(path),
		"path": a.Path, "sha": blobSHA(data), "content": strings.Join(lines, "\n") + "\n"})
}

func (r *repo) put(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, path, refused := r.target(req)
	if refused != nil {
		return refused, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	switch {
	case exists && a.SHA == nil:
		return apiError(422, `Invalid request. "sha" wasn't supplied.`), nil
	case exists && *a.SHA != blobSHA(old):
		return apiError(409, "%s does not match %s; it is at %s", a.Path, *a.SHA, blobSHA(old)), nil
	case !exists && a.SHA != nil && *a.SHA != "":
		return apiError(404, "Not Found"), nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(a.Content), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	sha := blobSHA([]byte(a.Content))
	return jsonResult(map[string]any{
		"content": map[string]any{"name": filepath.Base(path), "path": a.Path, "sha": sha},
		"commit":  map[string]any{"message": a.Message},
	})
}

// lock takes the folder's lock, which every process serving it shares.
func (r *repo) lock() (func(), error) {
	f, err := os.OpenFile(filepath.Join(r.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
