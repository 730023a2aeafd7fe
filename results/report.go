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
	// Replications is how many virtual-clock replications the verdicts rest on
	// (0: none). Replications, Verdicts and Warnings are always in the JSON,
	// empty when empty: see Complete.
	Replications int       `json:"replications"`
	Verdicts     []Verdict `json:"verdicts"`
	Warnings     []string  `json:"warnings"`
	Version      string    `json:"notesbench_version"`
}

// Complete returns r with its nil lists made empty, so that its JSON holds
// every key with a list, never null.
func (r Report) Complete() Report {
	if r.Published == nil {
		r.Published = []PubTable{}
	}
	if r.Verdicts == nil {
		r.Verdicts = []Verdict{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return r
}

// Ender is a run that may have ended before it was done: its calls ended in
// server errors as often as its limit allows. EndedEarly says why, "" for a
// run that ran to the end.
type Ender interface {
	EndedEarly() string
}

// Unreader is a run whose final state may not have read: Unread says why,
// "" for a run whose final state read.
type Unreader interface {
	Unread() string
}
