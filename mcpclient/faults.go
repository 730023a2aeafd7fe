package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/nemesis"
)

// The fault layer: faults made between notesbench and the server, never in
// the client's calls or the server's code. A Target given Options.Faults
// makes them on what it owns: the processes it spawned (kill, pause), the
// pipes of a server over stdio and a loopback proxy in front of a server
// over HTTP (lost replies, duplicate sends). Each run (Backend) has faults of
// its own, on the processes and connections of its sessions, drawn from the
// run's seed; a server the Target spawned for HTTP is every run's, so a kill
// or pause of it is reported to every run with faults.

// ErrNothingToKill is wrapped by the error of a kill that found no server
// process of the run running: its sessions are all starting theirs again.
var ErrNothingToKill = errors.New("no server process of the run to kill")

// ErrNotSpawned is wrapped by the error of a kill or a pause asked of an
// HTTP server notesbench does not start.
var ErrNotSpawned = errors.New("only a server notesbench starts can be killed or paused")

// CheckFaults checks that a Target of spec with opts can make the faults
// opts asks for, before anything starts: a kill or a pause needs a process
// notesbench starts (a stdio target, or an HTTP one with Options.Spawn), a
// pause a call timeout, and a schedule a gap.
func CheckFaults(spec TargetSpec, opts Options) error {
	f := opts.Faults
	if f == nil {
		return nil
	}
	switch {
	case f.On(nemesis.Process) && !spec.Stdio() && len(opts.Spawn) == 0:
		return fmt.Errorf("%w: target %s is a server notesbench does not start; give the command that starts it (--spawn), or fault it with %s only", ErrNotSpawned, spec.Raw, contract.Choice(nemesis.KindsAt(nemesis.Wire)))
	case f.Makes(history.FaultPause) && opts.CallTimeout <= 0 && f.Pause <= 0:
		return errors.New("a pause lasts past the call timeout, and there is none: give one")
	case f.Every < 0 || f.Pause < 0:
		return errors.New("the time between faults and a pause's length cannot be negative")
	}
	return nil
}

// pauseFor is how long a pause stops the server.
func (t *Target) pauseFor() time.Duration {
	if d := t.faults.Pause; d > 0 {
		return d
	}
	return 2 * t.opts.CallTimeout
}

// describeFaults says which faults the Target makes, "" for none.
func (t *Target) describeFaults() string {
	f := t.faults
	if f == nil {
		return ""
	}
	s := "; faults: " + strings.Join(f.Kinds, ", ")
	if f.Every > 0 {
		s += " every " + f.Every.String() + " on average (seeded)"
	}
	return s
}

// runFaults are the faults of one run: the links (processes, connections)
// of its sessions, which faults it has armed on their wire, and its
// schedule.
type runFaults struct {
	t    *Target
	seed uint64

	// lose and dup count the lost replies and duplicate sends armed: the
	// next write through any of the run's wires takes one.
	lose, dup atomic.Int32
	// writes counts the run's write calls in flight; busy is signalled when
	// one starts, and settled when one returns that started after the last
	// fault (gen counts the faults made).
	writes  atomic.Int32
	busy    chan struct{}
	settled chan struct{}
	gen     atomic.Int64

	mu     sync.Mutex
	links  map[*link]bool
	log    func(kind string, pid int) func(detail string) // nil when no one hears
	count  int
	stopc  chan struct{} // closed to end the schedule
	done   chan struct{} // closed when it ended
	halted bool
}

// newRunFaults returns the faults of a run on t, nil when t makes none.
func (t *Target) newRunFaults(seed uint64) *runFaults {
	if t.faults == nil {
		return nil
	}
	return &runFaults{t: t, seed: seed, busy: make(chan struct{}, 1), settled: make(chan struct{}, 1), links: map[*link]bool{}}
}

// add and remove keep the run's links, those a fault hits.
func (r *runFaults) add(l *link) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.links[l] = true
	r.mu.Unlock()
}

func (r *runFaults) remove(l *link) {
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.links, l)
	r.mu.Unlock()
}

// writing counts a write call in flight until the func it returns is called.
func (r *runFaults) writing() func() {
	r.writes.Add(1)
	r.signal()
	gen := r.gen.Load()
	return func() {
		r.writes.Add(-1)
		if r.gen.Load() == gen {
			select {
			case r.settled <- struct{}{}:
			default:
			}
		}
	}
}

// recovered waits until a write of the run that started after the fault
// just made has returned (whatever its outcome): the run is past the
// fault, its sessions opened again. It reports false when the schedule
// stopped first. Without it a gap shorter than a server's restart would
// fault every resend, and the run would never get past one write.
func (r *runFaults) recovered() bool {
	r.gen.Add(1)
	select {
	case <-r.settled:
	default:
	}
	select {
	case <-r.settled:
		return true
	case <-r.stopc:
		return false
	}
}

// signal wakes the schedule when it waits for a write.
func (r *runFaults) signal() {
	select {
	case r.busy <- struct{}{}:
	default:
	}
}

// awaitWrite waits until a write of the run is in flight, and reports false
// when stop closes first.
func (r *runFaults) awaitWrite(stop <-chan struct{}) bool {
	for r.writes.Load() == 0 {
		select {
		case <-r.busy:
		case <-stop:
			return false
		}
	}
	return true
}

// armed reports whether a lost reply or a duplicate send waits for a write.
func (r *runFaults) armed() bool { return r.lose.Load() > 0 || r.dup.Load() > 0 }

// take takes one of the faults n counts, and reports false when none is armed.
func take(n *atomic.Int32) bool {
	for {
		v := n.Load()
		if v <= 0 {
			return false
		}
		if n.CompareAndSwap(v, v-1) {
			return true
		}
	}
}

// begin tells the run's log that a fault began, and returns what to call
// when it ended.
func (r *runFaults) begin(kind string, pid int) func(detail string) {
	r.mu.Lock()
	log := r.log
	if log != nil {
		r.count++
	}
	r.mu.Unlock()
	if log == nil {
		return func(string) {}
	}
	return log(kind, pid)
}

// instant tells the run's log of a fault of one instant.
func (r *runFaults) instant(kind string, pid int, detail string) { r.begin(kind, pid)(detail) }

// beginAll tells the log of every run with faults of t that a fault of the
// server they share began, and returns what to call when it ended.
func (t *Target) beginAll(kind string, pid int) func(detail string) {
	t.mu.Lock()
	runs := make([]*runFaults, 0, len(t.runs))
	for r := range t.runs {
		runs = append(runs, r)
	}
	t.mu.Unlock()
	ends := make([]func(string), len(runs))
	for i, r := range runs {
		ends[i] = r.begin(kind, pid)
	}
	return func(detail string) {
		for _, end := range ends {
			end(detail)
		}
	}
}

// InjectFaults starts the run's faults: its schedule, when the Target has
// one, and those asked for (Kill). begin hears of each fault as it begins
// (the kind, as history names it, and the pid of the process it hit, 0 for
// none), and the func it returns of its end, with what else is known of it.
// stop ends the schedule and any pause, disarms what waits for a write, and
// returns how many faults the run had. A Backend of a Target without faults
// has none; stop returns 0.
func (b *backend) InjectFaults(begin func(kind string, pid int) (end func(detail string))) (stop func() int) {
	r := b.faults
	if r == nil {
		return func() int { return 0 }
	}
	r.mu.Lock()
	if r.log != nil || r.halted {
		r.mu.Unlock()
		return func() int { return 0 }
	}
	r.log, r.stopc, r.done = begin, make(chan struct{}), make(chan struct{})
	r.mu.Unlock()
	t := r.t
	t.mu.Lock()
	t.runs[r] = true
	t.mu.Unlock()
	if f := t.faults; f.Every > 0 && len(f.Kinds) > 0 {
		go r.schedule(f)
	} else {
		close(r.done)
	}
	var once sync.Once
	n := 0
	return func() int {
		once.Do(func() { n = r.halt() })
		return n
	}
}

// halt ends the run's faults (see InjectFaults) and returns how many it had.
func (r *runFaults) halt() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	if r.halted {
		n := r.count
		r.mu.Unlock()
		return n
	}
	r.halted = true
	stopc, done := r.stopc, r.done
	r.mu.Unlock()
	if stopc != nil {
		close(stopc)
		<-done
	}
	r.lose.Store(0)
	r.dup.Store(0)
	r.t.mu.Lock()
	delete(r.t.runs, r)
	r.t.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = nil
	return r.count
}

// schedule makes the run's faults until it is stopped, as
// nemesis.Schedule drives them, from the run's seed.
func (r *runFaults) schedule(f *nemesis.Faults) {
	defer close(r.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-r.stopc
		cancel()
	}()
	ns := make([]nemesis.Nemesis, 0, len(f.Kinds))
	for _, k := range f.Kinds {
		if n, ok := nemesis.Lookup(k); ok {
			ns = append(ns, n)
		}
	}
	nemesis.Schedule(ctx, (*nemesisRun)(r), ns, f.Every, r.seed)
}

// nemesisRun is a run's faults as the nemeses reach them (nemesis.Victim).
type nemesisRun runFaults

func (n *nemesisRun) AwaitWrite() bool               { return (*runFaults)(n).awaitWrite(n.stopc) }
func (n *nemesisRun) Kill(ctx context.Context) error { return (*runFaults)(n).kill(ctx) }
func (n *nemesisRun) Pause()                         { (*runFaults)(n).pause(n.stopc) }
func (n *nemesisRun) Recovered() bool                { return (*runFaults)(n).recovered() }

// Arm arms a lost reply or a duplicate send (see nemesis.Victim).
func (n *nemesisRun) Arm(kind string) bool {
	switch kind {
	case history.FaultLoseReplies:
		return (*runFaults)(n).arm(&n.lose)
	case history.FaultDuplicate:
		return (*runFaults)(n).arm(&n.dup)
	}
	panic("mcpclient: no wire fault " + kind) // nemesis.Wire lists no other
}

var _ nemesis.Victim = (*nemesisRun)(nil)

// arm arms one fault on the wire (n counts them) and waits until a write
// takes it, so that the next gap starts from the fault; it reports false
// when the schedule stopped first.
func (r *runFaults) arm(n *atomic.Int32) bool {
	n.Store(1)
	for n.Load() > 0 {
		select {
		case <-r.busy:
		case <-r.stopc:
			return false
		}
	}
	return true
}

// processes returns the live processes of the run's links.
func (r *runFaults) processes() []*process {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*process
	for l := range r.links {
		if l.proc != nil && !l.proc.hasExited() {
			out = append(out, l.proc)
		}
	}
	slices.SortFunc(out, func(a, b *process) int { return a.cmd.Process.Pid - b.cmd.Process.Pid })
	return out
}

// pids lists the process IDs of procs, for a fault's detail.
func pids(procs []*process) string {
	s := make([]string, len(procs))
	for i, p := range procs {
		s[i] = strconv.Itoa(p.cmd.Process.Pid)
	}
	return strings.Join(s, ", ")
}

// Killer is a Backend whose server processes notesbench started: Kill
// SIGKILLs them (the process group of each) at once; each session then
// starts its server again with the same command on its next call, and the
// calls a kill cut off end in an info outcome. The kill is reported as
// InjectFaults says.
type Killer interface {
	Kill(ctx context.Context) error
}

// Kill kills the run's server processes (see Killer).
func (b *backend) Kill(ctx context.Context) error {
	if b.faults == nil {
		return fmt.Errorf("target %s: %w: it was opened without faults", b.t.name, ErrNotSpawned)
	}
	return b.faults.kill(ctx)
}

var _ Killer = (*backend)(nil)

// kill SIGKILLs the run's server processes: over stdio those of its
// sessions, over HTTP the server the Target spawned, which it starts again.
func (r *runFaults) kill(ctx context.Context) error {
	if s := r.t.spawned; s != nil {
		return s.kill(ctx, r.t)
	}
	if r.t.spawnsPerSession() {
		procs := r.processes()
		if len(procs) == 0 {
			return fmt.Errorf("target %s: %w: its sessions have none running", r.t.name, ErrNothingToKill)
		}
		end := r.begin(history.FaultKill, procs[0].cmd.Process.Pid)
		for _, p := range procs {
			p.signal(syscall.SIGKILL)
		}
		for _, p := range procs {
			<-p.exited
		}
		end(fmt.Sprintf("SIGKILL of %d server %s (%s %s); each session starts its server again on its next call", len(procs), either(len(procs), "process", "processes"), plural.Noun(len(procs), "pid"), pids(procs)))
		return nil
	}
	return fmt.Errorf("target %s: %w", r.t.name, ErrNotSpawned)
}

// pause stops the run's server processes for pauseFor, or until stop closes.
func (r *runFaults) pause(stop <-chan struct{}) {
	d := r.t.pauseFor()
	if s := r.t.spawned; s != nil {
		s.pause(d, stop, r.t)
		return
	}
	procs := r.processes()
	if len(procs) == 0 {
		return
	}
	end := r.begin(history.FaultPause, procs[0].cmd.Process.Pid)
	for _, p := range procs {
		p.signal(syscall.SIGSTOP)
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-stop:
		t.Stop()
	}
	for _, p := range procs {
		p.signal(syscall.SIGCONT)
	}
	end(fmt.Sprintf("SIGSTOP then SIGCONT of %d server %s (%s %s)", len(procs), either(len(procs), "process", "processes"), plural.Noun(len(procs), "pid"), pids(procs)))
}

// either returns one when n is 1, else many: a noun whose plural is not
// one+"s" (plural.Noun's).
func either(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
