package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
)

// Process is one notesbench serve put together: a Server of a Backend over
// stdio or a listener, the Note its clients start with, the scripted person
// beside its clients and the history of their calls, started in order and
// ended in the reverse. What the operator reads of it (the Note, where it
// listens, the person's summary, where the history is) goes to
// Options.Warn, a line each, as the Server's warnings do.
type Process struct {
	// Options are the Server's. Options.Note, when set, is made sure to
	// exist before anything else starts. Options.History is made by Run,
	// from HistoryPath.
	Options
	// Person, when set, edits its Note beside the clients (StartPerson).
	Person *PersonSchedule
	// HistoryPath, when set, is the new file the served run is recorded in,
	// from its first line, its header giving Command (the command line that
	// started the process). Run creates it, and removes it again when no
	// server was started.
	HistoryPath string
	Command     string
	// Listener, when set, is served over streamable HTTP (ServeListener);
	// Addr is the address it was asked to listen on. Otherwise Stdio is
	// served.
	Listener net.Listener
	Addr     string
	Stdio    StdioTransport
	// Where names the database to the operator: "file /srv/notesbench.db".
	Where string
}

// TokenEnv is the environment variable that holds the bearer token of a
// Process served beyond loopback when no token file names one.
const TokenEnv = "NOTESBENCH_TOKEN"

// ParseVariant returns the contract variant four words name, as notesbench
// serve's command line spells them: a guard, a version format, an order and
// a key reuse (contract.Guards, VersionFormats, Orders and KeyReuses). A
// word that names no value is a field.Error on its field (guard,
// version_format, order, key_reuse). A key replayed, the published answer,
// is left zero, as every result writes it.
func ParseVariant(guard, versionFormat, order, keyReuse string) (contract.Variant, error) {
	var v contract.Variant
	var err error
	if v.Guard, err = contract.Guards.Parse(guard); err != nil {
		return contract.Variant{}, field.Wrap("guard", err)
	}
	if v.VersionFormat, err = contract.VersionFormats.Parse(versionFormat); err != nil {
		return contract.Variant{}, field.Wrap("version_format", err)
	}
	if v.Order, err = contract.Orders.Parse(order); err != nil {
		return contract.Variant{}, field.Wrap("order", err)
	}
	reuse, err := contract.KeyReuses.Parse(keyReuse)
	if err != nil {
		return contract.Variant{}, field.Wrap("key_reuse", err)
	}
	if reuse == contract.KeyRefuse {
		v.KeyReuse = reuse
	}
	return v, nil
}

// Validate checks what can be checked of the Process before anything is
// opened, each error a field.Error: over HTTP, the options (HTTPOptions.Check)
// and, at an address beyond loopback, a bearer token ("http"); a person, a
// Note to edit ("person"); a history, a file that does not exist yet
// ("history"): a served history is written as it goes, from its first line,
// so it never replaces one, nor is it appended to one (each is one serve
// process's run). Whether the history's folder takes a new file is the
// caller's check, as for any file it writes.
func (p Process) Validate() error {
	if p.Addr != "" {
		if err := p.HTTP.Check(); err != nil {
			return err
		}
		if p.HTTP.Token == "" && !Loopback(p.Addr) {
			return field.Errorf("http", "%s serves beyond this machine: name a bearer token with --token-file FILE or $%s", p.Addr, TokenEnv)
		}
	}
	if p.Person != nil && p.Person.Note == "" {
		return field.Errorf("person", "needs a Note to edit: --note names it")
	}
	if p.HistoryPath != "" {
		if _, err := os.Stat(p.HistoryPath); err == nil {
			return field.Errorf("history", "%s holds a history already, which serve never replaces: name another file, or move that one away", p.HistoryPath)
		}
	}
	return nil
}

// Run serves b until ctx is done or the stdio input ends, then closes the
// server, which ends the history. It owns b: b is closed when Run returns.
// Before it serves, it makes sure the Note exists (saying whether it was
// created) and creates the history; when it returns before a server was
// started, the history is removed, holding no call. An error of the Note,
// the person's or the history's configuration is a field.Error ("note",
// "person", "history").
func (p Process) Run(ctx context.Context, b contract.Backend) error {
	if err := p.ensureNote(ctx, b); err != nil {
		b.Close()
		return err
	}
	var log *history.Log // HistoryPath's, once created
	if p.HistoryPath != "" {
		var err error
		if log, err = history.CreateLog(p.HistoryPath, history.Header{Experiment: history.ExperimentServe, Command: p.Command}); err != nil {
			b.Close()
			return fmt.Errorf("--history: %w", err)
		}
		if p.Options.History, err = p.record(log); err != nil {
			b.Close()
			p.removeHistory(log)
			return err
		}
		p.say("recording every call in %s", p.HistoryPath)
	}
	srv, err := New(ctx, b, p.Options)
	if err != nil {
		b.Close()
		p.removeHistory(log)
		return err
	}
	stop, err := p.startPerson(ctx, srv)
	if err != nil {
		srv.Close()
		p.removeHistory(log)
		return err
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
	if log != nil && log.Err() == nil {
		p.say("history %s written; notesbench check %s judges its clients", p.HistoryPath, p.HistoryPath)
	}
	if err == nil && ctx.Err() != nil {
		p.say("stopped; database closed")
	}
	return err
}

// ensureNote makes sure the Note Options.Note names exists, when it names
// one, and says so. A Note ID the Backend refuses is a field.Error on
// "note".
func (p Process) ensureNote(ctx context.Context, b contract.Backend) error {
	if p.Note == "" {
		return nil
	}
	created, err := EnsureNote(ctx, b, p.Note)
	if err != nil {
		var bad *contract.InvalidArgumentError
		if errors.As(err, &bad) {
			return field.Wrap("note", err)
		}
		return fmt.Errorf("--note %s: %w", p.Note, err)
	}
	state := "exists"
	if created {
		state = "created"
	}
	p.say("Note %s (%s); a client can start with list_note_tabs on it", p.Note, state)
	return nil
}

// record starts recording the served run into log: the run of the
// served variant, with the person's seed and schedule as its policy, on the
// clock of the time since it began.
func (p Process) record(log *history.Log) (*history.Recorder, error) {
	run := history.RunHeader{Run: history.ExperimentServe, Clock: "real", Variant: p.Variant}
	if p.Person != nil {
		run.Seed, run.Policy = p.Person.Seed, "person "+p.Person.String()
	}
	start := time.Now()
	rec, err := history.Record(log, run, func() int64 { return int64(time.Since(start)) })
	return rec, field.Wrap("history", err)
}

// removeHistory closes and removes log, the history of a server that was
// not started (none when nil).
func (p Process) removeHistory(log *history.Log) {
	if log != nil {
		log.Close()
		os.Remove(p.HistoryPath)
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
