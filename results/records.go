package results

import "github.com/notesbench/notesbench/contract"

// The JSON results of the commands that are not experiments share the
// experiments' envelope (Report): every one has experiment (the
// command), config, rows, warnings and notesbench_version, every key always
// there, empty when empty; each adds what is its own.

// CheckRecord is check's JSON result: a row per check, the figures of every
// run and, of served histories, the agents.
type CheckRecord struct {
	Experiment string        `json:"experiment"`
	Config     CheckConfig   `json:"config"`
	Rows       []CheckResult `json:"rows"`
	Runs       []CheckRun    `json:"runs"`
	Warnings   []string      `json:"warnings"`
	Version    string        `json:"notesbench_version"`
	// Agents holds CheckReport.Agents, every agent of served histories with
	// the verdict on it ([] when no client called); nil, and no key, when
	// the histories are not served ones.
	Agents []AgentResult `json:"agents,omitzero"`
}

// CheckConfig is what a check judged, and how: the histories, each check's
// time, and the page of the first linearizability violation ("" when none
// was written).
type CheckConfig struct {
	Histories []string `json:"histories"`
	TimeoutS  float64  `json:"timeout_s"`
	HTML      string   `json:"html"`
}

// NewCheckRecord returns the JSON result of a check.
func NewCheckRecord(cfg CheckConfig, rep *CheckReport, version string) CheckRecord {
	return CheckRecord{Experiment: "check", Config: cfg, Rows: nonNil(rep.Checks), Runs: nonNil(rep.Runs),
		Warnings: unknownWarnings(rep), Version: version, Agents: rep.Agents}
}

// unknownWarnings says of every check that could not judge everything why.
func unknownWarnings(rep *CheckReport) []string {
	out := []string{}
	for _, c := range rep.Checks {
		if c.Verdict == CheckUnknown {
			out = append(out, c.Check+" unknown: "+c.Reason)
		}
	}
	return out
}

// CrashRecord is crash's JSON result: a row per synchronous setting's run,
// the checks of the recorded history and the figures of each of its runs.
type CrashRecord struct {
	Experiment string        `json:"experiment"`
	Config     CrashSettings `json:"config"`
	Rows       []CrashRun    `json:"rows"`
	Checks     []CheckResult `json:"checks"`
	Runs       []CheckRun    `json:"runs"`
	Warnings   []string      `json:"warnings"`
	Version    string        `json:"notesbench_version"`
}

// NewCrashRecord returns the JSON result of a crash test.
func NewCrashRecord(s CrashSettings, runs []CrashRun, rep *CheckReport, version string) CrashRecord {
	return CrashRecord{Experiment: "crash", Config: s, Rows: nonNil(runs), Checks: nonNil(rep.Checks), Runs: nonNil(rep.Runs),
		Warnings: unknownWarnings(rep), Version: version}
}

// ConformRecord is conform's JSON result: a row per clause checked.
type ConformRecord struct {
	Experiment string         `json:"experiment"`
	Config     ConformConfig  `json:"config"`
	Rows       []ConformCheck `json:"rows"`
	Describe   string         `json:"describe"`
	Passed     int            `json:"passed"`
	Failed     int            `json:"failed"`
	Info       int            `json:"info"`
	// NotApplicable counts the clauses the target cannot be held to.
	NotApplicable int      `json:"not_applicable"`
	Warnings      []string `json:"warnings"`
	Version       string   `json:"notesbench_version"`
}

// ConformConfig is what conform checked.
type ConformConfig struct {
	Target string `json:"target"`
	Note   string `json:"note"`
	// Profile names the profile the server's tools were mapped through; ""
	// for the contract's own tools.
	Profile string `json:"profile"`
	// Wire says how the checks reached the server: the MCP protocol version
	// (key protocol), the replicas.
	contract.Wire
}

// NewConformRecord returns the JSON result of a conform run.
func NewConformRecord(cfg ConformConfig, rep ConformReport, version string) ConformRecord {
	return ConformRecord{Experiment: "conform", Config: cfg, Rows: nonNil(rep.Checks), Describe: rep.Describe,
		Passed: rep.Passed, Failed: rep.Failed, Info: rep.Info, NotApplicable: rep.NotApplicable, Warnings: []string{}, Version: version}
}

// nonNil makes a nil slice empty, so that JSON shows [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
