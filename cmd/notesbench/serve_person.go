package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/serve"
)

// agentFlags are serve's flags for judging the agents that use it: a person
// who edits the Note beside them, and a history of every call, for
// notesbench check (docs/agents.md).
type agentFlags struct {
	person  string
	seed    uint64
	history string

	flags    *pflag.FlagSet
	schedule *serve.PersonSchedule
	log      *history.Log
	stop     func() serve.PersonReport
}

func (f *agentFlags) register(fs *pflag.FlagSet) {
	f.flags = fs
	fs.StringVar(&f.person, "person", "", "a person edits the Note --note names beside the clients: every=DURATION (the mean time between edits)[,actions=LIST of "+serve.PersonActions.Want()+"; default append], e.g. every=2s,actions=append,rename")
	fs.Uint64Var(&f.seed, "seed", 1, "with --person: the seed of the person's schedule (when it edits, and what)")
	fs.StringVar(&f.history, "history", "", "record every call of every client session, and every edit of the person, in this JSON Lines file for notesbench check: written as it goes, ended when serve stops; a new file: a history there already is never replaced")
}

// check validates the flags before anything is opened.
func (f *agentFlags) check(o *serveOptions) error {
	if f.person == "" {
		if f.flags.Changed("seed") {
			return usagef("--seed", "applies to --person only")
		}
	} else {
		p, err := serve.ParsePerson(f.person)
		if err != nil {
			return usageErr("--person", err)
		}
		if o.note == "" {
			return usagef("--person", "needs a Note to edit: --note names it")
		}
		p.Note, p.Seed = o.note, f.seed
		f.schedule = &p
	}
	if f.history != "" {
		if err := checkHistoryWritable(f.history); err != nil {
			return usageErr("--history", err)
		}
		// A served history is written as it goes, from its first line: it
		// never replaces one, nor is it appended to one (each is one serve
		// process's run).
		if _, err := os.Stat(f.history); err == nil {
			return usagef("--history", "%s holds a history already, which serve never replaces: name another file, or move that one away", f.history)
		}
		if !o.memory && !(backend.Spec{Store: o.store}).Postgres() {
			if err := distinctOutputs(output{"--db", o.db}, output{"--history", f.history}); err != nil {
				return err
			}
		}
	}
	return nil
}

// open creates the history file, with --history, and starts recording the
// run of the served variant into it. It returns nil without one.
func (f *agentFlags) open(a *app, v contract.Variant) (*history.Recorder, error) {
	if f.history == "" {
		return nil, nil
	}
	run := history.RunHeader{Run: history.ExperimentServe, Clock: "real", Variant: v}
	if f.schedule != nil {
		run.Seed, run.Policy = f.seed, "person "+f.schedule.String()
	}
	start := time.Now()
	log, err := history.CreateLog(f.history, history.Header{Experiment: history.ExperimentServe, Command: commandLine(a.args)})
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	f.log = log
	rec, err := history.Record(log, run, func() int64 { return int64(time.Since(start)) })
	if err != nil {
		f.abandon()
		return nil, fmt.Errorf("--history: %w", err)
	}
	fmt.Fprintf(a.stderr, "notesbench serve: recording every call in %s\n", f.history)
	return rec, nil
}

// abandon closes and removes a history no server was started for.
func (f *agentFlags) abandon() {
	if f.log != nil {
		f.log.Close()
		os.Remove(f.history)
	}
}

// start starts the person, with --person.
func (f *agentFlags) start(ctx context.Context, a *app, srv *serve.Server) error {
	if f.schedule == nil {
		return nil
	}
	stop, err := srv.StartPerson(ctx, *f.schedule)
	if err != nil {
		return usageErr("--person", err)
	}
	f.stop = stop
	fmt.Fprintf(a.stderr, "notesbench serve: a person edits Note %s, %s, seed %d\n", f.schedule.Note, f.schedule, f.seed)
	return nil
}

// finish stops the person and says what it did; the server's Close then
// ends the history.
func (f *agentFlags) finish(a *app) {
	if f.stop == nil {
		return
	}
	r := f.stop()
	fmt.Fprintf(a.stderr, "notesbench serve: %s\n", personSummary(f.schedule.Note, r))
}

// said says, once the server closed, where the history is.
func (f *agentFlags) said(a *app) {
	if f.log != nil && f.log.Err() == nil {
		fmt.Fprintf(a.stderr, "notesbench serve: history %s written; notesbench check %s judges its clients\n", f.history, f.history)
	}
}

// personSummary says what the person did, in a line.
func personSummary(note string, r serve.PersonReport) string {
	s := fmt.Sprintf("the person made %d edits on Note %s: %d lines appended, %d tabs renamed, %d moved, %d sources added",
		r.Edits(), note, r.Appended, r.Renamed, r.Moved, r.Sources)
	var more []string
	if r.Conflicts > 0 {
		more = append(more, fmt.Sprintf("%d writes tried again after a conflict", r.Conflicts))
	}
	if r.Passed > 0 {
		more = append(more, fmt.Sprintf("%d turns with no tab to rename", r.Passed))
	}
	if r.Failed > 0 {
		more = append(more, fmt.Sprintf("%d edits failed, the last: %s", r.Failed, r.LastError))
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	return s
}
