package results

import (
	"fmt"

	"github.com/notesbench/notesbench/internal/plural"
)

// Reproduction is what one reproduction of every published figure found: the
// command that made it, where it ran, every experiment's report and the summary
// of their verdicts. Its JSON form is reproduced.json.
type Reproduction struct {
	Command      string   `json:"command"`
	Replications int      `json:"replications"`
	Consistent   int      `json:"consistent"`
	Judged       int      `json:"judged"`
	Machine      Machine  `json:"machine"`
	Reports      []Report `json:"reports"`
	// Timing, when the race engine's experiments also ran under another
	// timing profile, holds them; the summary stays the default model's.
	Timing  *TimingModels `json:"timing_models,omitempty"`
	Version string        `json:"notesbench_version"`
}

// Machine describes where a reproduction ran.
type Machine struct {
	GOOS           string `json:"goos"`
	GOARCH         string `json:"goarch"`
	CPUs           int    `json:"cpus"`
	CPU            string `json:"cpu,omitempty"`
	Go             string `json:"go"`
	SQLite         string `json:"sqlite"`
	SQLiteDriver   string `json:"sqlite_driver"`
	PublishedSetup string `json:"published_setup"`
}

// Summarize fills Consistent and Judged from the verdicts of every report,
// and the timing models' counts.
func (r *Reproduction) Summarize() {
	var all []Verdict
	for _, rep := range r.Reports {
		all = append(all, rep.Verdicts...)
	}
	r.Consistent, r.Judged = Summary(all)
	if r.Timing != nil {
		r.Timing.Summarize()
	}
}

// Summary is the reproduction's one line.
func (r Reproduction) Summary() string {
	return fmt.Sprintf("%d of %s consistent with ours (central 99 %% range; timings compared as ratios only)", r.Consistent, plural.Count(r.Judged, "published figure"))
}
