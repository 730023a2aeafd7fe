package serve

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/store"
)

// The variant's four words: each known word gives its value, a reused key
// replayed (the published answer) is left zero, and each unknown word is a
// field error on its own field, with the enum's message.
func TestParseVariant(t *testing.T) {
	v, err := ParseVariant("tab", "us-suffix", "version-first", "refuse")
	want := contract.Variant{Guard: contract.GuardTab, VersionFormat: contract.FormatUSSuffix, Order: contract.OrderVersionFirst, KeyReuse: contract.KeyRefuse}
	if err != nil || v != want {
		t.Fatalf("got %+v, %v; want %+v", v, err, want)
	}
	if v, err := ParseVariant("note", "counter", "key-first", "replay"); err != nil || v.KeyReuse != "" {
		t.Fatalf("replay: got %+v, %v; want KeyReuse left zero", v, err)
	}
	for _, tc := range []struct {
		words       [4]string
		field, want string
	}{
		{[4]string{"x", "counter", "key-first", "replay"}, "guard", `unknown guard "x" (want none, note or tab)`},
		{[4]string{"note", "y", "key-first", "replay"}, "version_format", `unknown version format "y" (want ms, us-suffix or counter)`},
		{[4]string{"note", "digest", "key-first", "replay"}, "version_format", `unknown version format "digest" (want ms, us-suffix or counter)`},
		{[4]string{"note", "counter", "z", "replay"}, "order", `unknown order "z" (want key-first or version-first)`},
		{[4]string{"note", "counter", "key-first", "w"}, "key_reuse", `unknown key reuse "w" (want replay or refuse)`},
		{[4]string{"x", "y", "z", "w"}, "guard", `unknown guard "x" (want none, note or tab)`},
	} {
		_, err := ParseVariant(tc.words[0], tc.words[1], tc.words[2], tc.words[3])
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Err.Error() != tc.want {
			t.Errorf("%v: %v; want field %s: %s", tc.words, err, tc.field, tc.want)
		}
	}
}

// Validate refuses, as a field error, what no Process can run: an address
// beyond loopback without a token, HTTP options out of bounds, a person
// without a Note, a history that exists; it checks the HTTP options only
// for a Process served over HTTP.
func TestProcessValidate(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	limits := HTTPOptions{MaxSessions: 1, MaxInflight: 1}
	withToken := limits
	withToken.Token = "s3cret"
	for _, tc := range []struct {
		name        string
		p           Process
		field, want string
	}{
		{"stdio", Process{}, "", ""},
		{"stdio, HTTP options unused", Process{Options: Options{HTTP: HTTPOptions{MaxSessions: -1}}}, "", ""},
		{"loopback without token", Process{Addr: "127.0.0.1:0", Options: Options{HTTP: limits}}, "", ""},
		{"beyond loopback with token", Process{Addr: "0.0.0.0:0", Options: Options{HTTP: withToken}}, "", ""},
		{"beyond loopback without token", Process{Addr: "0.0.0.0:0", Options: Options{HTTP: limits}},
			"http", "0.0.0.0:0 serves beyond this machine: name a bearer token with --token-file FILE or $" + TokenEnv},
		{"HTTP options", Process{Addr: "127.0.0.1:0", Options: Options{HTTP: HTTPOptions{MaxInflight: 1}}}, "max_sessions", "must be 1 to 100000"},
		{"person with a Note", Process{Person: &PersonSchedule{Note: "n", Every: time.Second}}, "", ""},
		{"person without a Note", Process{Person: &PersonSchedule{Every: time.Second}}, "person", "needs a Note to edit: --note names it"},
		{"new history", Process{HistoryPath: filepath.Join(dir, "new.jsonl")}, "", ""},
		{"existing history", Process{HistoryPath: existing},
			"history", existing + " holds a history already, which serve never replaces: name another file, or move that one away"},
	} {
		err := tc.p.Validate()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Err.Error() != tc.want {
			t.Errorf("%s: %v; want field %s: %s", tc.name, err, tc.field, tc.want)
		}
	}
}

// closeCounter counts the closes of the Backend it wraps.
type closeCounter struct {
	contract.Backend
	closed int
}

func (b *closeCounter) Close() error {
	b.closed++
	return b.Backend.Close()
}

// withoutPerson serves the sessions of the Backend it wraps without the
// person's actions.
type withoutPerson struct{ contract.Backend }

func (b withoutPerson) Session(ctx context.Context) (contract.Session, error) {
	s, err := b.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	return struct{ contract.Session }{s}, nil
}

// refusingNotes refuses every Note ID, as a Backend with rules of its own
// for them would.
type refusingNotes struct{ contract.Backend }

func (refusingNotes) CreateNote(context.Context, string) error {
	return contract.Invalid("note_id", "not a Note ID here")
}

// down is a Backend whose sessions cannot be opened.
type down struct{ contract.Backend }

func (down) Session(context.Context) (contract.Session, error) {
	return nil, errors.New("database down")
}

func memoryStore(t *testing.T) contract.Backend {
	t.Helper()
	st, err := store.Open(store.InMemory, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Run makes sure the Note exists and says so, creates the history with the
// command line in its header, and serves; the Backend is closed when it
// returns.
func TestProcessRun(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "notes.db")
	for i, want := range []string{"created", "exists"} {
		st, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := &closeCounter{Backend: st}
		var warn bytes.Buffer
		path := filepath.Join(dir, "history"+string(rune('a'+i))+".jsonl")
		p := Process{Options: Options{Note: "n1", Warn: &warn}, HistoryPath: path, Command: "notesbench serve --history " + path,
			Stdio: StdioTransport{Reader: strings.NewReader(""), Writer: &bytes.Buffer{}}, Where: "file " + db}
		if err := p.Run(context.Background(), b); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if b.closed != 1 {
			t.Errorf("run %d: the Backend closed %d times, want once", i+1, b.closed)
		}
		if line := "notesbench serve: Note n1 (" + want + "); a client can start with list_note_tabs on it\n"; !strings.HasPrefix(warn.String(), line) {
			t.Errorf("run %d: the operator read\n%s\nwant first %s", i+1, warn.String(), line)
		}
		h, err := history.ReadFile(context.Background(), path)
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if h.Header.Experiment != history.ExperimentServe || h.Header.Command != p.Command {
			t.Errorf("run %d: history header %+v", i+1, h.Header)
		}
	}
}

// When Run starts no server, it leaves no history behind, closes the
// Backend, and says why: a Note ID the Backend refuses is a field error on
// "note", a Backend that fails names the Note, a person the Backend cannot
// serve is a field error on "person".
func TestProcessRunNotStarted(t *testing.T) {
	for _, tc := range []struct {
		name        string
		wrap        func(contract.Backend) contract.Backend
		person      *PersonSchedule
		field, want string
	}{
		{"refused Note", func(b contract.Backend) contract.Backend { return refusingNotes{b} }, nil,
			"note", "note_id: not a Note ID here"},
		{"failing Backend", func(b contract.Backend) contract.Backend { return down{b} }, nil,
			"", "--note n1: database down"},
		{"person's actions not offered", func(b contract.Backend) contract.Backend { return withoutPerson{b} },
			&PersonSchedule{Note: "n1", Every: time.Second, Actions: []PersonAction{PersonRename}},
			"person", "renames and moves are the person's actions, which this store does not offer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.jsonl")
			b := &closeCounter{Backend: tc.wrap(memoryStore(t))}
			p := Process{Options: Options{Note: "n1"}, Person: tc.person, HistoryPath: path,
				Stdio: StdioTransport{Reader: strings.NewReader(""), Writer: &bytes.Buffer{}}}
			err := p.Run(context.Background(), b)
			var fe *field.Error
			switch {
			case err == nil:
				t.Fatal("served")
			case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field || fe.Err.Error() != tc.want):
				t.Errorf("%v; want field %s: %s", err, tc.field, tc.want)
			case tc.field == "" && (errors.As(err, &fe) || err.Error() != tc.want):
				t.Errorf("%v; want %s, no field error", err, tc.want)
			}
			if b.closed != 1 {
				t.Errorf("the Backend closed %d times, want once", b.closed)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("a history was left behind: %v", err)
			}
		})
	}
}
