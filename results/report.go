package results

// Report is the whole outcome of one experiment command: what was run, what came
// out, the published figures it was compared with and the verdicts. Its JSON form
// is the --out file and the baseline format.
type Report struct {
	Experiment string `json:"experiment"`
	// Config holds every parameter of the run, seeds and clock included.
	Config any `json:"config"`
	// Rows are the experiment's table rows, with the row keys the README lists.
	Rows any `json:"rows"`
	// Runs are the per-run results the rows were folded from.
	Runs any `json:"runs"`
	// Published holds the published tables the rows were compared with; empty
	// when the parameters differ from the published ones.
	Published []PubTable `json:"published"`
	// Replications is how many virtual-clock replications the verdicts rest on.
	Replications int       `json:"replications,omitempty"`
	Verdicts     []Verdict `json:"verdicts,omitempty"`
	Warnings     []string  `json:"warnings,omitempty"`
	Version      string    `json:"notesbench_version"`
}
