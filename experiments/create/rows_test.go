package create

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSummarizeCreate(t *testing.T) {
	run := func(policy string, seed uint64, calls, tabs int) Run {
		return Run{Table: TableA, Order: "key-first", KeyPolicy: policy, Seed: seed, Intended: 50,
			CallsSent: calls, TabsCreated: tabs, Duplicates: tabs - 50}
	}
	// Runs out of seed order within a row: the row must follow the seeds.
	runs := []Run{
		run(KeyNone, 2, 61, 61), run(KeyNone, 1, 71, 71),
		run(KeyRetry, 1, 71, 50), run(KeyRetry, 2, 61, 50),
	}
	got, err := Summarize([]uint64{1, 2}, runs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Table: "a", Order: "key-first", KeyPolicy: "none", CallsSent: []int{71, 61}, TabsCreated: []int{71, 61}, Duplicates: []int{21, 11}, Errors: []int{0, 0}, Info: []int{0, 0}, Faults: []int{0, 0}},
		{Table: "a", Order: "key-first", KeyPolicy: "retry", CallsSent: []int{71, 61}, TabsCreated: []int{50, 50}, Duplicates: []int{0, 0}, Errors: []int{0, 0}, Info: []int{0, 0}, Faults: []int{0, 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n got %+v\nwant %+v", got, want)
	}

	if _, err := Summarize([]uint64{1, 2, 3}, runs); err == nil || !strings.Contains(err.Error(), "no run for seed 3") {
		t.Errorf("a missing seed gave %v", err)
	}
	if _, err := Summarize([]uint64{1, 2}, append(runs, run(KeyNone, 1, 1, 1))); err == nil || !strings.Contains(err.Error(), "3 runs for 2 seeds") {
		t.Errorf("a seed run twice gave %v", err)
	}
}

func TestCreateRowJSON(t *testing.T) {
	row := Row{Table: "b", Order: "version-first", KeyPolicy: "after-conflict",
		CallsSent: []int{94, 96, 72}, TabsCreated: []int{72, 73, 61}, Duplicates: []int{22, 23, 11}, Errors: []int{0, 1, 0},
		Info: []int{0, 1, 0}, Faults: []int{2, 0, 1}}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"table":"b","order":"version-first","key_policy":"after-conflict","calls_sent":[94,96,72],"tabs_created":[72,73,61],"duplicates":[22,23,11],"errors":[0,1,0],"info":[0,1,0],"faults":[2,0,1]}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
}

func TestRowFigureOf(t *testing.T) {
	if v, ok := (Row{CallsSent: []int{71, 61, 63}}).FigureOf("calls_sent"); !ok || !slices.Equal(v.Nums, []float64{71, 61, 63}) {
		t.Errorf("calls_sent: %v %v", v, ok)
	}
}
