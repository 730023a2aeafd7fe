package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/conform"
)

// conform --target embedded prints every clause with the published
// connector's verdicts, its versions named as what they are, and exits 0;
// --format json has the same rows.
func TestConformEmbedded(t *testing.T) {
	want := []struct {
		name    string
		outcome conform.Outcome
	}{
		{"tools/list", conform.Pass}, {"stale version", conform.Pass}, {"no expected_version", conform.Pass},
		{"same-key resend", conform.Pass}, {"lost reply, create", conform.Pass}, {"versions increase", conform.Pass},
		{"writes within a millisecond", conform.Pass}, {"per-tab versions", conform.Info}, {"concurrent writers", conform.Pass},
		{"same key, other arguments", conform.Info}, {"same key, other tool", conform.Info}, {"resend after the version moved", conform.Info},
	}
	code, stdout, stderr := conformCLI(t, "--target", "embedded", "--format", "json")
	var rep struct {
		Rows          []conform.Check `json:"rows"`
		Failed        int             `json:"failed"`
		NotApplicable int             `json:"not_applicable"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || len(rep.Rows) != len(want) || rep.Failed != 0 || rep.NotApplicable != 0 {
		t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for i, w := range want {
		c := rep.Rows[i]
		// Under the race detector the embedded store may write too slowly
		// for two writes to come within a millisecond: the clause then
		// says it could not test.
		if c.Name != w.name || c.Outcome != w.outcome && !(raceDetector && w.name == "writes within a millisecond" && c.Outcome == conform.Info) {
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
