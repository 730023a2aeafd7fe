package experiment

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/sim"
)

// Seeds is the parameter of a list of seeds, as ranges and lists.
func Seeds(p *[]uint64) Param {
	return Custom("seeds", "string", "seeds, as ranges and lists: 1-5,7,10-12",
		func() string { return sim.FormatSeeds(*p) },
		func(s string) error {
			seeds, err := sim.ParseSeeds(s)
			if err != nil {
				return err
			}
			*p = seeds
			return nil
		}).AsPublished()
}

// OneSeed is the parameter of an experiment that runs one seed (refs,
// outline); its flag is --seeds all the same.
func OneSeed(name string, p *uint64) Param {
	return Custom("seeds", "string", "the seed of the run (one)",
		func() string { return strconv.FormatUint(*p, 10) },
		func(s string) error {
			seeds, err := sim.ParseSeeds(s)
			if err != nil {
				return err
			}
			if len(seeds) != 1 {
				return fmt.Errorf("%s takes one seed, not %d", name, len(seeds))
			}
			*p = seeds[0]
			return nil
		}).ForField("seed")
}

// Synchronous is the parameter of SQLite's synchronous setting (on
// PostgreSQL, synchronous_commit).
func Synchronous(p *contract.Synchronous) Param {
	q := Enum("synchronous", p, contract.SynchronousSettings, "SQLite synchronous setting: normal or full (on PostgreSQL, synchronous_commit off or on)")
	q.store = func(s *Storage) { s.Synchronous = *p }
	return q
}

// DB is the parameter of the folder each run's database is kept in.
func DB(p *string) Param {
	q := String("db", p, "keep each run's SQLite database in this folder (default: a temporary folder, removed)").ForField("db_dir")
	q.store = func(s *Storage) { s.DBDir = *p }
	return q
}

// Memory is the parameter that keeps the databases in memory.
func Memory(p *bool) Param {
	q := Bool("memory", p, "keep the databases in memory instead of WAL files").ForField("in_memory")
	q.store = func(s *Storage) { s.InMemory = *p }
	return q
}

// Storage is where the embedded runs of an experiment keep their databases,
// as its parameters say (Instance.Storage): a folder to keep them in (--db,
// empty: a temporary one), in memory (--memory), and SQLite's synchronous
// setting (--synchronous, empty: the store's default).
type Storage struct {
	DBDir       string
	InMemory    bool
	Synchronous contract.Synchronous
}

// EnvParams returns the parameters of the Env the race engine's
// experiments run on: the clock, the seeds (published), how many runs go at
// once, where the databases are kept and the virtual clock's service time.
func EnvParams(e *sim.Env) []Param {
	return []Param{
		Enum("clock", &e.Clock, sim.Clocks, "clock: real (wall clock, the published setup) or virtual (deterministic, no sleeping)"),
		Seeds(&e.Seeds),
		Int("parallel", &e.Parallel, "runs at once (0: every run under the real clock, one per CPU under the virtual clock)"),
		DB(&e.DBDir),
		Memory(&e.InMemory),
		Synchronous(&e.Synchronous),
		Duration("service-time", &e.ServiceTime, "virtual time one store operation takes (virtual clock only)").ForField("service_time_ns"),
	}
}

// Distribution is the parameter of a uniform range or one duration.
func Distribution(name string, p *sim.Dist, usage string) Param {
	return Custom(name, "string", usage, func() string { return p.String() }, func(s string) error {
		d, err := sim.ParseDist(s)
		if err != nil {
			return err
		}
		*p = d
		return nil
	})
}

// OversleepParam is the parameter of how much longer than drawn every sleep lasts.
func OversleepParam(p *sim.Oversleep) Param {
	return Custom("oversleep", "string", `how much longer than drawn every pause and think lasts: "none", a duration added to each (5ms), or a slack such as slack:d/4,max=5ms (min(d/4, 5ms)); on the real clock on top of what the operating system adds`,
		func() string { return p.String() }, func(s string) error {
			o, err := sim.ParseOversleep(s)
			if err != nil {
				return err
			}
			*p = o
			return nil
		}).AsPublished().Completing(false,
		"none\tsleeps last as drawn", "slack:d/4,max=5ms\tmin(d/4, 5ms), the published-fit rule", "slack:d/8,max=1ms\tmin(d/8, 1ms)")
}

// EditingParams returns the parameters of the editing loop race and tabs
// share: the edits, the think ranges, and the timing model — a named
// profile (--timing) or a pause rule and an oversleep rule of one's own.
func EditingParams(e *sim.Editing) []Param {
	var profiles []string
	for _, p := range sim.TimingModels() {
		profiles = append(profiles, p[0]+"\t"+p[1])
	}
	return []Param{
		Int("edits", &e.Edits, "edits per editor per run").AsPublished(),
		Distribution("claude-think", &e.ClaudeThink, "claude's think time between read and write: a uniform range or one duration").AsPublished(),
		Distribution("human-think", &e.HumanThink, "the person's think time between read and write").AsPublished(),
		String("pause", &e.Pause, `pause before each read: "think" (each editor draws from its own think range), "uniform0" (U(0, the editor's think maximum)), or a range such as 0 or 10ms-70ms`).
			AsPublished().Completing(false, "think\teach editor's own think range", "uniform0\tU(0, the editor's think maximum)", "0\tno pause"),
		OversleepParam(&e.Oversleep),
		Custom("timing", "string", `timing model: "default" (pause think, no oversleep: the reading of the write-up) or "published-fit" (pause uniform0, oversleep slack:d/4,max=5ms: inferred from the published figures, not stated in the write-up); not with --pause or --oversleep`,
			func() string { return e.Timing.Name() }, func(s string) error {
				p, err := sim.ParseTimingModel(s)
				if err != nil {
					return err
				}
				e.Timing = p
				return nil
			}).Completing(false, profiles...),
	}
}

// errTimingWithRules is a timing model given beside a rule of one's own.
var errTimingWithRules = errors.New("cannot be combined with --pause or --oversleep: a timing model sets both (published-fit: pause uniform0, oversleep slack:d/4,max=5ms)")

// FinishEditing applies a timing model that was given: it names a whole
// model, so it refuses --pause and --oversleep beside it rather than pick
// one of them silently.
func FinishEditing(e *sim.Editing, given func(string) bool) error {
	if !given("timing") {
		return nil
	}
	if given("pause") || given("oversleep") {
		return paramErr("timing", errTimingWithRules)
	}
	*e = e.WithTiming(e.Timing)
	return nil
}

// PublishedUnder returns the published setup under the timing profile of
// e: both profiles are readings of the published setup, rules of one's own
// are not.
func PublishedUnder(def, e sim.Editing) sim.Editing { return def.WithTiming(e.Timing) }
