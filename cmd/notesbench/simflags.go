package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/sim"
)

// historyFlags record every call of a run in a history, for notesbench check.
type historyFlags struct {
	path   string
	writer *history.Writer
}

func (h *historyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&h.path, "history", "", "record every call of every run, with its times and outcome, in this JSON Lines file for notesbench check (written whole or not at all)")
}

// start checks the history file can be written, before anything runs, and
// returns the Writer the experiment records into (nil without --history).
func (h *historyFlags) start(a *app, experiment string) (*history.Writer, error) {
	if h.path == "" {
		return nil, nil
	}
	if err := checkHistoryWritable(h.path); err != nil {
		return nil, usageErr("--history", err)
	}
	h.writer = history.NewWriter(history.Header{Experiment: experiment,
		Command: redactPasswords(strings.Join(append([]string{"notesbench"}, a.args...), " "))})
	return h.writer, nil
}

// finish writes the history, when one was recorded.
func (h *historyFlags) finish() error {
	if h.writer == nil {
		return nil
	}
	if err := h.writer.WriteFile(h.path); err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	return nil
}

// envFlags are the flags of every simulation: clock, seeds, parallelism and
// what serves the contract.
type envFlags struct {
	targetFlags
	history     historyFlags
	clock       string
	seeds       string
	parallel    int
	db          string
	memory      bool
	synchronous string
	serviceTime time.Duration
}

// register registers the flags, with seeds the default --seeds; the clock is
// the real one unless --clock says otherwise, as in the published setups.
func (f *envFlags) register(fs *pflag.FlagSet, seeds string) {
	f.targetFlags.register(fs)
	f.history.register(fs)
	fs.StringVar(&f.clock, "clock", string(sim.ClockReal), "clock: real (wall clock, the published setup) or virtual (deterministic, no sleeping)")
	fs.StringVar(&f.seeds, "seeds", seeds, "seeds, as ranges and lists: 1-5,7,10-12")
	fs.IntVar(&f.parallel, "parallel", 0, "runs at once (0: every run under the real clock, one per CPU under the virtual clock)")
	fs.StringVar(&f.db, "db", "", "keep each run's SQLite database in this folder (default: a temporary folder, removed)")
	fs.BoolVar(&f.memory, "memory", false, "keep the databases in memory instead of WAL files")
	fs.StringVar(&f.synchronous, "synchronous", "normal", "SQLite synchronous setting: normal or full")
	fs.DurationVar(&f.serviceTime, "service-time", sim.DefaultServiceTime, "virtual time one store operation takes (virtual clock only)")
}

// env turns the flags into a sim.Env for the experiment called name, with
// usage errors naming the flag; a server named by --target is connected to.
func (f *envFlags) env(ctx context.Context, a *app, name string) (sim.Env, error) {
	clock, err := sim.ParseClock(f.clock)
	if err != nil {
		return sim.Env{}, usageErr("--clock", err)
	}
	seeds, err := sim.ParseSeeds(f.seeds)
	if err != nil {
		return sim.Env{}, usageErr("--seeds", err)
	}
	if f.parallel < 0 {
		return sim.Env{}, usagef("--parallel", "must be 0 or more")
	}
	if f.serviceTime < 0 {
		return sim.Env{}, usagef("--service-time", "must be 0 or more")
	}
	if f.memory && f.db != "" {
		return sim.Env{}, usagef("--db", "cannot keep databases with --memory")
	}
	if f.remote() && clock == sim.ClockVirtual {
		return sim.Env{}, usagef("--clock", "the virtual clock cannot drive %s: a server commits on its own clock (use --clock real)", f.target)
	}
	if f.db != "" {
		if err := checkDBFolder(f.db); err != nil {
			return sim.Env{}, usageErr("--db", err)
		}
	}
	target, err := f.open(ctx, backend.Spec{DBDir: f.db, InMemory: f.memory, Synchronous: f.synchronous})
	if err != nil {
		return sim.Env{}, err
	}
	env := sim.Env{Clock: clock, ServiceTime: f.serviceTime, Seeds: seeds, Parallel: f.parallel, DBDir: f.db,
		InMemory: f.memory, Synchronous: f.synchronous, Store: f.storeName, Target: target, Progress: progress(a, name)}
	if f.remote() {
		env.TargetName = f.target
	}
	if env.History, err = f.history.start(a, name); err != nil {
		return env, err
	}
	return env, nil
}

// editingFlags are the flags of the editing loop shared by race and tabs: the
// edits, the think ranges, and the timing model — a named profile (--timing)
// or a pause rule and an oversleep rule of one's own.
type editingFlags struct {
	edits       int
	claudeThink string
	humanThink  string
	sleep       sleepFlags
	timing      string
}

func (f *editingFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.IntVar(&f.edits, "edits", 100, "edits per editor per run")
	fs.StringVar(&f.claudeThink, "claude-think", "20ms-80ms", "claude's think time between read and write: a uniform range or one duration")
	fs.StringVar(&f.humanThink, "human-think", "5ms-40ms", "the person's think time between read and write")
	f.sleep.register(cmd, sim.PauseThink, `pause before each read: "think" (each editor draws from its own think range), "uniform0" (U(0, the editor's think maximum)), or a range such as 0 or 10ms-70ms`)
	fs.StringVar(&f.timing, "timing", "default", `timing model: "default" (pause think, no oversleep: the reading of the write-up) or "published-fit" (pause uniform0, oversleep slack:d/4,max=5ms: inferred from the published figures, not stated in the write-up); not with --pause or --oversleep`)
	var names []string
	for _, p := range sim.Profiles() {
		names = append(names, p[0]+"\t"+p[1])
	}
	cmd.RegisterFlagCompletionFunc("timing", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
}

// parse returns the editing loop the flags set, with usage errors naming the
// flag. --timing names a whole model, so it refuses --pause and --oversleep
// beside it rather than pick one of them silently.
func (f *editingFlags) parse() (sim.Editing, error) {
	e := sim.Editing{Edits: f.edits}
	var err error
	if e.ClaudeThink, err = sim.ParseDist(f.claudeThink); err != nil {
		return e, usageErr("--claude-think", err)
	}
	if e.HumanThink, err = sim.ParseDist(f.humanThink); err != nil {
		return e, usageErr("--human-think", err)
	}
	if f.sleep.flags.Changed("timing") {
		if f.sleep.flags.Changed("pause") || f.sleep.flags.Changed("oversleep") {
			return e, usagef("--timing", "cannot be combined with --pause or --oversleep: a timing model sets both (published-fit: pause uniform0, oversleep slack:d/4,max=5ms)")
		}
		p, err := sim.ParseProfile(f.timing)
		if err != nil {
			return e, usageErr("--timing", err)
		}
		return e.WithProfile(p), nil
	}
	over, err := f.sleep.oversleepRule()
	if err != nil {
		return e, err
	}
	return e.WithRules(f.sleep.pause, over), nil
}

// sleepFlags are the flags of how an editor sleeps: its pause before each
// read and the oversleep of every sleep. race, tabs and fast share them.
type sleepFlags struct {
	pause     string
	oversleep string
	flags     *pflag.FlagSet
}

func (f *sleepFlags) register(cmd *cobra.Command, pause, pauseHelp string) {
	f.flags = cmd.Flags()
	f.flags.StringVar(&f.pause, "pause", pause, pauseHelp)
	f.flags.StringVar(&f.oversleep, "oversleep", "none", `how much longer than drawn every pause and think lasts: "none", a duration added to each (5ms), or a slack such as slack:d/4,max=5ms (min(d/4, 5ms)); on the real clock on top of what the operating system adds`)
	pauses := []string{"0\tno pause"}
	if pause == sim.PauseThink {
		pauses = []string{"think\teach editor's own think range", "uniform0\tU(0, the editor's think maximum)", "0\tno pause"}
	}
	cmd.RegisterFlagCompletionFunc("pause", cobra.FixedCompletions(pauses, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("oversleep", cobra.FixedCompletions([]string{
		"none\tsleeps last as drawn", "slack:d/4,max=5ms\tmin(d/4, 5ms), the published-fit rule", "slack:d/8,max=1ms\tmin(d/8, 1ms)",
	}, cobra.ShellCompDirectiveNoFileComp))
}

// oversleepRule parses --oversleep.
func (f *sleepFlags) oversleepRule() (sim.Oversleep, error) {
	o, err := sim.ParseOversleep(f.oversleep)
	if err != nil {
		return o, usageErr("--oversleep", err)
	}
	return o, nil
}

// parseList parses a comma-separated flag value item by item, refusing an item
// listed twice; errors name the flag.
func parseList[T comparable](flag, value string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, item := range strings.Split(value, ",") {
		v, err := parse(strings.TrimSpace(item))
		if err != nil {
			return nil, usageErr(flag, err)
		}
		if slices.Contains(out, v) {
			return nil, usagef(flag, "%v is listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}
