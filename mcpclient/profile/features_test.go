package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// filesystem returns the built-in filesystem profile, format 1, as JSON
// with edit applied to its decoded form.
func filesystem(t *testing.T, format int, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := builtinFS.ReadFile("builtin/filesystem.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["format_version"] = format
	edit(m)
	out, _ := json.Marshal(m)
	return out
}

func step(tool string, args map[string]any) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	return map[string]any{"tool": tool, "arguments": args}
}

// Each member of format 2 is refused in a profile that says format 1,
// naming it, and read in one that says 2.
func TestFormat2Members(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(m map[string]any)
	}{
		{"setup.session", func(m map[string]any) {
			section(m, "setup")["session"] = []any{step("list_allowed_directories", nil)}
		}},
		{"setup.create[0].bind", func(m map[string]any) {
			section(m, "setup")["create"].([]any)[0].(map[string]any)["bind"] = map[string]any{"made": map[string]any{"pointer": "/content"}}
		}},
		{"teardown", func(m map[string]any) {
			m["teardown"] = []any{step("move_file", map[string]any{"source": "{document}", "destination": "{document}.gone"})}
		}},
		{"write.arguments.content", func(m map[string]any) {
			section(m, "write")["arguments"].(map[string]any)["content"] = "{content|json}"
		}},
		{"write.arguments.content", func(m map[string]any) {
			section(m, "write")["arguments"].(map[string]any)["content"] = "{content_lines}"
		}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := Parse(filesystem(t, 1, tc.edit), "p.json")
			if err == nil || !strings.HasPrefix(err.Error(), "profile p.json: "+tc.field+": ") || !strings.Contains(err.Error(), "needs format_version 2 (this profile says 1)") {
				t.Errorf("format 1: %v", err)
			}
			if _, err := Parse(filesystem(t, 2, tc.edit), "p.json"); err != nil {
				t.Errorf("format 2: %v", err)
			}
		})
	}
	// write.empty belongs to a patch.
	_, err := Parse(filesystem(t, 2, func(m map[string]any) {
		section(m, "write")["empty"] = step("write_file", map[string]any{"path": "{document}", "content": "{content}"})
	}), "p.json")
	if err == nil || err.Error() != "profile p.json: write.empty: is the write of a patch to an empty document, and this write is no patch" {
		t.Errorf("%v", err)
	}
	// A create's bind names a variable the later calls may name, and the
	// document's name may not (it is rendered before the create).
	if _, err := Parse(filesystem(t, 2, func(m map[string]any) {
		section(m, "setup")["create"].([]any)[0].(map[string]any)["bind"] = map[string]any{"made": map[string]any{"pointer": "/content"}}
		section(m, "read")["arguments"].(map[string]any)["note"] = "{made}"
	}), "p.json"); err != nil {
		t.Errorf("a bound variable in read: %v", err)
	}
	_, err = Parse(filesystem(t, 2, func(m map[string]any) {
		section(m, "setup")["create"].([]any)[0].(map[string]any)["bind"] = map[string]any{"made": map[string]any{"pointer": "/content"}}
		section(m, "setup")["document"] = "{dir}/{run}-{note}-{made}"
	}), "p.json")
	if err == nil || !strings.HasPrefix(err.Error(), "profile p.json: setup.document: {made} is no variable here") {
		t.Errorf("%v", err)
	}
}

// Filters: json escapes for inside a JSON string, sql doubles single
// quotes, inc adds one to an integer (of any length), slug makes a name of
// a label, and they chain.
func TestFilters(t *testing.T) {
	tpl, err := compileTemplate("t", json.RawMessage(`{"j":"{s|json}","q":"x = '{s|sql}'","n":"{v|inc}","m":"v = {v|inc}","both":"{s|sql|json}","big":"{b|inc}","f":"tab-{s|slug}.md"}`),
		map[string]bool{"s": true, "v": true, "b": true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tpl.Render(Vars{"s": Text("it's \"q\"\n"), "v": Raw("41", []byte("41")), "b": Text("9223372036854775807")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"j":"it's \\\"q\\\"\\n","q":"x = 'it''s \"q\"\n'","n":42,"m":"v = 42","both":"it''s \\\"q\\\"\\n","big":9223372036854775808,"f":"tab-it-s--q--.md"}`
	if string(out) != want {
		t.Errorf("rendered\n%s\nwant\n%s", out, want)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.Render(Vars{"s": Text("x"), "v": Text("abc"), "b": Text("1")}); err == nil || err.Error() != `{v|inc}: "abc" is not an integer` {
		t.Errorf("%v", err)
	}
	for raw, want := range map[string]string{
		`{"a":"{s|upper}"}`: `t.a: {s|upper}: "upper" is no filter (want json, sql, inc, slug)`,
		`{"a":"{s|}"}`:      `t.a: {s|}: "" is no filter (want json, sql, inc, slug)`,
		`{"a":"{x|sql}"}`:   `t.a: {x} is no variable here (want {b}, {s}, {v})`,
	} {
		_, err := compileTemplate("t", json.RawMessage(raw), map[string]bool{"s": true, "v": true, "b": true})
		if err == nil || err.Error() != "profile : "+want {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// What the strict reading refuses, each naming the field: a pattern with
// no group, a key given twice, a variable no template can name, an empty
// profile name, and a template whose constants take a call past 4 MiB.
func TestStrictness(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"a pattern without a group", filesystem(t, 1, func(m map[string]any) {
			section(m, "read")["content"] = map[string]any{"pointer": "/content", "pattern": "^.*$"}
		}), `profile p.json: read.content.pattern: "^.*$" has no group: the value is what its first group, (…), matches`},
		{"a variable no template can name", filesystem(t, 1, func(m map[string]any) {
			m["variables"] = map[string]any{"my dir": "/tmp"}
		}), `profile p.json: variables.my dir: "my dir": no template can name it (a variable's name is letters, digits and _, not starting with a digit)`},
		{"a bind no template can name", filesystem(t, 1, func(m map[string]any) {
			section(m, "setup")["once"].([]any)[0].(map[string]any)["bind"] = map[string]any{"dir|x": map[string]any{"pointer": "/content", "pattern": "(.+)"}}
		}), `profile p.json: setup.once[0].bind.dir|x: "dir|x": no template can name it (a variable's name is letters, digits and _, not starting with a digit)`},
		{"a key given twice", []byte(strings.Replace(string(filesystem(t, 1, func(map[string]any) {})), `"tool":"read_text_file"`, `"tool":"read_text_file","tool":"read_file"`, 1)),
			`profile p.json: read.tool: "tool" is given twice in one object`},
		{"a variable that renders 200 MB", filesystem(t, 2, func(m map[string]any) {
			m["variables"] = map[string]any{"big": strings.Repeat("x", 100_000)}
			section(m, "write")["arguments"].(map[string]any)["message"] = strings.Repeat("{big}", 2000)
		}), "profile p.json: write.arguments: renders at least 200000034 bytes with its variables' values, more than the 4194304 a call may carry"},
		{"a variable that renders past 4 MiB as members", filesystem(t, 2, func(m map[string]any) {
			m["variables"] = map[string]any{"big": strings.Repeat("x", 100_000)}
			refs := make([]any, 50)
			for i := range refs {
				refs[i] = "{big}"
			}
			section(m, "read")["arguments"].(map[string]any)["extra"] = refs
		}), "profile p.json: read.arguments: renders at least 5000171 bytes with its variables' values, more than the 4194304 a call may carry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.data, "p.json")
			var pe *Error
			if !errors.As(err, &pe) || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
	if _, err := Load(""); err == nil || err.Error() != `profile "": an empty name: give a profile file or a built-in profile (`+strings.Join(Builtins(), ", ")+`)` {
		t.Errorf("%v", err)
	}
}

// A rendering stops at the call limit: a value bound at run time (which no
// check when reading can see) named 2,000 times renders an error, not
// 200 MB.
func TestRenderBound(t *testing.T) {
	tpl, err := compileTemplate("t", json.RawMessage(fmt.Sprintf(`{"a":%q,"b":["{v}","{v}"]}`, strings.Repeat("{v}", 2000))), map[string]bool{"v": true})
	if err != nil {
		t.Fatal(err)
	}
	big := Text(strings.Repeat("x", 100_000))
	if _, err := tpl.Render(Vars{"v": big}); err == nil || err.Error() != "renders more than the 4194304 bytes a call may carry" {
		t.Errorf("%v", err)
	}
	tpl, err = compileTemplate("t", json.RawMessage(`{"b":["{v}","{v}","{v}"]}`), map[string]bool{"v": true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.Render(Vars{"v": Text(strings.Repeat("x", 2<<20))}); err == nil {
		t.Error("6 MiB of members rendered")
	}
	if out, err := tpl.Render(Vars{"v": Text("x")}); err != nil || string(out) != `{"b":["x","x","x"]}` {
		t.Errorf("%s %v", out, err)
	}
}

// A version that is a member's whole value can be left out; one inside a
// string or as an element of an array (an SQL statement's bound values,
// where leaving it out would move the others) cannot.
func TestDrops(t *testing.T) {
	tpl, err := compileTemplate("t", json.RawMessage(`{"a":"{m}","b":["{e}"],"c":"x {s}"}`), map[string]bool{"m": true, "e": true, "s": true})
	if err != nil {
		t.Fatal(err)
	}
	if !tpl.Drops("m") || tpl.Drops("e") || tpl.Drops("s") {
		t.Errorf("drops m %v, e %v, s %v", tpl.Drops("m"), tpl.Drops("e"), tpl.Drops("s"))
	}
}

// from: text without a pattern takes the whole text.
func TestFromTextWhole(t *testing.T) {
	ex := &Extract{From: "text"}
	if err := ex.compile("read.content", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := ex.String("p", &Reply{Text: "a\nb", Structured: map[string]any{"x": 1}}); err != nil || got != "a\nb" {
		t.Errorf("%q %v", got, err)
	}
}

// A profile without write is a read-only server's (format 2): it maps no
// write, so the write capability has no tool and a run that writes is
// refused before it starts, while reads are mapped as ever. At format 1,
// write is required, said so.
func TestReadOnlyProfile(t *testing.T) {
	noWrite := func(m map[string]any) { delete(m, "write") }
	_, err := Parse(filesystem(t, 1, noWrite), "p.json")
	if err == nil || err.Error() != "profile p.json: write: required at format_version 1: a read-only profile, without write, needs format_version 2" {
		t.Errorf("format 1: %v", err)
	}
	p, err := Parse(filesystem(t, 2, noWrite), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if section, tools := p.Capability(contract.CapWrite); section != "write" || tools != nil {
		t.Errorf("write: %s %v", section, tools)
	}
	if _, tools := p.Capability(contract.CapRead); len(tools) != 1 || tools[0] != "read_text_file" {
		t.Errorf("read: %v", tools)
	}
	if got := p.ServerTools(); got[contract.ToolEditNoteTab] != "" || got[contract.ToolReadNoteTab] != "read_text_file" {
		t.Errorf("server tools %v", got)
	}
}

// where picks, from the array the pointer finds, the first item whose
// fields hold what their templates render with the call's variables (a
// search that returns run1.note10 beside run1.note1), then reads the
// pointer in it; no such item is said, with what it looked for. A where
// names only the call's variables, is read only where a call's reply is,
// and is format 2.
func TestWherePicksAnItem(t *testing.T) {
	search := func(m map[string]any) {
		section(m, "read")["content"] = map[string]any{"from": "text_json", "pointer": "/entities", "where": map[string]any{"/name": "{document}"}, "then": "/observations", "lines": true}
	}
	p, err := Parse(filesystem(t, 2, search), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	reply := func(doc string) *Reply {
		return &Reply{Vars: Vars{"document": Text(doc)}, Text: `{"entities": [{"name": "run1.note10", "observations": ["x"]}, {"name": "run1.note1", "observations": ["a", "b"]}]}`}
	}
	if got, err := p.Read.Content.String("p", reply("run1.note1")); err != nil || got != "a\nb" {
		t.Errorf("run1.note1: %q %v", got, err)
	}
	if got, err := p.Read.Content.String("p", reply("run1.note10")); err != nil || got != "x" {
		t.Errorf("run1.note10: %q %v", got, err)
	}
	_, err = p.Read.Content.String("p", reply("run1.note2"))
	if err == nil || !strings.Contains(err.Error(), `found no item, of 2, whose /name is "run1.note2"`) {
		t.Errorf("no item: %v", err)
	}
	for _, tc := range []struct {
		format int
		edit   func(m map[string]any)
		want   string
	}{
		{1, search, "profile p.json: read.content.where: needs format_version 2 (this profile says 1)"},
		{2, func(m map[string]any) {
			search(m)
			section(m, "read")["content"].(map[string]any)["where"] = map[string]any{"/name": "{content}"}
		}, "profile p.json: read.content.where./name: {content} is no variable here"},
		{2, func(m map[string]any) {
			section(m, "read")["content"] = map[string]any{"pointer": "/entities", "then": "/observations"}
		}, "profile p.json: read.content.then: is the pointer in the item a where picks: give where"},
		{2, func(m map[string]any) {
			section(m, "read")["content"] = map[string]any{"from": "text", "where": map[string]any{"/name": "{document}"}}
		}, "profile p.json: read.content.where: picks an item of a JSON array, which plain text is not: read it with text_json"},
		{2, func(m map[string]any) {
			m["list"] = map[string]any{"tool": "list_directory", "arguments": map[string]any{}, "items": map[string]any{"pointer": "/items"},
				"label": map[string]any{"pointer": "/x", "where": map[string]any{"/name": "{document}"}}}
		}, "profile p.json: list.label.where: is not read here: only the extractions of a call's reply pick an item"},
	} {
		if _, err := Parse(filesystem(t, tc.format, tc.edit), "p.json"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// all takes every match of a pattern, as the items of a plain-text or
// Markdown listing: a comma-separated list, a Markdown list; no match is no
// item, not a failure. It needs a pattern, and format 2.
func TestAllMatchesAreItems(t *testing.T) {
	listing := func(pattern string) func(m map[string]any) {
		return func(m map[string]any) {
			m["list"] = map[string]any{"tool": "list_directory", "arguments": map[string]any{}, "items": map[string]any{"from": "text", "pattern": pattern, "all": true},
				"label": map[string]any{"from": "text", "pattern": `^(.+)\.md$`}}
		}
	}
	for _, tc := range []struct {
		pattern, text string
		want          []string
	}{
		{`([^,]+)`, "note1.md,note2.md", []string{"note1.md", "note2.md"}},
		{`(?m)^- (.+)$`, "# Files\n- a.md\n- b.md\n", []string{"a.md", "b.md"}},
		{`(?m)^- (.+)$`, "no files", []string{}},
	} {
		p, err := Parse(filesystem(t, 2, listing(tc.pattern)), "p.json")
		if err != nil {
			t.Fatal(err)
		}
		items, err := p.List.Items.Items("p", &Reply{Text: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.(string))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q in %q: %q", tc.pattern, tc.text, got)
		}
		if len(items) > 0 {
			if label, ok := p.List.Label.ItemString(items[0]); !ok || label+".md" != tc.want[0] {
				t.Errorf("label %q %v", label, ok)
			}
		}
	}
	for _, tc := range []struct {
		format int
		edit   func(m map[string]any)
		want   string
	}{
		{1, listing(`([^,]+)`), "profile p.json: list.items.all: needs format_version 2 (this profile says 1)"},
		{2, func(m map[string]any) {
			listing(`x`)(m)
			section(m, "list")["items"] = map[string]any{"from": "text", "all": true}
		}, "profile p.json: list.items.all: takes every match of the pattern: give a pattern"},
	} {
		if _, err := Parse(filesystem(t, tc.format, tc.edit), "p.json"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
