package results

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// specTables is every row of the published tables, copied from the write-ups
// by hand: experiment, row key as name=value pairs joined by ';', and every
// published figure of the row as name=value pairs joined by ';', each value as
// Figure.String prints it.
var specTables = []struct{ exp, key, figures string }{
	{"race", "guard=none", "lost=300;lost_claude=125;lost_human=175;conflicts_claude=0;conflicts_human=0;max_tries=1;wall_s=9.6–10.5"},
	{"race", "guard=note;policy=reapply", "lost=0;lost_claude=0;lost_human=0;conflicts_claude=219;conflicts_human=133;max_tries=2;mean_tries_claude=1.41–1.48;mean_tries_human=1.24–1.30;retried_claude=0.41–0.48;wall_s=9.6–10.5"},
	{"race", "guard=note;policy=refresh", "lost=304;lost_claude=117;lost_human=187;conflicts_claude=213;conflicts_human=136;max_tries=3;wall_s=9.6–10.5"},
	{"tabs", "guard=note", "conflicts_claude=130;conflicts_human=87;lost=0"},
	{"tabs", "guard=tab", "conflicts_claude=0;conflicts_human=0;lost=0"},
	{"fast", "version_format=ms", "lost=136;runs_with_loss=5"},
	{"fast", "version_format=us-suffix", "lost=0;runs_with_loss=0"},
	{"bench", "guard=none", "median_us=61.9–63.1;p99_us=420–1330"},
	{"bench", "guard=note", "median_us=57.0–58.8;p99_us=420–1330"},
	{"bench", "guard=tab", "median_us=55.1–61.1;p99_us=420–1330"},
	{"create", "table=a;order=key-first;key_policy=none", "calls_sent=71 / 61 / 63;tabs_created=71 / 61 / 63;duplicates=21 / 11 / 13"},
	{"create", "table=a;order=key-first;key_policy=retry", "calls_sent=71 / 61 / 63;tabs_created=50 / 50 / 50;duplicates=0 / 0 / 0"},
	{"create", "table=b;order=key-first;key_policy=fresh", "tabs_created=63 / 75 / 62;calls_sent=76 / 100 / 74"},
	{"create", "table=b;order=key-first;key_policy=retry", "tabs_created=50 / 50 / 50;calls_sent=67 / 81 / 62"},
	{"create", "table=b;order=key-first;key_policy=after-conflict", "tabs_created=50 / 50 / 50;calls_sent=67 / 81 / 62"},
	{"create", "table=b;order=version-first;key_policy=fresh", "tabs_created=63 / 75 / 62;calls_sent=76 / 100 / 74"},
	{"create", "table=b;order=version-first;key_policy=retry", "tabs_created=50 / 50 / 50;calls_sent=79 / 98 / 72"},
	{"create", "table=b;order=version-first;key_policy=after-conflict", "tabs_created=72 / 73 / 61;calls_sent=94 / 96 / 72"},
	{"sources", "key_policy=uuid", "saved=5400;duplicates=3038;per_session=10.13;browser_flagged=725"},
	{"sources", "key_policy=raw", "saved=4814;duplicates=2452;per_session=8.17"},
	{"sources", "key_policy=normalized", "saved=2362;duplicates=0;per_session=0.00"},
	{"refs", "k=2;ref=position", "correct=0.837;wrong=0.163;not_found=0.000;passed_version_check=1"},
	{"refs", "k=2;ref=type", "correct=0.507;wrong=0.493;not_found=0.000;passed_version_check=1"},
	{"refs", "k=2;ref=label", "correct=0.856;wrong=0.021;not_found=0.123;passed_version_check=1"},
	{"refs", "k=2;ref=id", "correct=1;wrong=0;not_found=0;passed_version_check=1"},
	{"refs", "k=5;ref=position", "correct=0.827;wrong=0.173;not_found=0.000;passed_version_check=1"},
	{"refs", "k=5;ref=type", "correct=0.197;wrong=0.803;not_found=0.000;passed_version_check=1"},
	{"refs", "k=5;ref=label", "correct=0.921;wrong=0.030;not_found=0.050;passed_version_check=1"},
	{"refs", "k=5;ref=id", "correct=1;wrong=0;not_found=0;passed_version_check=1"},
	{"outline", "approach=outline", "writes=1;request_bytes=1673;conflicts_per_deck=0.070"},
	{"outline", "approach=slide-add", "writes=13;request_bytes=5237;conflicts_per_deck=0.817"},
	{"validate", "tool=edit_note_tab;payload=operation slide_add, title, body", "minimal=ok"},
	{"validate", "tool=edit_note_tab;payload=operation slide_add, title, index 0", "minimal=unexpected index"},
	{"validate", "tool=edit_note_tab;payload=operation slides_add, slides [{title}]", "minimal=operation: not in enum"},
	{"validate", "tool=edit_note_tab;payload=operation slides_add_outline, a slide with bullets", "minimal=slides[0]: unexpected bullets"},
	{"validate", "tool=create_note_tab;payload=tab_type slides, 21 slides", "minimal=slides: maxItems 20"},
	{"validate", "tool=create_note_tab;payload=tab_type markdown", "minimal=tab_type: not in enum"},
	{"validate", "tool=add_note_source;payload=url only", "minimal=missing title"},
	{"validate", "tool=list_note_attachments;payload=kind sources, limit 100", "minimal=ok;full=limit: maximum 50"},
}

// pairs splits "a=1;b=2" into a map.
func parsePairs(t *testing.T, s string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for p := range strings.SplitSeq(s, ";") {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			t.Fatalf("bad pair %q", p)
		}
		m[name] = value
	}
	return m
}

func TestEmbeddedParsesStrictly(t *testing.T) {
	// Parse decodes with DisallowUnknownFields and checks every row key and
	// figure against its experiment's declarations.
	if _, err := parsePublished(publishedJSON); err != nil {
		t.Fatal(err)
	}
}

func TestEverySpecValueIsPublished(t *testing.T) {
	rows := 0
	for _, tc := range specTables {
		e, ok := Lookup(tc.exp)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", tc.exp)
		}
		key := parsePairs(t, tc.key)
		r, ok := e.Match(key)
		if !ok {
			t.Errorf("%s %v: no published row", tc.exp, key)
			continue
		}
		for name, v := range key {
			if r.Key[name] != v {
				t.Errorf("%s %v matched row with key %v", tc.exp, key, r.Key)
			}
		}
		want := parsePairs(t, tc.figures)
		if len(r.Figures) != len(want) {
			t.Errorf("%s %v: %d figures published, want %d", tc.exp, key, len(r.Figures), len(want))
		}
		for name, w := range want {
			f, ok := r.Figure(name)
			if got := f.String(); !ok || got != w {
				t.Errorf("%s %v %s = %q (found %v), want %q", tc.exp, key, name, got, ok, w)
			}
		}
	}
	for _, e := range embedded().Experiments {
		for _, tb := range e.Tables {
			rows += len(tb.Rows)
		}
	}
	if rows != len(specTables) {
		t.Errorf("published.json has %d rows, the write-ups %d", rows, len(specTables))
	}
}

func TestExperimentsAndSources(t *testing.T) {
	var names []string
	for _, e := range embedded().Experiments {
		names = append(names, e.Name)
	}
	want := []string{"race", "tabs", "fast", "bench", "create", "sources", "refs", "outline", "validate"}
	if !slices.Equal(names, want) {
		t.Errorf("experiments = %v, want %v", names, want)
	}
	create, _ := Lookup("create")
	if len(create.Tables) != 2 ||
		create.Tables[0].Source.File != "osfoundry-version-check.en.txt" || create.Tables[0].Source.Lang != "en" ||
		create.Tables[1].Source.File != "osfoundry-tab-ids-and-keys.it.txt" || create.Tables[1].Source.Lang != "it" {
		t.Errorf("create tables: want A from the English text and B from the Italian one, got %+v", create.Tables)
	}
	race, _ := Lookup("race")
	if got := race.Tables[0].Params[0]; got != (pubParam{"seeds", "1-5"}) {
		t.Errorf("race first param = %+v, want seeds 1-5", got)
	}
	if !strings.Contains(race.Tables[0].Setup, "Python 3.9.6") || !strings.Contains(race.Tables[0].Setup, "real clock") {
		t.Errorf("race setup = %q", race.Tables[0].Setup)
	}
	if len(race.Tables[0].Facts) == 0 || !strings.Contains(strings.Join(race.Tables[0].Facts, "\n"), "41–48 %") {
		t.Errorf("race facts lack the 41–48 %% of second tries: %q", race.Tables[0].Facts)
	}
	sources, _ := Lookup("sources")
	if !strings.Contains(strings.Join(sources.Tables[0].Facts, "\n"), "725 of the 3,038") {
		t.Errorf("sources facts lack the browser check: %q", sources.Tables[0].Facts)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error(`Lookup("nope") found something`)
	}
}

func TestMatchAndLabel(t *testing.T) {
	race, _ := Lookup("race")
	// guard none does not depend on the policy, so any policy matches it.
	r, ok := race.Match(map[string]string{"guard": "none", "policy": "refresh"})
	if !ok || r.Figures["lost"].String() != "300" || race.Label(r) != "none" {
		t.Errorf("race none: got %v %q", ok, race.Label(r))
	}
	r, _ = race.Match(map[string]string{"guard": "note", "policy": "refresh"})
	if race.Label(r) != "note refresh" || r.Figures["lost"].Value() != 304 {
		t.Errorf("race note refresh: got %q lost %v", race.Label(r), r.Figures["lost"])
	}
	if _, ok := race.Match(map[string]string{"guard": "tab", "policy": "reapply"}); ok {
		t.Error("race matched guard tab, which was not published")
	}
	if _, ok := race.Match(map[string]string{"guard": "note"}); ok {
		t.Error("race matched guard note without a policy")
	}
	create, _ := Lookup("create")
	r, _ = create.Match(map[string]string{"table": "b", "order": "version-first", "key_policy": "after-conflict"})
	if create.Label(r) != "b version-first after-conflict" || !slices.Equal(r.Figures["tabs_created"].Seeds(), []float64{72, 73, 61}) {
		t.Errorf("create B: got %q %v", create.Label(r), r.Figures["tabs_created"])
	}
}

func TestFigureKinds(t *testing.T) {
	race, _ := Lookup("race")
	r, _ := race.Match(map[string]string{"guard": "note", "policy": "reapply"})
	mt := r.Figures["mean_tries_human"]
	if lo, hi := mt.Range(); mt.Kind() != FigureRange || lo != 1.24 || hi != 1.30 || mt.Midpoint() != 1.27 {
		t.Errorf("mean_tries_human = %v kind %v", mt, mt.Kind())
	}
	if f := r.Figures["conflicts_claude"]; f.Kind() != FigurePoint || f.Value() != 219 {
		t.Errorf("conflicts_claude = %v kind %v", f, f.Kind())
	}
	v, _ := Lookup("validate")
	if f := v.Tables[0].Rows[3].Figures["minimal"]; f.Kind() != FigureText || f.Text() != "slides[0]: unexpected bullets" {
		t.Errorf("validate row 4 minimal = %v kind %v", f, f.Kind())
	}
	var zero Figure
	if !zero.IsZero() || zero.String() != "" || zero.Midpoint() != 0 {
		t.Errorf("zero Figure: %v", zero)
	}
}

func TestFigureJSONRoundTrip(t *testing.T) {
	first, err := json.Marshal(embedded())
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePublished(first)
	if err != nil {
		t.Fatalf("parsePublished(Marshal(embedded)): %v", err)
	}
	second, _ := json.Marshal(p)
	if string(first) != string(second) {
		t.Error("published figures change on a JSON round trip")
	}
	if !strings.Contains(string(first), `"conflicts_per_deck":0.070`) || !strings.Contains(string(first), `"wall_s":{"low":9.6,"high":10.5}`) {
		t.Error("numbers are not written as published")
	}
	got, _ := json.Marshal([]Figure{PointFigure(0.5), RangeFigure(1, 2.5), SeedsFigure(3, 4), TextFigure("ok"), {}})
	if want := `[0.5,{"low":1,"high":2.5},[3,4],"ok",null]`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

func TestFigureUnmarshalErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`null`, `figure: want a number, range object, per-seed list or text, got null`},
		{`true`, `figure: want a number, range object, per-seed list or text, got true`},
		{`[]`, `figure: per-seed list is empty`},
		{`""`, `figure: empty text`},
		{`["1"]`, `figure: "1" is not a number`},
		{`{"low": 1}`, `figure: range needs both low and high`},
		{`{"low": 2, "high": 1}`, `figure: range low 2 is above high 1`},
		{`{"low": 1, "high": 2, "mid": 1.5}`, `figure: range: json: unknown field "mid"`},
	} {
		var f Figure
		err := json.Unmarshal([]byte(tc.in), &f)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Unmarshal(%s) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseIsStrict(t *testing.T) {
	const row = `{"key": {"guard": "none"}, "figures": {"lost": 1}}`
	exp := func(extra, r string) string {
		return `{"experiments": [{"name": "race", "title": "t", "key": ["guard"], "figures": ["lost"], "tables": [{"title": "", "source": {"file": "f", "lang": "en"}, "setup": "s", "params": [], "rows": [` + r + `], "facts": []` + extra + `}]}]}`
	}
	if _, err := parsePublished([]byte(exp("", row))); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{exp(`, "extra": 1`, row), `published figures: json: unknown field "extra"`},
		{exp("", `{"key": {"guard": "none"}, "figures": {"lots": 1}}`), `published figures: race: tables[0].rows[0]: figure "lots" is not one of [lost]`},
		{exp("", `{"key": {"gaurd": "none"}, "figures": {"lost": 1}}`), `published figures: race: tables[0].rows[0]: key "gaurd" is not one of [guard]`},
		{exp("", row) + ` {}`, `published figures: data after the top-level object`},
		{`{"experiments": []}`, `published figures: no experiments`},
	} {
		_, err := parsePublished([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse error = %v, want %q", err, tc.want)
		}
	}
}
