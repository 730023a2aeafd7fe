package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// conform --target embedded prints every clause with the published
// connector's verdicts, its versions named as what they are, and exits 0;
// --format json has the same rows.
func TestConformEmbedded(t *testing.T) {
	want := []struct {
		name    string
		outcome results.ConformOutcome
	}{
		{"tools/list", results.ConformPass}, {"stale version", results.ConformPass}, {"no expected_version", results.ConformPass},
		{"same-key resend", results.ConformPass}, {"lost reply, create", results.ConformPass}, {"versions increase", results.ConformPass},
		{"writes within a millisecond", results.ConformPass}, {"per-tab versions", results.ConformInfo}, {"concurrent writers", results.ConformPass},
		{"same key, other arguments", results.ConformPass}, {"same key, other tool", results.ConformInfo}, {"resend after the version moved", results.ConformInfo},
	}
	code, stdout, stderr := conformCLI(t, "--target", "embedded", "--format", "json")
	var rep struct {
		Rows          []results.ConformCheck `json:"rows"`
		Failed        int                    `json:"failed"`
		NotApplicable int                    `json:"not_applicable"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || len(rep.Rows) != len(want) || rep.Failed != 0 || rep.NotApplicable != 0 {
		t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for i, w := range want {
		c := rep.Rows[i]
		// Under the race detector the embedded store may write too slowly
		// for two writes to come within a millisecond: the clause then
		// says it could not test.
		if c.Name != w.name || c.Outcome != w.outcome && !(testpass.Race && w.name == "writes within a millisecond" && c.Outcome == results.ConformInfo) {
			t.Errorf("row %d: %s %s (%s), want %s %s", i, c.Name, c.Outcome, c.Detail, w.name, w.outcome)
		}
	}

	code, stdout, _ = conformCLI(t, "--target", "embedded", "--format", "markdown")
	for _, row := range []string{
		"| no expected_version | pass | refused: invalid_argument expected_version; nothing changed |",
		"| versions increase | pass | 4 to 9 over 5 writes: counter versions, each greater |",
		"| same key, other tool | info | add_note_source refused: invalid_argument idempotency_key |",
	} {
		if code != 0 || !strings.Contains(stdout, row) {
			t.Errorf("exit %d; no row %q in\n%s", code, row, stdout)
		}
	}
}
