package reproduce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments"
	"github.com/notesbench/notesbench/experiments/outline"
	"github.com/notesbench/notesbench/experiments/validate"
	"github.com/notesbench/notesbench/results"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// options is a reproduction of validate (one unit) and outline (its main
// run and two replications: three units).
func options(shard results.Shard) Options {
	return Options{
		Experiments:  []experiment.Descriptor{validate.Experiment, outline.Experiment},
		Replications: 1,
		Runs:         experiment.Options{Version: "test", Memory: backend.Memory(), Shard: shard},
	}
}

// The units of a reproduction are numbered across its steps: each of two
// shards runs the units it owns of every step, numbered from validate's one
// unit on through outline's, and their merge is the reproduction run whole.
func TestShardsShareTheStepsAndMerge(t *testing.T) {
	whole, err := Run(context.Background(), options(results.Shard{}), "test")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	var data [][]byte
	ran := 0
	for k := 1; k <= 2; k++ {
		out, err := Run(context.Background(), options(results.Shard{Index: k, Count: 2}), "test")
		if err != nil {
			t.Fatal(err)
		}
		rec := out.Shard
		if rec == nil || rec.Units != 4 || len(rec.Rows) != 2 {
			t.Fatalf("shard %d: %+v, want a record of 4 units in 2 steps", k, rec)
		}
		offset := 0
		for step, ss := range rec.Rows {
			for _, job := range ss.Jobs {
				for _, p := range job {
					if !rec.Shard.Owns(offset + p.Unit) {
						t.Errorf("shard %d ran unit %d of %s, unit %d of the reproduction, which it does not own", k, p.Unit, ss.Experiment, offset+p.Unit)
					}
					ran++
				}
			}
			offset += []int{1, 3}[step]
		}
		b, _ := json.Marshal(rec)
		files, data = append(files, fmt.Sprintf("shard-%d.json", k)), append(data, b)
	}
	if ran != 4 {
		t.Errorf("the shards ran %d units, want the 4 of the reproduction", ran)
	}
	merged, err := Merge(experiments.All(), files, data, "test", results.Machine{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(merged.Record)
	want, _ := json.Marshal(whole.Record)
	if string(got) != string(want) {
		t.Fatalf("merged\n%s\nnot\n%s", got, want)
	}
	if len(merged.Tables) != len(whole.Tables) || len(whole.Tables) == 0 {
		t.Fatalf("merged %d tables, whole %d", len(merged.Tables), len(whole.Tables))
	}
	_, err = Merge(experiments.All(), files[:1], data[:1], "test", results.Machine{})
	var me *results.MergeError
	if !errors.As(err, &me) {
		t.Fatalf("one shard of two merged: %v, want a *results.MergeError", err)
	}
}

// A reproduction needs a replication behind its verdicts.
func TestRunRefusesNoReplications(t *testing.T) {
	o := options(results.Shard{})
	o.Replications = 0
	_, err := Run(context.Background(), o, "test")
	var pe *experiment.ParamError
	if !errors.As(err, &pe) || pe.Param != "replications" {
		t.Fatalf("%v, want a *experiment.ParamError about replications", err)
	}
}

// Only keeps the experiments named, in the order named; an empty list, an
// empty item, a name listed twice or an unknown one is an error.
func TestOnly(t *testing.T) {
	all := experiments.All()
	got, err := Only("outline, validate", all)
	if err != nil || len(got) != 2 || got[0].Info().Name != "outline" || got[1].Info().Name != "validate" {
		t.Fatalf("%v, %v: want outline and validate, in that order", experiment.Names(got), err)
	}
	for list, want := range map[string]string{
		" ":          "no experiments named (want some of race, ",
		"race,,tabs": "an empty name in the list",
		"race,race":  "race is listed twice",
		"race,nope":  `unknown experiment "nope" (want some of race, `,
	} {
		if _, err := Only(list, all); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Only(%q): %v, want %q", list, err, want)
		}
	}
}

// The command a reproduction records says the flags that shape its output,
// --only as it was written.
func TestCommandSaysTheFlags(t *testing.T) {
	for _, tc := range []struct {
		r     Options
		quick bool
		only  string
		want  string
	}{
		{Options{Replications: 100}, false, "", "notesbench reproduce --replications 100"},
		{Options{Replications: 20}, true, "race,tabs", "notesbench reproduce --quick --replications 20 --only race,tabs"},
		{Options{Replications: 3, Real: true}, false, " validate", "notesbench reproduce --clock real --replications 3 --only  validate"},
	} {
		if got := tc.r.Command(tc.quick, tc.only); got != tc.want {
			t.Errorf("%+v, quick %v, only %q: %s, want %s", tc.r, tc.quick, tc.only, got, tc.want)
		}
	}
}

// The reproduction another is set against is read from its file: one that
// does not read, or is no reproduction, says so; a shard is checked only
// against a reproduction that can check it.
func TestReadAgainst(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	o := options(results.Shard{})
	good := write("reproduced.json", results.Reproduction{Experiment: "reproduce", Command: "notesbench reproduce", Version: "test", Replications: 1, Config: o.Config()})
	other, err := o.ReadAgainst(good, false)
	if err != nil || other.Command != "notesbench reproduce" {
		t.Fatalf("a reproduction: %+v, %v", other, err)
	}
	tabs := write("tabs.json", map[string]string{"experiment": "tabs"})
	missing := filepath.Join(dir, "missing.json")
	for file, want := range map[string]string{
		missing: "stat " + missing + ": no such file or directory",
		tabs:    tabs + " is no reproduced.json of notesbench reproduce",
	} {
		if _, err := o.ReadAgainst(file, false); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", file, err, want)
		}
	}
	// It recorded no digests of its units: a shard cannot be checked.
	if _, err := o.ReadAgainst(good, true); err == nil || !strings.HasPrefix(err.Error(), good+": a shard is checked against the reproduction that ran it: ") {
		t.Errorf("a shard against a reproduction without digests: %v", err)
	}
}
