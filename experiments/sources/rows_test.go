package sources

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSummarizeSources(t *testing.T) {
	run := func(policy string, seed uint64, saved, dups, flagged int) Run {
		return Run{KeyPolicy: policy, Seed: seed, Sessions: 300, Saved: saved, Duplicates: dups, BrowserFlagged: flagged}
	}
	runs := []Run{
		run(KeyUUID, 1, 5400, 3038, 725), run(KeyUUID, 2, 5400, 3000, 700),
		run(KeyRaw, 1, 4814, 2452, 100), run(KeyRaw, 2, 4800, 2400, 90),
		run(KeyNormalized, 1, 2362, 0, 0), run(KeyNormalized, 2, 2400, 0, 0),
	}
	got, err := Summarize([]uint64{1, 2}, runs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	// per_session divides by sessions × seeds: 6038 / 600 and 4852 / 600.
	want := `[{"key_policy":"uuid","saved":10800,"duplicates":6038,"per_session":10.0633,"browser_flagged":1425,"errors":0,"info":0,"faults":0},` +
		`{"key_policy":"raw","saved":9614,"duplicates":4852,"per_session":8.0867,"errors":0,"info":0,"faults":0},` +
		`{"key_policy":"normalized","saved":4762,"duplicates":0,"per_session":0,"errors":0,"info":0,"faults":0}]`
	if string(b) != want {
		t.Errorf("rows JSON\n got %s\nwant %s", b, want)
	}

	if _, err := Summarize([]uint64{1, 2, 3}, runs); err == nil || !strings.Contains(err.Error(), "0 runs for seed 3") {
		t.Errorf("a missing seed gave %v", err)
	}
	if _, err := Summarize([]uint64{1}, runs); err == nil || !strings.Contains(err.Error(), "2 runs for 1 seeds") {
		t.Errorf("an extra seed gave %v", err)
	}
}

func TestSourcesUUIDRowKeepsZeroFlagged(t *testing.T) {
	got, err := Summarize([]uint64{1}, []Run{{KeyPolicy: KeyUUID, Seed: 1, Sessions: 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got[0])
	if !strings.Contains(string(b), `"browser_flagged":0`) {
		t.Errorf("uuid row %s should carry browser_flagged even when 0", b)
	}
}

func TestRowFigureOf(t *testing.T) {
	flagged := 7
	if v, ok := (Row{Duplicates: 3, BrowserFlagged: &flagged}).FigureOf("browser_flagged"); !ok || !slices.Equal(v.Nums, []float64{7}) {
		t.Errorf("browser_flagged: %v %v", v, ok)
	}
}
