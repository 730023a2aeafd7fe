package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	t.Setenv(tokenEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http", "0.0.0.0:0"}, "notesbench: --http: 0.0.0.0:0 serves beyond this machine: name a bearer token with --token-file FILE or $NOTESBENCH_TOKEN"},
		{[]string{"serve", "--http", "[::]:0", "--token-file", empty}, "notesbench: --token-file: " + empty + " holds no token"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "missing")}, "notesbench: --token-file: open "},
		{[]string{"serve", "--token-file", token}, "notesbench: --token-file: applies to --http only"},
		{[]string{"serve", "--allow-origin", "http://localhost:6274"}, "notesbench: --allow-origin: applies to --http only"},
		{[]string{"serve", "--max-sessions", "9"}, "notesbench: --max-sessions: applies to --http only"},
		{[]string{"serve", "--http", ":0", "--max-sessions", "0"}, "notesbench: --max-sessions: must be 1 to 100000"},
		{[]string{"serve", "--http", ":0", "--allow-origin", "localhost:6274"}, `notesbench: --allow-origin: "localhost:6274" is not an origin`},
		{[]string{"serve", "--extensions=yes"}, `notesbench: --extensions: unknown extensions setting "yes" (want on-request, all or none)`},
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
