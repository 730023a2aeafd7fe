package crash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/results"
)

// RunConfig is one kill -9 run: editors write through Target while the server
// processes of their sessions are killed again and again.
type RunConfig struct {
	// Name names the run in the history ("crash-full", "crash-target").
	Name string
	// Target is what the editors write through: a Target whose Backends can
	// be killed (KillableBackend: an MCP target notesbench starts, with
	// faults). The caller opens and closes it.
	Target contract.Target
	// Kills is how many times the server is killed; each session starts its
	// server again on its next call, the last time to read the final state.
	Kills int
	// Seed draws the moments of the kills.
	Seed uint64
	// MinLife and MaxLife bound how long the server serves before it is
	// killed, uniform in between, counted from the first write answered
	// after it started again (so that every life does some work however
	// slow the machine).
	MinLife, MaxLife time.Duration
	// Fault, when set, is the fault made at each moment instead of a kill:
	// the server runs on (a test ends its database connections); the
	// Target's Backends then need not be Killers.
	Fault func(ctx context.Context) error
	// Stall bounds how long the run waits for a write to be answered
	// before its next kill: a server that no longer starts, or whose
	// document is gone so that no editor gets as far as a write, answers
	// none, and the run ends there, saying so (CrashRun.Stalled), instead
	// of waiting for ever. 0 is DefaultStall.
	Stall time.Duration
}

// DefaultStall is RunConfig.Stall's default: long enough for a Node server
// to start again on a loaded machine, many times over.
const DefaultStall = 30 * time.Second

// DefaultConfig is the run notesbench crash makes: 50 kills, each server
// serving 5 to 40 ms.
func DefaultConfig() RunConfig {
	return RunConfig{Kills: 50, Seed: 1, MinLife: 5 * time.Millisecond, MaxLife: 40 * time.Millisecond}
}

// KillableBackend is a Backend whose server processes can be killed: Kill
// SIGKILLs them at once, and each session starts its server again on its next call
// (mcpclient's Backends with faults). InjectFaults starts the Backend's
// faults, each told to begin as it begins and to the func it returns as it
// ends; stop ends them.
type KillableBackend interface {
	Kill(ctx context.Context) error
	InjectFaults(begin func(kind string, pid int) (end func(detail string))) (stop func() int)
}

// The Note the editors write.
const crashNote = "note-1"

// Needs are what a run calls on every target: a read and a write. The
// sources (an add and a listing) it calls when the target has them. The
// caller asks the target for Needs (contract.Capable) before a run, as a
// command asks for an experiment's.
var Needs = []contract.Capability{contract.CapRead, contract.CapWrite}

// Run opens a run of cfg.Target, creates its Note, lets editors write
// through it and records their calls in w: claude and human append lines to
// the text, re-reading and re-applying on a conflict, and agent adds
// sources, when the target maps them; on a target that checks no version,
// claude alone (two unguarded writers would lose lines to each other, not
// to the kills).
// The server is killed cfg.Kills times at moments drawn from cfg.Seed. An
// editor whose call was cut off resends the same call with the same key on
// the session started again, so an acknowledgement is never doubled by a
// resend. After the last kill it reads the final state through a session of
// its own, records it, and counts what is missing of what was acknowledged.
func Run(ctx context.Context, cfg RunConfig, w *history.Writer) (res results.CrashRun, err error) {
	start := time.Now()
	res = results.CrashRun{Run: cfg.Name}
	b, err := cfg.Target.Open(ctx, contract.RunSpec{Name: cfg.Name, Seed: cfg.Seed})
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, b.Close()) }()
	k, ok := b.(KillableBackend)
	fault := cfg.Fault
	switch {
	case fault == nil && !ok:
		return res, fmt.Errorf("%s cannot be killed: crash needs a server notesbench starts (stdio, or HTTP with --spawn)", cfg.Target.Describe())
	case fault == nil:
		fault = k.Kill
	}
	if err := b.CreateNote(ctx, crashNote); err != nil {
		return res, fmt.Errorf("creating the note: %w", err)
	}
	texts, sources := editorsOf(cfg.Target)
	var variant contract.Variant // the embedded store's: the defaults
	if s, ok := cfg.Target.(contract.Served); ok {
		variant, _ = s.Served()
	}
	header := history.RunHeader{Run: cfg.Name, Seed: cfg.Seed, Clock: "real", Variant: variant, Policy: "reapply; the same call and key after a kill"}
	if m, ok := cfg.Target.(contract.Mapped); ok {
		header.ServerTools = m.Mapping().ServerTools
	}
	rec, err := history.Record(w, header, func() int64 { return int64(time.Since(start)) })
	if err != nil {
		return res, err
	}
	stopFaults := func() int { return 0 }
	if ok {
		stopFaults = k.InjectFaults(rec.FaultBegan)
	}
	defer stopFaults()

	stop := make(chan struct{})
	ed := &editors{stop: stop, answered: make(chan struct{}, 1), gone: make(chan struct{}), acked: map[string]bool{}}
	editorCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	names := append(append([]string(nil), texts...), sources...)
	sessions := make([]contract.Session, len(names))
	for i, name := range names {
		s, err := b.Session(ctx)
		if err != nil {
			return res, err
		}
		defer s.Close()
		sessions[i] = rec.Session(s, name)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() {
			if i >= len(texts) {
				errs[i] = ed.addSources(editorCtx, sessions[i])
			} else {
				errs[i] = ed.appendLines(editorCtx, sessions[i], name)
			}
			if errs[i] != nil {
				cancel()
			}
		})
	}

	stall := cfg.Stall
	if stall <= 0 {
		stall = DefaultStall
	}
	killErr := ed.kill(ctx, editorCtx, cfg, stall, fault, &res)
	if ed.isGone() && res.Stalled == "" { // after the last kill
		res.Stalled = ed.goneSaid(res.Kills)
	}
	close(stop)
	errs = ed.waitFor(ctx, &wg, errs, cancel, stall, &res)
	stopFaults()
	if err := errors.Join(append(errs, killErr)...); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		return res, err
	}
	res.Writes, res.Acknowledged = int(ed.writes.Load()), int(ed.acks.Load())
	res.CutOff, res.CommittedBeforeKill = int(ed.cutOff.Load()), int(ed.replayed.Load())
	res.Errors, res.UnreadableReads = int(ed.errors.Load()), int(ed.unreadable.Load())

	// The final state, through a session of its own: a server started again
	// on what the kills left. A server that no longer starts has lost
	// everything it acknowledged, as far as anyone can tell.
	final, err := b.Session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Unreadable = "the server does not start again: " + err.Error()
		res.LostAcknowledged = ed.lost(nil)
		if err := rec.End(); err != nil {
			return res, err
		}
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	defer final.Close()
	present, why := readFinal(ctx, final, len(sources) > 0)
	res.Unreadable = why
	res.LostAcknowledged = ed.lost(present)
	for mark, n := range present {
		if n > 1 && mark != "" {
			res.Duplicates += n - 1
		}
	}
	if why == "" {
		if err := rec.Final(ctx, final, crashNote); err != nil {
			res.Unreadable = err.Error()
		}
	}
	if err := rec.End(); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// kill makes the run's kills: cfg.Kills of them, each a life drawn from
// cfg.Seed after an answer to a write, until the editors stop, the
// document is gone or no write is answered within stall (res.Stalled says
// which). It returns the error that ended them, nil when they all ran.
func (ed *editors) kill(ctx, editorCtx context.Context, cfg RunConfig, stall time.Duration, fault func(context.Context) error, res *results.CrashRun) error {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x6b696c6c))
	var killErr error
	misses := 0          // kills in a row that found nothing to kill
	killed := time.Now() // the last kill that found a server to kill
	for n := 1; n <= cfg.Kills && killErr == nil && res.Stalled == ""; n++ {
		if ed.isGone() {
			res.Stalled = ed.goneSaid(res.Kills)
			continue
		}
		life := cfg.MinLife + time.Duration(r.Int64N(int64(cfg.MaxLife-cfg.MinLife)+1))
		var now bool
		if now, killErr = ed.awaitKill(editorCtx, stall, life, res); !now {
			continue // the loop's head says why not
		}
		killErr = fault(ctx)
		// A write answered from here on was sent to the server started again.
		ed.epoch.Add(1)
		switch {
		case errors.Is(killErr, mcpclient.ErrNothingToKill) && misses < maxMisses && time.Since(killed) < stall:
			killErr = nil // every session was starting its server again: the next answer comes from one
			misses++
			n--
		case errors.Is(killErr, mcpclient.ErrNothingToKill):
			killErr = nil
			res.Stalled = fmt.Sprintf("no server process ran in %v after %s: %s", time.Since(killed).Round(time.Second), plural.Count(res.Kills, "kill"), ed.lastError())
		case killErr == nil:
			misses, killed = 0, time.Now()
			res.Kills++
		}
	}
	return killErr
}

// awaitKill waits for the moment of the next kill: an answer to a write
// sent after the last kill, then life; it reports whether that moment
// came. It did not when the editors stopped first (their context's
// error), when no write was answered within stall (res.Stalled says so)
// or when the document went (ed says so).
func (ed *editors) awaitKill(editorCtx context.Context, stall, life time.Duration, res *results.CrashRun) (bool, error) {
	select { // an answer to a write sent before the last kill does not count
	case <-ed.answered:
	default:
	}
	wait := time.NewTimer(stall)
	defer wait.Stop()
	select {
	case <-ed.answered:
	case <-ed.gone:
		return false, nil
	case <-editorCtx.Done():
		return false, editorCtx.Err()
	case <-wait.C:
		res.Stalled = fmt.Sprintf("no write answered in %v after %s: %s", stall, plural.Count(res.Kills, "kill"), ed.lastError())
		return false, nil
	}
	select {
	case <-time.After(life):
		return true, nil
	case <-ed.gone:
		return false, nil
	case <-editorCtx.Done():
		return false, editorCtx.Err()
	}
}

// waitFor waits for the editors (wg) to stop, and returns their errors. An
// editor's call to a server that hangs would keep it for ever: past stall,
// the calls still out are cancelled, their errors are dropped, and res
// says so, unless ctx itself ended.
func (ed *editors) waitFor(ctx context.Context, wg *sync.WaitGroup, errs []error, cancel context.CancelFunc, stall time.Duration, res *results.CrashRun) []error {
	waited := make(chan struct{})
	go func() {
		wg.Wait()
		close(waited)
	}()
	grace := time.NewTimer(stall)
	defer grace.Stop()
	select {
	case <-waited:
		return errs
	case <-grace.C:
	}
	cancel()
	<-waited
	if ctx.Err() != nil {
		return errs
	}
	if res.Stalled == "" {
		res.Stalled = fmt.Sprintf("a call was still unanswered %v after the last kill: %s", stall, ed.lastError())
	}
	return slices.DeleteFunc(errs, func(err error) bool { return errors.Is(err, context.Canceled) })
}

// maxMisses bounds the kills in a row that find no server running.
const maxMisses = 100

// editorsOf names the editors a target can take: two writers of lines and
// a writer of sources (when it maps them) on a target that checks
// versions; one writer of lines on one that does not, where two writers
// would lose each other's writes whatever the kills do.
func editorsOf(t contract.Target) (texts, sources []string) {
	if m, ok := t.(contract.Mapped); ok {
		if mp := m.Mapping(); !mp.Native() && !mp.VersionCheck {
			return []string{"claude"}, nil
		}
	}
	if s, ok := t.(contract.Served); ok {
		if v, known := s.Served(); known && v.Guard == contract.GuardNone {
			return []string{"claude"}, nil // the contract's tools, served without a guard
		}
	}
	texts = []string{"claude", "human"}
	if c, ok := t.(contract.Capable); !ok || c.Require("crash", contract.CapAddSource, contract.CapListSources, contract.CapList) == nil {
		sources = []string{"agent"}
	}
	return texts, sources
}

// finalTries bounds the reads of a final state whose outcome is unknown.
const finalTries = 5

// readFinal reads the final text (and sources) and returns every mark it
// holds, each with how many times, or why it does not read.
func readFinal(ctx context.Context, s contract.Session, sources bool) (map[string]int, string) {
	present := map[string]int{}
	var read contract.TabContent
	var err error
	for try := 0; try < finalTries; try++ {
		if read, err = s.ReadNoteTab(ctx, crashNote, "markdown"); err == nil || contract.OutcomeOf(err) == contract.Fail {
			break
		}
	}
	if err != nil {
		return present, "the text does not read: " + err.Error()
	}
	for _, l := range strings.Split(read.Text, "\n") {
		present[l]++
	}
	if !sources {
		return present, ""
	}
	cursor := ""
	for pages := 0; pages < 1000; pages++ {
		var page contract.AttachmentPage
		for try := 0; try < finalTries; try++ {
			page, err = s.ListNoteAttachments(ctx, contract.AttachmentsRequest{NoteID: crashNote, Kind: "sources", Limit: contract.MaxPageLimit, Cursor: cursor})
			if err == nil || contract.OutcomeOf(err) == contract.Fail {
				break
			}
		}
		if err != nil {
			return present, "the sources do not read: " + err.Error()
		}
		for _, it := range page.Items {
			present[it.URL]++
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return present, ""
}

// editors is what the editors of one run share.
type editors struct {
	stop chan struct{}
	// epoch counts the kills; answered is signalled, without waiting, when
	// a write sent since the last kill is answered (whatever the answer).
	epoch    atomic.Int64
	answered chan struct{}
	// gone is closed when the server says the document is gone (a
	// profile's error class "gone"): no write can land any more, and the
	// run ends there, saying so.
	gone     chan struct{}
	goneOnce sync.Once

	writes, acks, cutOff, replayed, errors, unreadable atomic.Int64

	mu    sync.Mutex
	acked map[string]bool // the marks acknowledged: lines and source URLs
	last  error           // the last call that did not end ok, for a stalled run
}

// goneSaid is why a run whose document is gone ended, after kills.
func (e *editors) goneSaid(kills int) string {
	return fmt.Sprintf("the server says the document is gone, after %s: %s", plural.Count(kills, "kill"), e.lastError())
}

// isGone reports whether the server has said the document is gone.
func (e *editors) isGone() bool {
	select {
	case <-e.gone:
		return true
	default:
		return false
	}
}

// lastError says what the last call that did not end ok was told.
func (e *editors) lastError() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last == nil {
		return "no call ended in an error"
	}
	return "the last error: " + e.last.Error()
}

// backoff waits a little after a call that did not end ok, longer after
// each in a row (1 ms doubling to 100 ms), so that an editor facing a server
// that refuses everything does not spin; it returns early when the run
// stops.
func (e *editors) backoff(fails int) {
	d := min(time.Millisecond<<min(fails, 7), 100*time.Millisecond)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.stop:
	}
}

func (e *editors) stopped() bool {
	select {
	case <-e.stop:
		return true
	case <-e.gone: // no write can land any more
		return true
	default:
		return false
	}
}

// ack counts an acknowledged mark.
func (e *editors) ack(mark string) {
	e.acks.Add(1)
	e.mu.Lock()
	e.acked[mark] = true
	e.mu.Unlock()
}

// lost counts the acknowledged marks present lacks.
func (e *editors) lost(present map[string]int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for m := range e.acked {
		if present[m] == 0 {
			n++
		}
	}
	return n
}

// ackedLines reports whether a line has been acknowledged.
func (e *editors) ackedLines() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for m := range e.acked {
		if !strings.HasPrefix(m, "https://") {
			return true
		}
	}
	return false
}

// write sends one write and counts it; the server's answer tells the killer
// the server serves.
func (e *editors) write(call func() error) error {
	epoch := e.epoch.Load()
	err := call()
	e.writes.Add(1)
	if e.epoch.Load() == epoch {
		select {
		case e.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// outcome is what an editor does after a call: go on (ok), read again
// (conflict), send the same call again (cut off: info) or give the intent
// up (refused).
type outcome int

const (
	done outcome = iota
	again
	resend
	giveUp
)

// judge classifies a call's error for an editor and counts it; a read's
// unreadable document counts too.
func (e *editors) judge(err error) outcome {
	var conflict *contract.ConflictError
	if err != nil {
		e.mu.Lock()
		e.last = err
		e.mu.Unlock()
	}
	switch {
	case err == nil:
		return done
	case errors.As(err, &conflict):
		return again
	case contract.KindOf(err) == contract.KindGone:
		e.goneOnce.Do(func() { close(e.gone) })
		e.errors.Add(1)
		return giveUp
	case contract.OutcomeOf(err) == contract.Info:
		if contract.KindOf(err) == contract.KindUnreadable {
			e.unreadable.Add(1)
		}
		return resend
	}
	e.errors.Add(1)
	return giveUp
}

// commit carries one intent to its acknowledgement: prepare reads what the
// write needs and builds it, write sends it and says whether it was
// replayed. A conflict prepares again; a call a kill cut off is sent again,
// the same, with the same key; a refusal gives the intent up. It returns
// the error that ends the run (its ctx), and nothing once the run stopped.
func (e *editors) commit(ctx context.Context, mark string, prepare func() error, write func() (replayed bool, err error)) error {
	prepared, cut := false, false
	fails := 0 // calls in a row that did not end ok
	for !e.stopped() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !prepared {
			switch e.judge(prepare()) {
			case giveUp:
				return nil
			case done:
				prepared, cut, fails = true, false, 0
			default:
				fails++
				e.backoff(fails)
			}
			continue
		}
		var replayed bool
		err := e.write(func() (err error) {
			replayed, err = write()
			return err
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch e.judge(err) {
		case done:
			e.ack(mark)
			if cut && replayed {
				e.replayed.Add(1)
			}
			return nil
		case again:
			prepared = false
		case resend:
			e.cutOff.Add(1)
			cut = true
			fails++
			e.backoff(fails)
		case giveUp:
			return nil
		}
	}
	return nil
}

// appendLines appends line after line to the text: read, write the text
// plus the line with the version read, re-read and re-apply on a conflict;
// a call a kill cut off is made again, the same, with the same key.
func (e *editors) appendLines(ctx context.Context, s contract.Session, name string) error {
	for i := 0; !e.stopped(); i++ {
		line := fmt.Sprintf("%s-%d", name, i)
		history.Intend(s, history.Intent{Mark: line})
		var req contract.EditRequest
		tries := 0
		err := e.commit(ctx, line, func() error {
			written := e.ackedLines() // before the read: a line acknowledged during it may come after it
			read, err := s.ReadNoteTab(ctx, crashNote, "markdown")
			if err != nil {
				return err
			}
			if read.Text == "" && written {
				e.unreadable.Add(1) // the document was emptied
			}
			tries++
			req = contract.EditRequest{NoteID: crashNote, TabID: "markdown", ExpectedVersion: read.Version,
				IdempotencyKey: fmt.Sprintf("%s-%d-%d", name, i, tries), Operation: contract.OpReplaceText, Text: read.Text + "\n" + line}
			return nil
		}, func() (bool, error) {
			res, err := s.EditNoteTab(ctx, req)
			return res.Replayed, err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// addSources adds source after source, each with a key of its own, with the
// Note version of a listing; on a conflict it re-lists and sends the same key
// with the fresh version; a call a kill cut off is made again, the same.
func (e *editors) addSources(ctx context.Context, s contract.Session) error {
	for i := 0; !e.stopped(); i++ {
		url := fmt.Sprintf("https://pages.example.org/crash/%d", i)
		history.Intend(s, history.Intent{Mark: url})
		var req contract.SourceRequest
		err := e.commit(ctx, url, func() error {
			list, err := s.ListNoteTabs(ctx, crashNote)
			if err != nil {
				return err
			}
			req = contract.SourceRequest{NoteID: crashNote, ExpectedVersion: list.Version,
				IdempotencyKey: fmt.Sprintf("source-%d", i), Title: fmt.Sprintf("Page %d", i), URL: url}
			return nil
		}, func() (bool, error) {
			res, err := s.AddNoteSource(ctx, req)
			return res.Replayed, err
		})
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
	}
	return nil
}
