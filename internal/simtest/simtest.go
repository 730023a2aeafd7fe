// Package simtest holds what the tests of the experiments share: the
// in-memory contract they run on, running a configuration as its command
// does, and checks every experiment's configuration and rows owe.
package simtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// MemTarget is the contract every test runs on unless it says otherwise: a
// fresh in-memory SQLite database per run.
var MemTarget = &store.Target{InMemory: true}

// OnMemory is the Runtime every test runs on unless it says otherwise: runs
// go to MemTarget, nothing is recorded.
var OnMemory = sim.Runtime{Target: MemTarget}

// On is the Runtime of runs that go to target.
func On(target contract.Target) sim.Runtime { return sim.Runtime{Target: target} }

// FileTarget keeps every run's database as a WAL file in dir, closed when
// the test ends.
func FileTarget(t testing.TB, dir string) *store.Target {
	tg := &store.Target{Dir: dir}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// RunOn runs exp against rt on the seeds its configuration names.
func RunOn[Row results.Row, Run any](ctx context.Context, exp sim.Runner[Row, Run], rt sim.Runtime) (sim.Result[Row, Run], error) {
	return exp.Run(ctx, rt, exp.SeedList())
}

// MustRunOn runs exp against rt on the seeds its configuration names; an
// error fails the test.
func MustRunOn[Row results.Row, Run any](t testing.TB, exp sim.Runner[Row, Run], rt sim.Runtime) sim.Result[Row, Run] {
	t.Helper()
	res, err := RunOn(context.Background(), exp, rt)
	if err != nil {
		t.Fatalf("%T(%+v): %v", exp, exp, err)
	}
	return res
}

// MustRun runs exp on MemTarget on the seeds its configuration names; an
// error fails the test.
func MustRun[Row results.Row, Run any](t testing.TB, exp sim.Runner[Row, Run]) sim.Result[Row, Run] {
	t.Helper()
	return MustRunOn(t, exp, OnMemory)
}

// BadConfig is an edit that makes an experiment's configuration invalid, and
// the error Validate must give for it.
type BadConfig[C any] struct {
	Edit func(*C)
	Want string
}

// ExpectInvalid checks each bad edit of the configuration base returns: its
// Validate against MemTarget gives the error wanted, and running it gives the
// same error, a *field.Error, before anything runs. base itself must be
// valid.
func ExpectInvalid[C sim.Runner[Row, Run], Row results.Row, Run any](t *testing.T, base func() C, bad []BadConfig[C]) {
	t.Helper()
	for _, b := range bad {
		cfg := base()
		b.Edit(&cfg)
		if err := cfg.Validate(MemTarget); err == nil || err.Error() != b.Want {
			t.Errorf("Validate() = %v, want %q", err, b.Want)
		}
		if _, err := RunOn(context.Background(), cfg, OnMemory); !errors.As(err, new(*field.Error)) || err.Error() != b.Want {
			t.Errorf("%T with a bad config returned %v, want the validation error", cfg, err)
		}
	}
	if err := base().Validate(MemTarget); err != nil {
		t.Errorf("the default config is invalid: %v", err)
	}
}

// MustLookup returns the published table of the experiment called name; a
// missing one fails the test.
func MustLookup(t testing.TB, name string) *results.Experiment {
	t.Helper()
	exp, ok := results.Lookup(name)
	if !ok {
		t.Fatalf("no published %s table", name)
	}
	return exp
}

// ObjectKeysInOrder returns the keys of the JSON object v marshals to, in
// order: a row's JSON keys are part of its format.
func ObjectKeysInOrder(t testing.TB, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object", b)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// Bad is the BadConfig of edit, whose Validate must say want.
func Bad[C any](edit func(*C), want string) BadConfig[C] { return BadConfig[C]{Edit: edit, Want: want} }

// MustGet returns what get returns; its error fails the test.
func MustGet[T any](t testing.TB, get func() (T, error)) T {
	t.Helper()
	v, err := get()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// VirtualEnv is the environment of a run on the virtual clock, in memory,
// for seeds.
func VirtualEnv(seeds []uint64) sim.Env {
	return sim.Env{Clock: sim.ClockVirtual, ServiceTime: sim.DefaultServiceTime, Seeds: seeds, InMemory: true}
}

// Seeds returns the seeds lo to hi, both included.
func Seeds(lo, hi uint64) []uint64 {
	var s []uint64
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// Configure returns d's experiment configured as its command configures it:
// params (name, value, …) set as flags, the rest finished, on rt with
// settings.
func Configure(t testing.TB, d experiment.Descriptor, settings sim.TargetSettings, rt sim.Runtime, params ...string) experiment.Instance {
	t.Helper()
	if len(params)%2 != 0 {
		t.Fatalf("params %q: want name, value pairs", params)
	}
	in := d.New()
	given := map[string]string{}
	for i := 0; i < len(params); i += 2 {
		given[params[i]] = params[i+1]
	}
	for _, p := range in.Params() {
		if v, ok := given[p.Name]; ok {
			if err := p.Set(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	isGiven := func(name string) bool { _, ok := given[name]; return ok }
	if err := in.Finish(isGiven); err != nil {
		t.Fatal(err)
	}
	if err := in.Use(settings, rt, isGiven); err != nil {
		t.Fatal(err)
	}
	return in
}
