package results

import (
	"fmt"

	"github.com/notesbench/notesbench/internal/plural"
)

// Reproduction is what one reproduction of every published figure found: the
// command that made it, where it ran, every experiment's report and the summary
// of their verdicts. Its JSON form is reproduced.json.
type Reproduction struct {
	Command      string `json:"command"`
	Replications int    `json:"replications"`
	Consistent   int    `json:"consistent"`
	Judged       int    `json:"judged"`
	// Coverage is what every verdict asked; Short counts those judged at
	// less for want of replications, and Least is the least coverage among
	// them (ShortOfCoverage).
	Coverage float64  `json:"coverage"`
	Short    int      `json:"short_of_coverage"`
	Least    float64  `json:"least_coverage"`
	Machine  Machine  `json:"machine"`
	Reports  []Report `json:"reports"`
	// Timing, when the race engine's experiments also ran under another
	// timing profile, holds them; the summary stays the default model's.
	Timing *TimingModels `json:"timing_models,omitempty"`
	// Against, when the reproduction was compared with another (reproduce
	// --against), is how their verdicts stand.
	Against *Agreement `json:"against,omitempty"`
	Version string     `json:"notesbench_version"`
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
	r.Coverage = DefaultMass
	r.Short, r.Least = ShortOfCoverage(all, r.Coverage)
	if r.Timing != nil {
		r.Timing.Summarize()
	}
}

// Summary is the reproduction's one line.
func (r Reproduction) Summary() string {
	s := fmt.Sprintf("%d of %s consistent with ours (each against the interval one new run of ours falls in, %s asked",
		r.Consistent, plural.Count(r.Judged, "published figure"), CoverageLabel(r.Coverage))
	if r.Short > 0 {
		s += fmt.Sprintf("; %d at less for want of replications, down to %s", r.Short, CoverageLabel(r.Least))
	}
	return s + "; timings compared as ratios only)"
}
