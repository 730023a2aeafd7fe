package crash

import (
	"errors"
	"os"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// Request is a kill -9 test as a user asks for it, in words not yet read:
// Settings checks it, before anything runs, and returns the test's
// settings. Its errors are *field.Error, each field named as notesbench
// crash's flag of it is (call_timeout is --call-timeout).
type Request struct {
	Kills int
	Seed  uint64
	// Life is how long each server serves before it is killed, a uniform
	// range as sim.ParseDist reads it ("5ms-40ms").
	Life string
	// Synchronous is the embedded store's list of synchronous settings
	// ("normal,full"), read without a Target only.
	Synchronous string
	// Target is the server to kill, "" for the embedded store; Profile,
	// Spawn and Watch are a server's, as Spec and Settings.Watch say.
	Target, Profile, Spawn, Watch string
	// Timeout bounds each check of the history, more than 0. CallTimeout
	// and StartTimeout bound a call and a server's start (0: no bound), and
	// Stall the wait for a write after a kill (0: DefaultStall).
	Timeout, CallTimeout, StartTimeout, Stall time.Duration
	// Given reports whether the user gave the setting called name: the
	// embedded store's (storeOnly) refuse a Target, a server's
	// (serverOnly) need one. nil: none was given.
	Given func(name string) bool
}

// storeOnly are the settings of the embedded store, which the server of a
// target keeps its own of; serverOnly those about a server, which need a
// target.
var (
	storeOnly  = []string{"synchronous", "db"}
	serverOnly = []string{"profile", "spawn", "call_timeout", "start_timeout", "watch"}
)

// Settings checks r, first the settings of the run, then which go with a
// target, the embedded store's, the server's folder and the target, and
// returns the test's settings.
func (r Request) Settings() (results.CrashSettings, error) {
	switch {
	case r.Timeout <= 0:
		return results.CrashSettings{}, field.Errorf("timeout", "must be more than 0")
	case r.CallTimeout < 0:
		return results.CrashSettings{}, field.Errorf("call_timeout", "cannot be negative")
	case r.StartTimeout < 0:
		return results.CrashSettings{}, field.Errorf("start_timeout", "cannot be negative")
	case r.Stall < 0:
		return results.CrashSettings{}, field.Errorf("stall", "cannot be negative")
	}
	life, err := sim.ParseDist(r.Life)
	if err != nil {
		return results.CrashSettings{}, field.Wrap("life", err)
	}
	s := results.CrashSettings{Kills: r.Kills, Seed: r.Seed, LifeMinNS: life.Min, LifeMaxNS: life.Max, Target: r.Target, Profile: r.Profile, Watch: r.Watch, StallNS: r.Stall}
	if s.Synchronous, err = r.store(); err != nil {
		return results.CrashSettings{}, err
	}
	if err := (RunConfig{Kills: s.Kills, MinLife: s.LifeMinNS, MaxLife: s.LifeMaxNS}).Validate(); err != nil {
		return results.CrashSettings{}, err
	}
	if r.Watch != "" {
		if st, err := os.Stat(r.Watch); err != nil || !st.IsDir() {
			return results.CrashSettings{}, field.Errorf("watch", "%s is not a folder", r.Watch)
		}
	}
	if err := r.checkTarget(); err != nil {
		return results.CrashSettings{}, err
	}
	return s, nil
}

// store checks the settings of the embedded store, which go without a
// target, and those of a server, which go with one; it returns the
// embedded store's synchronous settings.
func (r Request) store() ([]contract.Synchronous, error) {
	given := func(name string) bool { return r.Given != nil && r.Given(name) }
	if r.Target != "" {
		for _, name := range storeOnly {
			if given(name) {
				return nil, field.Errorf(name, "is the embedded store's: the server of --target %s keeps its own", r.Target)
			}
		}
		return nil, nil
	}
	for _, name := range serverOnly {
		if given(name) {
			return nil, field.Errorf(name, "is about a server: give --target too")
		}
	}
	syncs, err := contract.ParseList(r.Synchronous, contract.SynchronousSettings.Parse)
	return syncs, field.Wrap("synchronous", err)
}

// checkTarget checks the target and the settings that reach it. The kills
// are the test's own: a target that cannot be killed is the target's
// error.
func (r Request) checkTarget() error {
	if r.Target == "" {
		return nil
	}
	err := Spec(r.Target, r.Profile, r.Spawn).Check()
	var fe *field.Error
	if errors.As(err, &fe) && fe.Field == "nemesis" {
		return field.Wrap("target", fe.Err)
	}
	return err
}

// Spec is how a test reaches the server it kills: target through profile
// (none: the contract's own tools), started by spawn for an HTTP target,
// with the kill fault asked of it. The caller adds the rest (timeouts, its
// version) and opens it.
func Spec(target, profile, spawn string) backend.Spec {
	return backend.Spec{Target: target, Profile: profile, Spawn: spawn, Faults: &nemesis.Faults{Kinds: []string{history.FaultKill}}}
}
