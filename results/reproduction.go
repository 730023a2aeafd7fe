package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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
	Rows         []reproductionRow `json:"rows"`
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
	// Units are the digests of the units behind its tables, step by step
	// and job by job as its shards number them: what checks a unit run
	// again (reproduce --shard) against this reproduction without keeping
	// every unit's results.
	Units   []StepDigests `json:"unit_digests"`
	Version string        `json:"notesbench_version"`
}

// StepDigests are the digests of one step's units, per job and unit in the
// order of a shard's parts (ShardStep): Part.Digest for a unit behind the
// tables that gives the same again on any machine, "" for one that does not
// (a timing, a run on the wall clock) or that no table reads.
type StepDigests struct {
	Experiment string     `json:"experiment"`
	Jobs       [][]string `json:"jobs"`
}

// ReproduceConfig is what a reproduction was asked for.
type ReproduceConfig struct {
	Replications int      `json:"replications"`
	Real         bool     `json:"real_clock"`
	Only         []string `json:"only"`
}

// reproductionRow is one experiment of a reproduction: how many of its
// published figures are consistent with ours, of those judged.
type reproductionRow struct {
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
	r.Rows, r.Warnings = []reproductionRow{}, []string{}
	for _, rep := range r.Reports {
		all = append(all, rep.Verdicts...)
		row := reproductionRow{Experiment: rep.Experiment}
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

// UnitCheck is how the units of a shard of a reproduction (reproduce
// --shard) stand against those of a reproduction that recorded their
// digests: how many were compared, and each that gave another result.
type UnitCheck struct {
	Checked int
	Differ  []string
}

// CheckShard compares each unit s ran with the digest r recorded for it.
// A unit r recorded no digest for (bench's timings, a run on the wall clock,
// a replication no table reads) is not compared. A shard of other
// parameters than r's, or an r that recorded no digests, is an error.
func (r Reproduction) CheckShard(s *ReproduceShard) (UnitCheck, error) {
	var c UnitCheck
	if err := r.Checks(s.Config); err != nil {
		return c, err
	}
	steps := map[string]StepDigests{}
	for _, st := range r.Units {
		steps[st.Experiment] = st
	}
	for _, st := range s.Rows {
		want, ok := steps[st.Experiment]
		if !ok {
			return c, fmt.Errorf("it did not run %s", st.Experiment)
		}
		if len(want.Jobs) != len(st.Jobs) {
			return c, fmt.Errorf("%s: it recorded %s, this shard ran %d", st.Experiment, plural.Count(len(want.Jobs), "job"), len(st.Jobs))
		}
		for ji, parts := range st.Jobs {
			for _, p := range parts {
				if p.Unit < 0 || p.Unit >= len(want.Jobs[ji]) {
					return c, fmt.Errorf("%s: job %d has %s, this shard ran unit %d", st.Experiment, ji+1, plural.Count(len(want.Jobs[ji]), "unit"), p.Unit)
				}
				d := want.Jobs[ji][p.Unit]
				if d == "" {
					continue
				}
				c.Checked++
				if p.Digest() != d {
					what := "main run"
					if p.Replication {
						what = "replication"
					}
					c.Differ = append(c.Differ, fmt.Sprintf("%s job %d unit %d (%s, seeds %v)", st.Experiment, ji+1, p.Unit, what, p.Seeds))
				}
			}
		}
	}
	return c, nil
}

// Checks says why the units of a reproduction asked for as c cannot be
// checked against r's (CheckShard), nil when they can: r recorded no
// digests, or ran with other replications, clocks or experiments.
func (r Reproduction) Checks(c ReproduceConfig) error {
	switch {
	case len(r.Units) == 0:
		return errors.New("it holds no digests of its units (made by a notesbench that recorded none)")
	case r.Config.Replications != c.Replications:
		return fmt.Errorf("it was made with --replications %d, not %d", r.Config.Replications, c.Replications)
	case r.Config.Real != c.Real:
		return fmt.Errorf("it was made with --clock %s, not %s", clockWord(r.Config.Real), clockWord(c.Real))
	}
	for _, name := range c.Only {
		if !slices.ContainsFunc(r.Units, func(st StepDigests) bool { return st.Experiment == name }) {
			return fmt.Errorf("it did not run %s", name)
		}
	}
	return nil
}

// clockWord is --clock's value for a reproduction that did (real) or did not
// also run on the wall clock.
func clockWord(real bool) string {
	if real {
		return "real"
	}
	return "virtual"
}
