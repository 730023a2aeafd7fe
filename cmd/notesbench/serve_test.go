package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/serve"

	"zombiezen.com/go/sqlite"
)

// Bad serve input: one line naming the flag, exit 2, nothing served and no
// file touched.
func TestServeBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty-token")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "app.db")
	db, err := sqlite.OpenConn(foreign, sqlite.OpenReadWrite|sqlite.OpenCreate)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := db.PrepareTransient("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
	if err == nil {
		_, err = st.Step()
		st.Finalize()
	}
	if err != nil || db.Close() != nil {
		t.Fatalf("making another program's database: %v", err)
	}
	before, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(serve.TokenEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--guard", "x"}, `notesbench: --guard: unknown guard "x" (want none, note or tab)`},
		{[]string{"serve", "--version-format", "y"}, `notesbench: --version-format: unknown version format "y" (want ms, us-suffix or counter)`},
		{[]string{"serve", "--order", "z"}, `notesbench: --order: unknown order "z" (want key-first or version-first)`},
		{[]string{"serve", "--key-reuse", "w"}, `notesbench: --key-reuse: unknown key reuse "w" (want replay or refuse)`},
		{[]string{"serve", "--http", "0.0.0.0:0"}, "notesbench: --http: 0.0.0.0:0 serves beyond this machine: name a bearer token with --token-file FILE or $NOTESBENCH_TOKEN"},
		{[]string{"serve", "--http", "[::]:0", "--token-file", empty}, "notesbench: --token-file: " + empty + " holds no token"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "missing")}, "notesbench: --token-file: " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{[]string{"serve", "--token-file", token}, "notesbench: --token-file: applies to --http only"},
		{[]string{"serve", "--allow-origin", "http://localhost:6274"}, "notesbench: --allow-origin: applies to --http only"},
		{[]string{"serve", "--max-sessions", "9"}, "notesbench: --max-sessions: applies to --http only"},
		{[]string{"serve", "--http", ":0", "--max-sessions", "0"}, "notesbench: --max-sessions: must be 1 to 100000"},
		{[]string{"serve", "--http", ":0", "--allow-origin", "localhost:6274"}, `notesbench: --allow-origin: "localhost:6274" is not an origin`},
		{[]string{"serve", "--extensions=yes"}, `notesbench: --extensions: unknown extensions setting "yes" (want on-request, all or none)`},
		{[]string{"serve", "--extensions", "bogus"}, `notesbench: --extensions: unknown extensions setting "bogus" (want on-request, all or none)`},
		{[]string{"serve", "--db", "/nonexistent/dir/x.db"}, "notesbench: --db: cannot create /nonexistent/dir/x.db: /nonexistent/dir is not a folder"},
		{[]string{"serve", "--db", "/dev/full"}, "notesbench: --db: /dev/full is not a regular file"},
		{[]string{"serve", "--db", dir}, "notesbench: --db: " + dir + " is a folder, not a database file"},
		{[]string{"serve", "--db", foreign}, "notesbench: --db: " + foreign + " is not a notesbench database (SQLite tables users): it is left as it is"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			expectUsageError(t, tc.args, tc.want)
		})
	}
	after, _ := os.ReadFile(foreign)
	if !bytes.Equal(before, after) {
		t.Fatal("serve changed another program's database")
	}
	if _, err := os.Stat(foreign + "-wal"); !os.IsNotExist(err) {
		t.Fatal("serve switched another program's database to WAL")
	}
}

// A token file is read bounded before it is read: anything but a small
// regular file is one line naming --token-file, exit 2, at once — a device
// that never ends (/dev/zero grew serve to 24 GB), a named pipe that no one
// writes to (the open waited for ever), a folder, a file larger than a token.
func TestServeTokenFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("t"), cli.MaxTokenBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"/dev/zero", "/dev/zero is not a regular file (a device); name a file"},
		{"/dev/urandom", "/dev/urandom is not a regular file (a device); name a file"},
		{fifo, fifo + " is not a regular file (a named pipe); name a file"},
		{dir, dir + " is a folder"},
		{big, big + " is 4,097 bytes, more than a token file holds (4 KiB)"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			expectUsageError(t, []string{"serve", "--http", "127.0.0.1:0", "--token-file", tc.file}, "notesbench: --token-file: "+tc.want)
		})
	}
	// A token of the largest size is read.
	exact := filepath.Join(dir, "exact")
	if err := os.WriteFile(exact, bytes.Repeat([]byte("t"), cli.MaxTokenBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	if token, err := cli.ReadToken(exact); err != nil || len(token) != cli.MaxTokenBytes {
		t.Fatalf("a token of %d bytes: %d bytes read, %v", cli.MaxTokenBytes, len(token), err)
	}
}

// --extensions alone means all; a value after it without "=" is taken as its
// value, there being no argument it could be instead.
func TestServeExtensionsValueAfterASpace(t *testing.T) {
	for _, args := range [][]string{{"serve", "--extensions", "none"}, {"serve", "--extensions=none"}} {
		var got string
		a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, args: args}
		cmd := newServeCmd(a, func(_ context.Context, o *serveOptions) error { got = o.extensions; return nil })
		cmd.SetArgs(args[1:])
		if err := cmd.Execute(); err != nil || got != "none" {
			t.Errorf("%v: extensions %q, err %v; want none", args, got, err)
		}
	}
}

// serve over stdio, as a client would drive it: it says which Note to start
// with, creates it, answers a malformed line with an error and goes on, and
// at the end of its input answers what it read and exits 0.
func TestServeStdio(t *testing.T) {
	db := filepath.Join(t.TempDir(), "notes.db")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"plain","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_note_tabs","arguments":{"note_id":"start"}}}`,
	}, "\n") + "\n"
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve", "--db", db, "--note", "start"}, strings.NewReader(in), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "notesbench serve: Note start (created); a client can start with list_note_tabs on it\n") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
	var replies []struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		replies = append(replies, r)
	}
	if len(replies) != 4 {
		t.Fatalf("%d replies:\n%s", len(replies), stdout.String())
	}
	byID := map[any]int{}
	for i, r := range replies {
		byID[r.ID] = i
	}
	if r := replies[byID[nil]]; r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("not json: %+v", r)
	}
	var init struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal(replies[byID[1.0]].Result, &init)
	if !strings.Contains(init.Instructions, `note_id "start"`) {
		t.Errorf("the instructions do not name the Note: %q", init.Instructions)
	}
	if tools := string(replies[byID[2.0]].Result); strings.Contains(tools, "notesbench_") || strings.Contains(tools, "idempotentHint") {
		t.Errorf("a plain client's tools/list: %s", tools)
	}
	var listed struct {
		IsError    bool `json:"isError"`
		Structured struct {
			NoteID string `json:"note_id"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(replies[byID[3.0]].Result, &listed); err != nil || listed.IsError || listed.Structured.NoteID != "start" {
		t.Errorf("list_note_tabs on the Note: %s", replies[byID[3.0]].Result)
	}

	// Again on the same file: the Note exists.
	stderr.Reset()
	if code := run([]string{"serve", "--db", db, "--note", "start"}, strings.NewReader(""), &stdout, &stderr); code != 0 ||
		!strings.Contains(stderr.String(), "Note start (exists)") {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
}
