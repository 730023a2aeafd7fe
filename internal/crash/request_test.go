package crash

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
)

// A request's settings are read as the flags give them: the life a range,
// the synchronous settings a list, the target's settings with it.
func TestRequestSettings(t *testing.T) {
	r := Request{Kills: 3, Seed: 7, Life: "5ms-40ms", Synchronous: "normal,full", Timeout: time.Minute, Stall: time.Second}
	s, err := r.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Kills != 3 || s.Seed != 7 || s.LifeMinNS != 5*time.Millisecond || s.LifeMaxNS != 40*time.Millisecond || s.StallNS != time.Second ||
		!slices.Equal(s.Synchronous, []contract.Synchronous{contract.SyncNormal, contract.SyncFull}) {
		t.Errorf("embedded: %+v", s)
	}
	r.Target, r.Profile, r.Watch = "stdio:srv", "", t.TempDir()
	if s, err = r.Settings(); err != nil {
		t.Fatal(err)
	}
	if s.Target != "stdio:srv" || s.Watch != r.Watch || s.Synchronous != nil {
		t.Errorf("target: %+v", s)
	}
}

// Each setting a test cannot use is one field error, named as its flag is,
// worded as notesbench crash says it; the first in the order the settings
// are checked wins.
func TestRequestRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("mine"), 0o644)
	given := func(names ...string) func(string) bool {
		return func(name string) bool { return slices.Contains(names, name) }
	}
	ok := Request{Kills: 3, Seed: 1, Life: "5ms-40ms", Synchronous: "normal,full", Timeout: time.Minute}
	for _, tc := range []struct {
		name   string
		change func(*Request)
		field  string
		want   string
	}{
		{"timeout", func(r *Request) { r.Timeout = 0 }, "timeout", "must be more than 0"},
		{"call timeout", func(r *Request) { r.CallTimeout = -time.Second }, "call_timeout", "cannot be negative"},
		{"start timeout", func(r *Request) { r.StartTimeout = -time.Second }, "start_timeout", "cannot be negative"},
		{"stall", func(r *Request) { r.Stall = -time.Second }, "stall", "cannot be negative"},
		{"life", func(r *Request) { r.Life = "x" }, "life", "x: not a duration"},
		{"life range", func(r *Request) { r.Life = "5s-1s" }, "life", "5s-1s: minimum above maximum"},
		{"kills", func(r *Request) { r.Kills = 0 }, "kills", "must be at least 1"},
		{"too many kills", func(r *Request) { r.Kills = MaxKills + 1 }, "kills", "must be at most 10,000 (each kill starts a server again and recovers its database)"},
		{"synchronous", func(r *Request) { r.Synchronous = "full,full" }, "synchronous", "full is listed twice"},
		{"db with a target", func(r *Request) { r.Target, r.Given = "stdio:x", given("db") }, "db", "is the embedded store's: the server of --target stdio:x keeps its own"},
		{"synchronous with a target", func(r *Request) { r.Target, r.Given = "stdio:x", given("synchronous") }, "synchronous", "is the embedded store's: the server of --target stdio:x keeps its own"},
		{"call timeout without a target", func(r *Request) { r.Given = given("call_timeout") }, "call_timeout", "is about a server: give --target too"},
		{"watch without a target", func(r *Request) { r.Watch, r.Given = dir, given("watch") }, "watch", "is about a server: give --target too"},
		{"watch a file", func(r *Request) { r.Target, r.Watch = "stdio:x", file }, "watch", file + " is not a folder"},
		{"a server notesbench does not start", func(r *Request) { r.Target = "http://127.0.0.1:1/mcp" }, "target",
			"only a server notesbench starts can be killed or paused: target http://127.0.0.1:1/mcp is a server notesbench does not start; give the command that starts it (--spawn), or fault it with lose-replies or duplicate only"},
		{"spawn without a port", func(r *Request) { r.Target, r.Spawn = "http://127.0.0.1:{port}/mcp", "srv" }, "spawn", ""},
		{"the first refusal", func(r *Request) { r.Timeout, r.Target, r.Given = 0, "stdio:x", given("db") }, "timeout", "must be more than 0"},
		{"given before kills", func(r *Request) { r.Kills, r.Target, r.Given = 0, "stdio:x", given("db") }, "db", "is the embedded store's: the server of --target stdio:x keeps its own"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.change(&r)
			_, err := r.Settings()
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != tc.field || (tc.want != "" && fe.Err.Error() != tc.want) {
				t.Errorf("%v, want the field error %s: %s", err, tc.field, tc.want)
			}
		})
	}
}

// The target a test reaches is asked for the kill fault alone.
func TestSpecAsksForTheKill(t *testing.T) {
	s := Spec("stdio:srv", "memory", "")
	if s.Target != "stdio:srv" || s.Profile != "memory" || s.Faults == nil || !slices.Equal(s.Faults.Kinds, []string{"kill"}) {
		t.Errorf("spec %+v", s)
	}
}
