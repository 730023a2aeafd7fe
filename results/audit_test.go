package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// An audit's JSON record reads back as one; a file that is missing, or
// holds another record, is an error naming it.
func TestReadAudit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("audit.json", Audit{Experiment: AuditExperiment, Budget: "quick", Matrix: []AuditRow{{Anomaly: AnomalyLostUpdate}}})
	if a, err := ReadAudit(good); err != nil || a.Budget != "quick" || len(a.Matrix) != 1 {
		t.Errorf("%+v, %v", a, err)
	}
	race := write("race.json", map[string]string{"experiment": "race"})
	for path, want := range map[string]string{
		race:                            race + ` holds "race", not an audit`,
		filepath.Join(dir, "none.json"): "stat " + filepath.Join(dir, "none.json") + ": no such file or directory",
	} {
		if _, err := ReadAudit(path); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
