package validate

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A payload of the user's is read from its file or standard input, bounded
// before it is read whole, and every error names the file.
func TestCheckPayloadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		return path
	}
	ok := write("ok.json", `{"note_id":"n1"}`)
	if res, err := CheckPayloadFile(context.Background(), nil, "list_note_tabs", ok); err != nil || !res.Valid {
		t.Errorf("a valid payload: %+v %v", res, err)
	}
	if res, err := CheckPayloadFile(context.Background(), strings.NewReader(`{}`), "list_note_tabs", "-"); err != nil || res.Valid {
		t.Errorf("an invalid payload on standard input: %+v %v", res, err)
	}
	big := write("big.json", strings.Repeat(" ", 5_000_000))
	for _, tc := range []struct {
		stdin      io.Reader
		tool, file string
		want       string
	}{
		{nil, "list_note_tabs", big, big + ": the payload is 5,000,000 bytes, more than the 4,194,304 a tool call may carry (MCP servers cap a message at 4 MiB)"},
		{strings.NewReader(strings.Repeat(" ", 5_000_000)), "list_note_tabs", "-", "-: the payload is more than the 4,194,304 bytes a tool call may carry (MCP servers cap a message at 4 MiB)"},
		{nil, "list_note_tabs", dir, "reading payload: " + dir + " is a folder"},
		{nil, "list_tabs", ok, ok + `: unknown tool "list_tabs" (want one of list_note_tabs, read_note_tab, read_sheet_range, list_note_attachments, edit_note_tab, create_note_tab, add_note_source)`},
		{strings.NewReader(""), "list_note_tabs", "-", "-: payload is empty, want a JSON object"},
	} {
		if _, err := CheckPayloadFile(context.Background(), tc.stdin, tc.tool, tc.file); err == nil || err.Error() != tc.want {
			t.Errorf("%s %s: %v, want %s", tc.tool, tc.file, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	never, w := io.Pipe()
	defer w.Close() // ends the read left behind
	go cancel()
	if _, err := CheckPayloadFile(ctx, never, "list_note_tabs", "-"); !errors.Is(err, context.Canceled) {
		t.Errorf("standard input that never ends: %v", err)
	}
}
