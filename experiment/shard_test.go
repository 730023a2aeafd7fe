package experiment_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// servedTarget is the embedded in-memory store as a server would be: it says
// which variant it serves and serves it to every run, whatever the run asks.
type servedTarget struct {
	contract.Target
	v contract.Variant
}

func (t servedTarget) Served() (contract.Variant, bool) { return t.v, true }

func (t servedTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	run.Variant = t.v
	return t.Target.Open(ctx, run)
}

// The shards of a run against a server merge into the run: the rows the
// server chose (race's modes follow its guard when --modes is not given)
// and its version format (no parameter sets it) are those merged, not the
// published setup's: the merge reads the configuration back from the
// shards' record (it once rebuilt it from the flags given, and failed with
// "no runs of none to fold").
func TestShardsAgainstAServerMerge(t *testing.T) {
	target := servedTarget{backend.Memory(), contract.Variant{Guard: contract.GuardTab, VersionFormat: contract.FormatUSSuffix, Order: contract.OrderKeyFirst}}
	params := []string{"clock", "virtual", "seeds", "1-3", "edits", "6"}
	in := simtest.Configure(t, race.Experiment, sim.TargetSettings{TargetName: "served"}, sim.Runtime{Target: target}, params...)
	whole, err := in.Run(context.Background(), experiment.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	var data [][]byte
	for k := 1; k <= 2; k++ {
		in := simtest.Configure(t, race.Experiment, sim.TargetSettings{TargetName: "served"}, sim.Runtime{Target: target}, params...)
		out, err := in.Run(context.Background(), experiment.Options{Version: "test", Shard: results.Shard{Index: k, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		files, data = append(files, fmt.Sprintf("shard-%d.json", k)), append(data, experiment.MustJSON(out.JSON))
	}
	shards, err := results.ReadShards(files, data, sim.FormatSeeds)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := experiment.Merge([]experiment.Descriptor{race.Experiment}, shards, "test")
	if err != nil {
		t.Fatal(err)
	}
	got, want := experiment.MustJSON(merged.Report), experiment.MustJSON(whole.Report)
	if string(got) != string(want) {
		t.Fatalf("merged\n%s\nnot\n%s", got, want)
	}
	var rows []struct{ Guard string }
	json.Unmarshal(experiment.MustJSON(merged.Report.Rows), &rows)
	if len(rows) != 2 || rows[0].Guard != "tab" {
		t.Fatalf("rows %+v, want the two of guard tab", rows)
	}
	var cfg struct {
		VersionFormat string `json:"version_format"`
	}
	json.Unmarshal(experiment.MustJSON(merged.Report.Config), &cfg)
	if cfg.VersionFormat != "us-suffix" {
		t.Fatalf("merged version format %q, want the server's us-suffix", cfg.VersionFormat)
	}
}
