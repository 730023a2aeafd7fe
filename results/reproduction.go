package results

import (
	"encoding/json"
	"fmt"

	"github.com/notesbench/notesbench/internal/plural"
)

// Reproduction is what one reproduction of every published figure found: the
// command that made it, where it ran, every experiment's report and the summary
// of their verdicts. Its JSON form is reproduced.json.
type Reproduction struct {
	// Experiment is "reproduce", Config what the command asked for, Rows
	// each experiment's count of consistent figures, and Warnings those of
	// the reports: the envelope every result of notesbench has.
	Experiment   string            `json:"experiment"`
	Config       ReproduceConfig   `json:"config"`
	Rows         []ReproductionRow `json:"rows"`
	Warnings     []string          `json:"warnings"`
	Command      string            `json:"command"`
	Replications int               `json:"replications"`
	Consistent   int               `json:"consistent"`
	Judged       int               `json:"judged"`
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
	Timing *TimingModels `json:"timing_models"`
	// Against, when the reproduction was compared with another (reproduce
	// --against), is how their verdicts stand.
	Against *Agreement `json:"against"`
	Version string     `json:"notesbench_version"`
}

// ReproduceConfig is what a reproduction was asked for.
type ReproduceConfig struct {
	Replications int      `json:"replications"`
	Real         bool     `json:"real_clock"`
	Only         []string `json:"only"`
}

// ReproductionRow is one experiment of a reproduction: how many of its
// published figures are consistent with ours, of those judged.
type ReproductionRow struct {
	Experiment string `json:"experiment"`
	Consistent int    `json:"consistent"`
	Judged     int    `json:"judged"`
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
	r.Rows, r.Warnings = []ReproductionRow{}, []string{}
	for _, rep := range r.Reports {
		all = append(all, rep.Verdicts...)
		row := ReproductionRow{Experiment: rep.Experiment}
		row.Consistent, row.Judged = Summary(rep.Verdicts)
		r.Rows = append(r.Rows, row)
		for _, w := range rep.Warnings {
			r.Warnings = append(r.Warnings, rep.Experiment+": "+w)
		}
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

// ReadReproduction reads a reproduced.json that notesbench reproduce wrote;
// file names it in errors.
func ReadReproduction(file string, b []byte) (Reproduction, error) {
	var r Reproduction
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", file, err)
	}
	if r.Command == "" || r.Version == "" {
		return r, fmt.Errorf("%s is no reproduced.json of notesbench reproduce", file)
	}
	return r, nil
}
