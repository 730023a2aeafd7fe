package mcpclient

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/sim"
)

// builtin returns a built-in profile.
func builtin(t testing.TB, name string) *profile.Profile {
	t.Helper()
	p, err := profile.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The notes profile is the Notes contract written as a profile: through it,
// create and sources count what the native path counts, run by run, on the
// same server (both run on the virtual clock, their lost replies drawn from
// the seed), and race's re-apply loses nothing.
func TestNotesProfileCountsAsNative(t *testing.T) {
	spec := serveHTTP(t, contract.Variant{})
	native := dialT(t, spec, Options{})
	profiled := dialT(t, spec, Options{Profile: builtin(t, "notes")})
	seeds := []uint64{1, 2, 3}

	create := func(tg *Target) any {
		cfg := sim.DefaultCreate()
		cfg.Target, cfg.Seeds, cfg.Tabs, cfg.Order = tg, seeds, 15, contract.OrderKeyFirst
		res, err := cfg.Run(ctx, seeds)
		if err != nil {
			t.Fatal(err)
		}
		return res.Runs
	}
	sources := func(tg *Target) any {
		cfg := sim.DefaultSources()
		cfg.Target, cfg.Seeds, cfg.Sessions, cfg.ListSources = tg, seeds, 5, 60
		res, err := cfg.Run(ctx, seeds)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for name, run := range map[string]func(*Target) any{"create": create, "sources": sources} {
		a, b := run(native), run(profiled)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: native and notes profile differ:\nnative  %+v\nprofile %+v", name, a, b)
		}
		if s := fmt.Sprintf("%+v", a); len(s) < 100 {
			t.Errorf("%s: suspiciously little compared: %s", name, s)
		}
	}

	cfg := sim.DefaultRace()
	cfg.Target, cfg.Seeds, cfg.Modes, cfg.Edits = profiled, []uint64{1}, []sim.Mode{{Guard: contract.GuardNote, Policy: sim.Reapply}}, 30
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 2 * time.Millisecond}, sim.Dist{Max: 2 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Runs[0]; r.Lost() != 0 || r.Claude.Writes+r.Human.Writes < 60 {
		t.Errorf("note/reapply through the notes profile: %+v", r)
	}
}
