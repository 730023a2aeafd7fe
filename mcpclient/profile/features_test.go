package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
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
// quotes, inc adds one to an integer (of any length), and they chain.
func TestFilters(t *testing.T) {
	tpl, err := compileTemplate("t", json.RawMessage(`{"j":"{s|json}","q":"x = '{s|sql}'","n":"{v|inc}","m":"v = {v|inc}","both":"{s|sql|json}","big":"{b|inc}"}`),
		map[string]bool{"s": true, "v": true, "b": true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tpl.Render(Vars{"s": Text("it's \"q\"\n"), "v": Raw("41", []byte("41")), "b": Text("9223372036854775807")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"j":"it's \\\"q\\\"\\n","q":"x = 'it''s \"q\"\n'","n":42,"m":"v = 42","both":"it''s \\\"q\\\"\\n","big":9223372036854775808}`
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
		`{"a":"{s|upper}"}`: `t.a: {s|upper}: "upper" is no filter (want json, sql, inc)`,
		`{"a":"{s|}"}`:      `t.a: {s|}: "" is no filter (want json, sql, inc)`,
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
	if err := ex.compile("read.content"); err != nil {
		t.Fatal(err)
	}
	if got, err := ex.String("p", &Reply{Text: "a\nb", Structured: map[string]any{"x": 1}}); err != nil || got != "a\nb" {
		t.Errorf("%q %v", got, err)
	}
}
