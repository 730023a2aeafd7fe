package race

import (
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/sim"
)

func TestParseModes(t *testing.T) {
	m, err := ParseModes("none,note/reapply,tab/refresh")
	if err != nil || len(m) != 3 || m[2] != (Mode{Guard: contract.GuardTab, Policy: sim.Refresh}) || m[0].String() != "none" {
		t.Fatalf("%v %v", m, err)
	}
	for in, want := range map[string]string{
		"note/reapply/x": `"note/reapply/x": unknown conflict policy "reapply/x" (want reapply or refresh)`,
		"none/reapply":   `"none/reapply": guard none takes no policy (nothing ever conflicts): write none`,
		"sometimes":      `"sometimes": unknown guard "sometimes" (want none, note or tab)`,
		"note":           `"note": a note guard needs a policy, e.g. note/reapply`,
		"none,none":      `"none" is listed twice`,
	} {
		if _, err := ParseModes(in); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}
