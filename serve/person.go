package serve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// PersonAction is one kind of edit the person makes.
type PersonAction string

// The person's edits.
const (
	// PersonAppend appends a line to the Note's text: "person-TAG-N", TAG
	// naming the serve process (the base-36 milliseconds of its start), N
	// counting its appends from 1, so that its lines are unique in a Note
	// that several serve processes edited.
	PersonAppend PersonAction = "append"
	// PersonRename renames a random Slides or Sheet tab to one of
	// PersonLabels; with none in the Note, the turn passes.
	PersonRename PersonAction = "rename"
	// PersonMove moves a random tab to another position in the bar.
	PersonMove PersonAction = "move"
	// PersonSource adds a source, https://example.com/person-TAG-N.
	PersonSource PersonAction = "source"
)

// PersonActions are the person's edits, in the order errors list them.
var PersonActions = contract.NewEnum("person action", PersonAppend, PersonRename, PersonMove, PersonSource)

// PersonLabels are the labels the person renames tabs to.
var PersonLabels = []string{"Plan", "Draft", "Notes", "Summary", "Ideas"}

// PersonSchedule is the schedule of a person who edits a Note beside the
// clients, as a person in the app would: on average every Every, at random times (a
// Poisson process), one of Actions, each chosen at random, drawn from Seed.
//
// Each edit is one step on the current Note: the person reads what it
// changes and writes it at once, through the server's own Backend, while
// the clients' calls wait (the version check, expected_version and a key
// of its own, stays on all the same). So the person never overwrites a
// client: whatever of the person's a Note lacks at the end, a client's
// write lost it. Appends and sources are writes of the contract's tools;
// renames and moves are the person's actions (contract.Person), which take
// no version and no key but bump the version, as a save in the app does.
type PersonSchedule struct {
	Note    string
	Every   time.Duration
	Actions []PersonAction
	Seed    uint64
	// Wait waits out the gap drawn before each edit, and returns an error
	// once ctx is done; nil waits on the wall clock. A test gives one that
	// lets the person edit when it says, a step it controls.
	Wait func(ctx context.Context, gap time.Duration) error
}

// The bounds of Person.Every.
const (
	MinPersonEvery = time.Millisecond
	MaxPersonEvery = 24 * time.Hour
)

// ParsePerson reads a schedule as serve --person spells it:
// every=DURATION[,actions=LIST], LIST naming PersonActions separated by
// commas (append when none is named): "every=2s,actions=append,rename".
// The error names the setting at fault. Note and Seed are the caller's.
func ParsePerson(spec string) (PersonSchedule, error) {
	p := PersonSchedule{}
	var key string
	var actions []string
	seen := map[string]bool{}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			if key != "actions" {
				return PersonSchedule{}, fmt.Errorf("%q is no setting (want every=DURATION or actions=LIST)", item)
			}
			actions = append(actions, item)
			continue
		}
		key = strings.TrimSpace(k)
		if seen[key] {
			return PersonSchedule{}, fmt.Errorf("%s is set twice", key)
		}
		seen[key] = true
		switch key {
		case "every":
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return PersonSchedule{}, fmt.Errorf("every: %q is not a duration (e.g. 500ms, 2s)", strings.TrimSpace(v))
			}
			if d < MinPersonEvery || d > MaxPersonEvery {
				return PersonSchedule{}, fmt.Errorf("every: %v is not between %v and %v", d, MinPersonEvery, MaxPersonEvery)
			}
			p.Every = d
		case "actions":
			actions = append(actions, v)
		default:
			return PersonSchedule{}, fmt.Errorf("unknown setting %q (want every or actions)", key)
		}
	}
	if p.Every == 0 {
		return PersonSchedule{}, errors.New("every: missing (every=DURATION: the mean time between the person's edits)")
	}
	p.Actions = []PersonAction{PersonAppend}
	if seen["actions"] {
		list, err := contract.ParseList(strings.Join(actions, ","), PersonActions.Parse)
		if err != nil {
			return PersonSchedule{}, fmt.Errorf("actions: %w", err)
		}
		p.Actions = list
	}
	return p, nil
}

// String spells the schedule as ParsePerson reads it.
func (p PersonSchedule) String() string {
	names := make([]string, len(p.Actions))
	for i, a := range p.Actions {
		names[i] = string(a)
	}
	return "every=" + p.Every.String() + ",actions=" + strings.Join(names, ",")
}

// PersonReport counts what the person did.
type PersonReport struct {
	// Edits counts the edits that took effect, by action.
	Appended, Renamed, Moved, Sources int
	// Lines are the lines the person appended, in order.
	Lines []string
	// Passed counts the turns with nothing to do (a rename with no tab to
	// rename); Conflicts the writes tried again because the Note had
	// changed between the person's read and write; Failed the edits that
	// failed (the last failure in LastError).
	Passed, Conflicts, Failed int
	LastError                 string
}

// Edits counts the edits that took effect.
func (r PersonReport) Edits() int { return r.Appended + r.Renamed + r.Moved + r.Sources }

// personRun is a person started on a Server.
type personRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu     sync.Mutex
	report PersonReport
}

// stop stops the person and waits until it has.
func (p *personRun) stop() PersonReport {
	p.once.Do(func() {
		p.cancel()
		<-p.done
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.report
	r.Lines = slices.Clone(r.Lines)
	return r
}

// personTries bounds the tries of one edit whose write conflicts.
const personTries = 5

// StartPerson starts a person editing p.Note on the schedule p, until ctx
// ends or the returned stop is called, which waits for the edit in flight
// and returns what the person did; Close stops it too. With a history
// (Options.History), every call of the person is recorded, as the calls of
// the session history.PersonSession, editor history.PersonEditor, each
// append with its line as intent. The Note must exist; renames and moves
// need a Backend that offers the person's actions. One person may be
// started on a Server.
func (s *Server) StartPerson(ctx context.Context, p PersonSchedule) (stop func() PersonReport, err error) {
	if p.Note == "" {
		return nil, errors.New("the person needs a Note to edit")
	}
	if p.Every < MinPersonEvery {
		return nil, fmt.Errorf("every: %v is less than %v", p.Every, MinPersonEvery)
	}
	if len(p.Actions) == 0 {
		p.Actions = []PersonAction{PersonAppend}
	}
	if !s.person && (slices.Contains(p.Actions, PersonRename) || slices.Contains(p.Actions, PersonMove)) {
		return nil, errors.New("renames and moves are the person's actions, which this store does not offer")
	}
	cs, err := s.b.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening the person's session: %w", err)
	}
	if _, err := cs.ListNoteTabs(ctx, p.Note); err != nil {
		cs.Close()
		return nil, fmt.Errorf("note %s: %w", p.Note, err)
	}
	s.rec.mu.Lock()
	if s.rec.person != nil || s.rec.closed {
		s.rec.mu.Unlock()
		cs.Close()
		return nil, errors.New("a person was started already")
	}
	pctx, cancel := context.WithCancel(ctx)
	run := &personRun{cancel: cancel, done: make(chan struct{})}
	s.rec.person = run
	s.rec.mu.Unlock()
	e := &editor{s: s, p: p, run: run, cs: cs, rng: rand.New(rand.NewPCG(p.Seed, 0x70657273)),
		tag: strconv.FormatInt(time.Now().UnixMilli(), 36)}
	go func() {
		defer close(run.done)
		e.loop(pctx)
	}()
	return run.stop, nil
}

// editor is the person at work.
type editor struct {
	s   *Server
	p   PersonSchedule
	run *personRun
	rng *rand.Rand
	tag string
	n   int // the appends and sources tried so far

	cs contract.Session // the person's own session; nil after a failure
}

func (e *editor) loop(ctx context.Context) {
	defer func() {
		if e.cs != nil {
			e.cs.Close()
		}
	}()
	wait := e.p.Wait
	if wait == nil {
		wait = sleep
	}
	for {
		gap := time.Duration(e.rng.ExpFloat64() * float64(e.p.Every))
		if wait(ctx, gap) != nil {
			return
		}
		action := e.p.Actions[e.rng.IntN(len(e.p.Actions))]
		if err := e.edit(ctx, action); err != nil && ctx.Err() == nil {
			e.count(func(r *PersonReport) { r.Failed++; r.LastError = string(action) + ": " + err.Error() })
		}
	}
}

// sleep waits d on the wall clock, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (e *editor) count(f func(*PersonReport)) {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	f(&e.run.report)
}

// session returns the person's session, recorded when there is a history;
// a session that failed is opened again.
func (e *editor) session(ctx context.Context) (contract.Session, error) {
	if e.cs == nil {
		cs, err := e.s.b.Session(ctx)
		if err != nil {
			return nil, err
		}
		e.cs = cs
	}
	if e.s.opts.History == nil {
		return e.cs, nil
	}
	return e.s.personClient().Session(e.cs), nil
}

// edit makes one edit, alone between the clients' calls.
func (e *editor) edit(ctx context.Context, action PersonAction) error {
	e.s.rec.edit.Lock()
	defer e.s.rec.edit.Unlock()
	s, err := e.session(ctx)
	if err != nil {
		return err
	}
	switch action {
	case PersonAppend:
		e.n++
		err = e.appendLine(ctx, s, fmt.Sprintf("person-%s-%d", e.tag, e.n))
	case PersonSource:
		e.n++
		err = e.addSource(ctx, s, fmt.Sprintf("person-%s-%d", e.tag, e.n))
	case PersonRename:
		err = e.rename(ctx, s)
	case PersonMove:
		err = e.move(ctx, s)
	}
	if err != nil && !contract.IsOutcome(err) && ctx.Err() == nil {
		// Not the contract's answer: the connection may be broken.
		e.cs.Close()
		e.cs = nil
	}
	return err
}

// appendLine appends line to the Note's text, reading it afresh on a
// conflict.
func (e *editor) appendLine(ctx context.Context, s contract.Session, line string) error {
	history.Intend(s, history.Intent{Mark: line})
	defer history.Intend(s, history.Intent{})
	for try := 1; ; try++ {
		tab, err := s.ReadNoteTab(ctx, e.p.Note, string(contract.TypeMarkdown))
		if err != nil {
			return err
		}
		text := line
		if strings.TrimSpace(tab.Text) != "" {
			text = strings.TrimRight(tab.Text, "\n") + "\n" + line
		}
		_, err = s.EditNoteTab(ctx, contract.EditRequest{NoteID: e.p.Note, TabID: tab.TabID, ExpectedVersion: tab.Version,
			IdempotencyKey: line, Operation: contract.OpReplaceText, Text: text})
		if e.conflicted(err, try) {
			continue
		}
		if err == nil {
			e.count(func(r *PersonReport) { r.Appended++; r.Lines = append(r.Lines, line) })
		}
		return err
	}
}

// addSource adds a source named after name.
func (e *editor) addSource(ctx context.Context, s contract.Session, name string) error {
	for try := 1; ; try++ {
		list, err := s.ListNoteTabs(ctx, e.p.Note)
		if err != nil {
			return err
		}
		_, err = s.AddNoteSource(ctx, contract.SourceRequest{NoteID: e.p.Note, ExpectedVersion: list.Version,
			IdempotencyKey: name, Title: "Source " + name, URL: "https://example.com/" + name})
		if e.conflicted(err, try) {
			continue
		}
		if err == nil {
			e.count(func(r *PersonReport) { r.Sources++ })
		}
		return err
	}
}

// conflicted reports whether err is a conflict to try again after.
func (e *editor) conflicted(err error, try int) bool {
	var ce *contract.ConflictError
	if !errors.As(err, &ce) || try >= personTries {
		return false
	}
	e.count(func(r *PersonReport) { r.Conflicts++ })
	return true
}

// rename renames a random Slides or Sheet tab to another of PersonLabels.
func (e *editor) rename(ctx context.Context, s contract.Session) error {
	list, err := s.ListNoteTabs(ctx, e.p.Note)
	if err != nil {
		return err
	}
	var added []contract.TabInfo
	for _, t := range list.Tabs {
		if t.Type == contract.TypeSlides || t.Type == contract.TypeSheet {
			added = append(added, t)
		}
	}
	if len(added) == 0 {
		e.count(func(r *PersonReport) { r.Passed++ })
		return nil
	}
	t := added[e.rng.IntN(len(added))]
	labels := slices.DeleteFunc(slices.Clone(PersonLabels), func(l string) bool { return l == t.Label })
	if err := s.(contract.Person).RenameTab(ctx, e.p.Note, t.TabID, labels[e.rng.IntN(len(labels))]); err != nil {
		return err
	}
	e.count(func(r *PersonReport) { r.Renamed++ })
	return nil
}

// move moves a random tab to another position.
func (e *editor) move(ctx context.Context, s contract.Session) error {
	list, err := s.ListNoteTabs(ctx, e.p.Note)
	if err != nil {
		return err
	}
	n := len(list.Tabs)
	if n < 2 {
		e.count(func(r *PersonReport) { r.Passed++ })
		return nil
	}
	from := e.rng.IntN(n)
	to := e.rng.IntN(n - 1)
	if to >= from {
		to++
	}
	if err := s.(contract.Person).MoveTab(ctx, e.p.Note, list.Tabs[from].TabID, to); err != nil {
		return err
	}
	e.count(func(r *PersonReport) { r.Moved++ })
	return nil
}

// personClient returns the recorder of the person's calls.
func (s *Server) personClient() *history.Client {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if s.rec.personLog == nil {
		s.rec.personLog = s.opts.History.Client(history.PersonEditor, "", history.PersonSession)
	}
	return s.rec.personLog
}
