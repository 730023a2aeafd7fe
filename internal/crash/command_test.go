package crash

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// The command line of a test reruns it: the embedded store's with its
// synchronous settings, a target's with its profile and --spawn, each word
// quoted as a shell reads it back.
func TestArgv(t *testing.T) {
	s := results.CrashSettings{Kills: 20, Seed: 1, LifeMinNS: 5 * time.Millisecond, LifeMaxNS: 40 * time.Millisecond,
		Synchronous: []contract.Synchronous{contract.SyncNormal, contract.SyncFull}}
	if got, want := shell.Line(Argv(s, "")), "notesbench crash --kills 20 --seed 1 --life 5ms-40ms --synchronous normal,full"; got != want {
		t.Errorf("embedded: %s, want %s", got, want)
	}
	s.Synchronous, s.Target, s.Profile = nil, "http://127.0.0.1:{port}/mcp", "my profile.json"
	if got, want := shell.Line(Argv(s, "srv --port {port}")), "notesbench crash --kills 20 --seed 1 --life 5ms-40ms --target 'http://127.0.0.1:{port}/mcp' --profile 'my profile.json' --spawn 'srv --port {port}'"; got != want {
		t.Errorf("target: %s, want %s", got, want)
	}
}

// The servers' life is written once in the settings: the table says it as
// the command line that reruns the test does.
func TestLifeOfTableAndArgv(t *testing.T) {
	for _, life := range [][2]time.Duration{{5 * time.Millisecond, 40 * time.Millisecond}, {time.Second, time.Second}, {0, 1500 * time.Microsecond}} {
		s := results.CrashSettings{Kills: 1, Seed: 1, LifeMinNS: life[0], LifeMaxNS: life[1]}
		argv := Argv(s, "")
		written := argv[slices.Index(argv, "--life")+1]
		if title := report.CrashTables(s, nil, &results.CheckReport{})[0].Title; !strings.Contains(title, "each server serving "+written+",") {
			t.Errorf("--life %s, table %q", written, title)
		}
	}
}

// ServeSelf's target starts this program as notesbench serve on the
// database, its environment added, as a stdio target reads it.
func TestServeSelf(t *testing.T) {
	serve, err := ServeSelf([]string{"A=b c"})
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	target := serve("/tmp/a dir/n.db", contract.SyncFull)
	spec, err := mcpclient.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(spec.Command, "|"), "env|A=b c|"+exe+"|serve|--db|/tmp/a dir/n.db|--synchronous|full"; got != want {
		t.Errorf("argv %s, want %s", got, want)
	}
}
