package reproduce

import (
	"os"
	"path/filepath"
	"testing"
)

// The CPU's model is the first a cpuinfo file names, and nothing when it
// names none or is not there.
func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	info := filepath.Join(dir, "cpuinfo")
	if err := os.WriteFile(info, []byte("processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\n\nprocessor\t: 1\nmodel name\t: Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	none := filepath.Join(dir, "none")
	if err := os.WriteFile(none, []byte("processor\t: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{info: "Test CPU @ 2.0GHz", none: "", filepath.Join(dir, "missing"): ""} {
		if got := cpuModel(path); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
