package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
)

// Process is one notesbench serve put together: a Server of a Backend over
// stdio or a listener, the scripted person beside its clients and the
// history of their calls, started in order and ended in the reverse. What the
// operator reads of it (where it listens, the person's summary, where the
// history is) goes to Options.Warn, a line each, as the Server's warnings do.
type Process struct {
	// Options are the Server's. Options.History is made by Run, from
	// HistoryLog.
	Options
	// Person, when set, edits its Note beside the clients (StartPerson).
	Person *PersonSchedule
	// HistoryLog, when set, is the file the served run is recorded in, from
	// its first line (HistoryPath names it to the operator). Run records
	// into it; the caller creates it, and removes it when Run says no server
	// was started.
	HistoryLog  *history.Log
	HistoryPath string
	// Listener, when set, is served over streamable HTTP (ServeListener);
	// Addr is the address it was asked to listen on. Otherwise Stdio is
	// served.
	Listener net.Listener
	Addr     string
	Stdio    StdioTransport
	// Where names the database to the operator: "file /srv/notesbench.db".
	Where string
}

// Run serves b until ctx is done or the stdio input ends, then closes the
// server, which ends the history. It owns b: b is closed when Run returns.
// started says a server was started: when it is false, the history holds no
// call (Run closed it) and may be removed. An error of the person's or the
// history's configuration is a field.Error ("person", "history").
func (p Process) Run(ctx context.Context, b contract.Backend) (started bool, err error) {
	if p.HistoryLog != nil {
		if p.Options.History, err = p.record(); err != nil {
			b.Close()
			p.closeHistory()
			return false, err
		}
		p.say("recording every call in %s", p.HistoryPath)
	}
	srv, err := New(ctx, b, p.Options)
	if err != nil {
		b.Close()
		p.closeHistory()
		return false, err
	}
	stop, err := p.startPerson(ctx, srv)
	if err != nil {
		srv.Close()
		p.closeHistory()
		return false, err
	}
	if p.Listener == nil {
		p.say("MCP over stdio; database %s; %s", p.Where, p.Variant)
		err = srv.Serve(ctx, &p.Stdio)
	} else {
		url := "http://" + p.Listener.Addr().String() + HTTPPath
		if !Loopback(p.Addr) {
			p.say("warning: %s serves beyond this machine; every request must carry the bearer token", p.Addr)
		}
		p.say("listening on %s; database %s; %s", url, p.Where, p.Variant)
		err = srv.ServeListener(ctx, p.Listener)
	}
	if stop != nil {
		p.say("%s", personSummary(p.Person.Note, stop()))
	}
	if cerr := srv.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing the database %s: %w", p.Where, cerr))
	}
	if p.HistoryLog != nil && p.HistoryLog.Err() == nil {
		p.say("history %s written; notesbench check %s judges its clients", p.HistoryPath, p.HistoryPath)
	}
	if err == nil && ctx.Err() != nil {
		p.say("stopped; database closed")
	}
	return true, err
}

// record starts recording the served run into History: the run of the
// served variant, with the person's seed and schedule as its policy, on the
// clock of the time since it began.
func (p Process) record() (*history.Recorder, error) {
	run := history.RunHeader{Run: history.ExperimentServe, Clock: "real", Variant: p.Variant}
	if p.Person != nil {
		run.Seed, run.Policy = p.Person.Seed, "person "+p.Person.String()
	}
	start := time.Now()
	rec, err := history.Record(p.HistoryLog, run, func() int64 { return int64(time.Since(start)) })
	return rec, field.Wrap("history", err)
}

// closeHistory closes the history of a server that was not started.
func (p Process) closeHistory() {
	if p.HistoryLog != nil {
		p.HistoryLog.Close()
	}
}

// startPerson starts the person, when there is one, and says so; stop is
// nil without one.
func (p Process) startPerson(ctx context.Context, srv *Server) (stop func() PersonReport, err error) {
	if p.Person == nil {
		return nil, nil
	}
	if stop, err = srv.StartPerson(ctx, *p.Person); err != nil {
		return nil, field.Wrap("person", err)
	}
	p.say("a person edits Note %s, %s, seed %d", p.Person.Note, p.Person, p.Person.Seed)
	return stop, nil
}

// say writes one line for the operator to Options.Warn.
func (p Process) say(format string, args ...any) {
	if p.Warn != nil {
		fmt.Fprintf(p.Warn, "notesbench serve: "+format+"\n", args...)
	}
}

// personSummary says what the person did on Note note, in a line.
func personSummary(note string, r PersonReport) string {
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
