package profile

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// Every built-in profile parses, and its write mode is the one it means.
func TestBuiltins(t *testing.T) {
	want := map[string]WriteMode{"dex": ModeContent, "filesystem": ModeContent, "filesystem-edit": ModePatch, "github": ModeContent, "knowledge-graph": ModeContent, "memory": ModeAppend,
		"memory-bank": ModeContent, "memory-keeper": ModeContent, "memory-libsql": ModeContent,
		"notes": ModeContent, "obsidian": ModeContent, "obsidian-unguarded": ModeContent, "sqlite": ModeContent, "sqlite-npx": ModeContent, "taskmanager": ModeContent}
	got := Builtins()
	if !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("built-ins %v", got)
	}
	for _, name := range got {
		p, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Write.Mode() != want[name] {
			t.Errorf("%s: write mode %s, want %s", name, p.Write.Mode(), want[name])
		}
	}
}

// mutate returns the notes profile as JSON with edit applied to its decoded
// form.
func mutate(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := builtinFS.ReadFile("builtin/notes.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	return out
}

func section(m map[string]any, name string) map[string]any { return m[name].(map[string]any) }

// A bad profile is one line naming the profile field.
func TestBadProfiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"unknown field", func(m map[string]any) { section(m, "read")["argumentz"] = map[string]any{} },
			"profile p.json: read.argumentz: unknown field"},
		{"unknown top-level field", func(m map[string]any) { m["writes"] = true },
			"profile p.json: writes: unknown field"},
		{"unknown variable", func(m map[string]any) {
			section(m, "write")["arguments"].(map[string]any)["text"] = "{contents}"
		}, "profile p.json: write.arguments.text: {contents} is no variable here (want {append}, {content_lines}, {content}, {document}, {expected_version}, {idempotency_key}, {new}, {note}, {old}, {run})"},
		{"a variable of another call", func(m map[string]any) {
			section(m, "read")["arguments"].(map[string]any)["tab_id"] = "{label}"
		}, "profile p.json: read.arguments.tab_id: {label} is no variable here (want {document}, {note}, {run})"},
		{"future format", func(m map[string]any) { m["format_version"] = 3 },
			"profile p.json: format_version: 3 is not a format this notesbench reads (want 1 to 2)"},
		{"no change in the write", func(m map[string]any) {
			delete(section(m, "write")["arguments"].(map[string]any), "text")
		}, "profile p.json: write.arguments: names none of {content} (or {content_lines}), {old}/{new} and {append}: the write would not carry the change"},
		{"a version check without a version", func(m map[string]any) {
			delete(section(m, "write")["arguments"].(map[string]any), "expected_version")
		}, "profile p.json: write.version_check: true, but write.arguments names no {expected_version}"},
		{"a bad pattern", func(m map[string]any) { section(m, "conflict")["pattern"] = "(" },
			"profile p.json: conflict.pattern: not a regular expression: error parsing regexp: missing closing ): `(`"},
		{"one document for every Note", func(m map[string]any) { section(m, "setup")["document"] = "{run}" },
			"profile p.json: setup.document: must name {run} and {note}, so that every Note of every run has a document of its own"},
		{"no read", func(m map[string]any) { delete(m, "read") },
			"profile p.json: read: required"},
		{"a wrong type", func(m map[string]any) { section(m, "write")["version_check"] = "no" },
			"profile p.json: write.version_check: must be boolean (got string)"},
		{"a value not allowed", func(m map[string]any) { section(m, "read")["content"] = map[string]any{"from": "html"} },
			"profile p.json: read.content.from: not one of the values it takes any, structured, text_json, text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(mutate(t, tc.edit), "p.json")
			var pe *Error
			if !errors.As(err, &pe) || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte("{"), "p.json"); err == nil || !strings.HasPrefix(err.Error(), "profile p.json: not JSON") {
		t.Errorf("%v", err)
	}
	if _, err := Load("nosuch"); err == nil || err.Error() != "profile nosuch: no such built-in profile (built-in: "+strings.Join(Builtins(), ", ")+")" {
		t.Errorf("%v", err)
	}
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("%v", err)
	}
	f := filepath.Join(dir, "mine.json")
	os.WriteFile(f, mutate(t, func(m map[string]any) { m["name"] = "mine" }), 0o644)
	if p, err := Load(f); err != nil || p.Name != "mine" {
		t.Errorf("%v", err)
	}
}

// Templates render typed values, drop absent ones, and escape.
func TestRender(t *testing.T) {
	tpl, err := compileTemplate("t", json.RawMessage(`{"a":"{v}","b":"x {s} y","c":["{gone}", 1, "{{lit}}"],"d":"{gone}"}`),
		map[string]bool{"v": true, "s": true, "gone": true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tpl.Render(Vars{"v": Raw("7", []byte("7")), "s": Text(`q"uote`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"a":7,"b":"x q\"uote y","c":[1,"{lit}"]}` {
		t.Errorf("rendered %s", out)
	}
}

// The members of format 2 need format_version 2; a format-1 profile that
// uses one is refused naming it, and the new members are checked.
func TestFormat2MatcherMembers(t *testing.T) {
	v1 := func(edit func(m map[string]any)) func(m map[string]any) {
		return func(m map[string]any) {
			m["format_version"] = 1
			delete(m, "errors")
			delete(m, "version_format")
			delete(section(m, "list"), "position")
			edit(m)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"any_of in format 1", v1(func(m map[string]any) {
			c := section(m, "conflict")
			delete(c, "pointer")
			delete(c, "equals")
			c["any_of"] = []any{map[string]any{"pattern": "stale"}}
		}), "profile p.json: conflict.any_of: needs format_version 2 (this profile says 1)"},
		{"a number to equal in format 1", v1(func(m map[string]any) { section(m, "conflict")["equals"] = 0 }),
			"profile p.json: conflict.equals: needs format_version 2 (this profile says 1)"},
		{"errors in format 1", v1(func(m map[string]any) { m["errors"] = []any{map[string]any{"pattern": "x", "class": "refused"}} }),
			"profile p.json: errors: needs format_version 2 (this profile says 1)"},
		{"one matcher and any_of", func(m map[string]any) { section(m, "conflict")["any_of"] = []any{map[string]any{"pattern": "x"}} },
			"profile p.json: conflict: give one matcher or any_of, not both"},
		{"a class that is none", func(m map[string]any) { m["errors"].([]any)[0].(map[string]any)["class"] = "fatal" },
			"profile p.json: errors[0].class: not one of the values it takes refused, transient, gone"},
		{"a matcher of nothing", func(m map[string]any) {
			m["errors"] = []any{map[string]any{"is_error": false, "class": "refused"}}
		}, "profile p.json: errors[0]: recognizes nothing: give is_error, a pointer with equals, or a pattern"},
		{"versions without a version read", func(m map[string]any) {
			delete(section(m, "read"), "version")
			section(m, "write")["version_check"] = false
		},
			"profile p.json: version_format: says what the server's versions are, but read.version takes none from the reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(mutate(t, tc.edit), "p.json")
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// equals compares JSON values: the number 0 matches 0 and 0.0, not "0";
// a string "0" where the reply holds a number is a *MismatchError.
func TestEqualsComparesJSONValues(t *testing.T) {
	m := &Matcher{Pointer: "/changes", Equals: json.RawMessage(`0`), IsError: new(bool)}
	if err := m.compile("conflict"); err != nil {
		t.Fatal(err)
	}
	for reply, want := range map[string]bool{`{"changes":0}`: true, `{"changes":0.0}`: true, `{"changes":1}`: false, `{}`: false} {
		got, err := m.Match("p", &Reply{Text: reply})
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", reply, got, err, want)
		}
	}
	s := &Matcher{Pointer: "/changes", Equals: json.RawMessage(`"0"`), IsError: new(bool)}
	if err := s.compile("conflict"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Match("p", &Reply{Text: `{"changes":0}`})
	var me *MismatchError
	if !errors.As(err, &me) || me.Field != "conflict" {
		t.Errorf("a string matched against a number: %v", err)
	}
}

// A schema violation is said once, in the profile's words: the field and
// what it must be, not the validator's sentence about the same path again.
func TestSchemaViolationWords(t *testing.T) {
	_, err := Parse(mutate(t, func(m map[string]any) { section(m, "read")["arguments"] = "x" }), "p.json")
	if err == nil || err.Error() != "profile p.json: read.arguments: must be object (got string)" {
		t.Errorf("%v", err)
	}
}

// A profile names the server's tool behind each contract tool it maps, and
// no other.
func TestServerTools(t *testing.T) {
	p, err := Builtin("filesystem")
	if err != nil {
		t.Fatal(err)
	}
	got := p.ServerTools()
	if got[contract.ToolEditNoteTab] != p.Write.Tool || got[contract.ToolReadNoteTab] != p.Read.Tool || p.Write.Tool == "" {
		t.Errorf("server tools %v; the profile writes with %q and reads with %q", got, p.Write.Tool, p.Read.Tool)
	}
	var names []string
	for _, tool := range contract.Tools() {
		names = append(names, tool.Name)
	}
	for tool := range got {
		if !slices.Contains(names, tool) {
			t.Errorf("server tools name %q, not a contract tool", tool)
		}
	}
	if p.AddSource != nil {
		t.Fatal("the filesystem profile maps sources: pick one that lacks them")
	}
	if _, ok := got[contract.ToolAddNoteSource]; ok {
		t.Errorf("server tools %v name a source tool the profile lacks", got)
	}
}
