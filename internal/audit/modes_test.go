package audit

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/results"
)

// The fault modes follow what notesbench owns of the target: nothing of
// the embedded store's but its process for kill -9, the wire of any server,
// the process of one it starts; the wire's nemeses come first, a pause
// without --call-timeout gets one (in its flags too), and a lost reply is
// reissued.
func TestModes(t *testing.T) {
	kill := CrashTest{Run: func(context.Context, results.CrashSettings, time.Duration) (FaultOutcome, error) {
		return FaultOutcome{}, nil
	}}
	var opened []string
	open := func(_ context.Context, kind string, every, timeout time.Duration) (contract.Target, error) {
		opened = append(opened, kind+" "+every.String()+" "+timeout.String())
		return nil, nil
	}
	for _, tc := range []struct {
		name          string
		r             Reach
		crash         string // the crash mode's NotRun, "" when it runs
		nemesisNotRun []string
		flags         [][]string
	}{
		{name: "embedded", r: Reach{}, nemesisNotRun: []string{"no wire or process to fault", "no wire or process to fault", "no wire or process to fault", "no wire or process to fault"}},
		{name: "postgres", r: Reach{Postgres: true}, crash: "a PostgreSQL server is not notesbench's process", nemesisNotRun: []string{"no wire", "no wire", "no wire", "no wire"}},
		{name: "http", r: Reach{Remote: true}, crash: "cannot kill it: give --spawn", nemesisNotRun: []string{"", "", "cannot kill it: give --spawn", "cannot pause it: give --spawn"}},
		{name: "started", r: Reach{Remote: true, Starts: true}, nemesisNotRun: []string{"", "", "", ""},
			flags: [][]string{{"--nemesis", "lose-replies"}, {"--nemesis", "duplicate"}, {"--nemesis", "kill"}, {"--nemesis", "pause", "--call-timeout", "1s"}}},
		{name: "call timeout", r: Reach{Remote: true, Starts: true, CallTimeout: 3 * time.Second}, nemesisNotRun: []string{"", "", "", ""},
			flags: [][]string{{"--nemesis", "lose-replies"}, {"--nemesis", "duplicate"}, {"--nemesis", "kill"}, {"--nemesis", "pause"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faults, nemeses := tc.r.Modes(kill, open)
			if len(faults) != 1 || !strings.Contains(faults[0].NotRun, tc.crash) || (faults[0].NotRun == "") != (faults[0].Run != nil) || (tc.crash == "") != (faults[0].NotRun == "") {
				t.Errorf("crash: %+v", faults)
			}
			var kinds []string
			for i, m := range nemeses {
				kinds = append(kinds, m.Kind)
				want := tc.nemesisNotRun[i]
				if !strings.Contains(m.NotRun, want) || (want == "") != (m.NotRun == "") || (m.NotRun == "") != (m.Open != nil) {
					t.Errorf("%s: not run %q, want %q", m.Kind, m.NotRun, want)
				}
				if tc.flags != nil && !slices.Equal(m.Flags, tc.flags[i]) {
					t.Errorf("%s: flags %q, want %q", m.Kind, m.Flags, tc.flags[i])
				}
				if m.Reissue != (m.Kind == history.FaultLoseReplies) {
					t.Errorf("%s: reissue %v", m.Kind, m.Reissue)
				}
				if m.Open != nil {
					m.Open(context.Background(), time.Second)
				}
			}
			if want := []string{"lose-replies", "duplicate", "kill", "pause"}; !slices.Equal(kinds, want) {
				t.Errorf("nemeses %q, want %q", kinds, want)
			}
		})
	}
	if want := []string{"lose-replies 1s 0s", "duplicate 1s 0s", "lose-replies 1s 0s", "duplicate 1s 0s", "kill 1s 0s", "pause 1s 1s", "lose-replies 1s 3s", "duplicate 1s 3s", "kill 1s 3s", "pause 1s 3s"}; !slices.Equal(opened, want) {
		t.Errorf("opened %q, want %q", opened, want)
	}
}

// The crash column runs the caller's kill -9 test at the budget's kills
// beside its defaults: the embedded store under each of the budget's
// synchronous settings, a server through its profile; each check bounded
// by the budget's CheckTimeout.
func TestCrashMode(t *testing.T) {
	b := Budget{Kills: 7, Synchronous: []contract.Synchronous{contract.SyncNormal, contract.SyncFull}, CheckTimeout: time.Minute}
	defaults := results.CrashSettings{Seed: 3, LifeMinNS: time.Millisecond, LifeMaxNS: time.Second, Kills: 50}
	for _, tc := range []struct {
		r    Reach
		want results.CrashSettings
	}{
		{Reach{Target: "embedded"}, results.CrashSettings{Kills: 7, Synchronous: b.Synchronous, Seed: 3, LifeMinNS: time.Millisecond, LifeMaxNS: time.Second}},
		{Reach{Target: "stdio:srv", Profile: "p", Remote: true, Starts: true}, results.CrashSettings{Kills: 7, Seed: 3, LifeMinNS: time.Millisecond, LifeMaxNS: time.Second, Target: "stdio:srv", Profile: "p"}},
	} {
		var got results.CrashSettings
		var timeout time.Duration
		test := CrashTest{Defaults: defaults, Needs: []contract.Capability{contract.CapRead}, Run: func(_ context.Context, s results.CrashSettings, d time.Duration) (FaultOutcome, error) {
			got, timeout = s, d
			return FaultOutcome{Runs: 1}, nil
		}}
		faults, _ := tc.r.Modes(test, nil)
		m := faults[0]
		if m.Mode != "crash" || m.NotRun != "" || !slices.Equal(m.Needs, test.Needs) {
			t.Fatalf("%s: %+v", tc.r.Target, m)
		}
		if fo, err := m.Run(context.Background(), b); err != nil || fo.Runs != 1 {
			t.Errorf("%s: %+v, %v", tc.r.Target, fo, err)
		}
		if !reflect.DeepEqual(got, tc.want) || timeout != time.Minute {
			t.Errorf("%s: settings %+v, timeout %s; want %+v", tc.r.Target, got, timeout, tc.want)
		}
	}
}

// The subject says what the caller knows: the embedded store is
// notesbench's, a profile's server and write are the profile's (each of
// its write modes in words), and the documents' layout follows the target.
func TestSubject(t *testing.T) {
	s := Reach{Target: "embedded"}.Subject(0, "v1")
	if s.Server != "notesbench v1 (the embedded store)" || s.WriteStyle != "whole text (edit_note_tab replace_text)" || s.Documents != "a database of its own for every run: runs share nothing" {
		t.Errorf("embedded: %+v", s)
	}
	s = Reach{Target: "stdio:srv", Remote: true, StateDir: "{dir}"}.Subject(2, "v1")
	if want := "a Note of its own for every run (notesbench_create_note), in a store of the part's own ({dir} is a fresh folder for each part), shared by the part's runs; 2 runs of each experiment at once (--parallel)"; !strings.HasPrefix(s.Documents, want) || s.Server != "" {
		t.Errorf("contract's tools: %+v", s)
	}
	for mode, want := range map[profile.WriteMode]string{profile.ModeContent: "whole text (w)", profile.ModePatch: "patch (w)", profile.ModeAppend: "append (w)", "other": "other (w)"} {
		r := Reach{Target: "stdio:srv", Remote: true, Profile: "p", Profiled: &Profiled{Server: "srv 1.0", Document: "{run}.md", WriteMode: string(mode), WriteTool: "w"}}
		s = r.Subject(0, "v1")
		if s.WriteStyle != want || s.Server != "srv 1.0" || !strings.HasPrefix(s.Documents, "a document of its own for every run named {run}.md, all in the server's one store; each experiment's own number of runs at once") {
			t.Errorf("%s: %+v", mode, s)
		}
	}
	s = Reach{Target: "stdio:srv", Remote: true, Profile: "p", Profiled: &Profiled{Server: "srv 1.0"}}.Subject(0, "v1")
	if s.WriteStyle != "none: the profile maps no write (a read-only server)" {
		t.Errorf("read-only: %+v", s)
	}
}
