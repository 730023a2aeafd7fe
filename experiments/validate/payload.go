package validate

import "github.com/notesbench/notesbench/contract"

// PayloadRecord is validate's JSON result for a payload of the user's: a
// row per violation, in the envelope every notesbench result shares
// (results.Report).
type PayloadRecord struct {
	Experiment string               `json:"experiment"`
	Config     PayloadConfig        `json:"config"`
	Rows       []contract.Violation `json:"rows"`
	Valid      bool                 `json:"valid"`
	Full       string               `json:"full"`
	Minimal    string               `json:"minimal"`
	Warnings   []string             `json:"warnings"`
	Version    string               `json:"notesbench_version"`
}

// PayloadConfig is what a payload was checked against.
type PayloadConfig struct {
	Tool string `json:"tool"`
	File string `json:"file"`
}

// Record returns the JSON result of r, the verdict on the payload in file,
// made by notesbench version.
func (r PayloadResult) Record(file, version string) PayloadRecord {
	return PayloadRecord{Experiment: "validate", Config: PayloadConfig{Tool: r.Tool, File: file},
		Rows: r.Violations, Valid: r.Valid, Full: r.Full, Minimal: r.Minimal, Warnings: []string{}, Version: version}
}
