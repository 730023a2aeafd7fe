package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/sim"
)

// Config is the bench experiment's configuration: what one edit_note_tab
// replace_text write costs, per guard, on a file database in WAL mode.
type Config struct {
	// Writes is the number of timed writes per writer per repetition.
	Writes int `json:"writes"`
	// Reps is the number of repetitions of each guard at each writer count,
	// each on a fresh database.
	Reps int `json:"reps"`
	// Warmup is the number of untimed writes per writer before the timed ones.
	Warmup int `json:"warmup"`
	// TextSize is the length in bytes of the text each write sets.
	TextSize int              `json:"text_size"`
	Guards   []contract.Guard `json:"guards"`
	// Writers lists the writer counts to run: that many goroutines, each with its
	// own connection and its own Note, writing at once.
	Writers []int `json:"writers"`
	// Synchronous and DBDir record the embedded target's settings: SQLite's
	// synchronous setting and the folder the databases are kept in (empty: a
	// temporary folder). The Runtime's Target is what they configured: it
	// opens the database of each run; its Peer, when set, times the same
	// write beside every one-writer run.
	Synchronous contract.Synchronous `json:"synchronous"`
	DBDir       string               `json:"db_dir"`

	sim.TargetSettings
}

// Default is the published bench setup: 2,000 writes of a 200-character
// text, 3 repetitions per guard, one writer, after a warm-up.
func Default() Config {
	return Config{
		Writes:      2000,
		Reps:        3,
		Warmup:      200,
		TextSize:    200,
		Guards:      []contract.Guard{contract.GuardNone, contract.GuardNote, contract.GuardTab},
		Writers:     []int{1},
		Synchronous: contract.SyncNormal,
	}
}

// Validate checks the configuration, and that target serves each guard; its
// errors are *field.Error.
func (c Config) Validate(target contract.Target) error {
	switch {
	case c.Writes < 1:
		return field.Errorf("writes", "must be at least 1")
	case c.Reps < 1:
		return field.Errorf("reps", "must be at least 1")
	case c.Warmup < 0:
		return field.Errorf("warmup", "must be 0 or more")
	case c.TextSize < 0:
		return field.Errorf("text_size", "must be 0 or more")
	case len(c.Guards) == 0:
		return field.Errorf("guards", "no guards given")
	case len(c.Writers) == 0:
		return field.Errorf("writers", "no writer counts given")
	}
	for _, err := range []error{
		field.AtMost("writes", c.Writes, 1_000_000, "8 bytes of samples and some µs per write, per writer, repetition and guard"),
		field.AtMost("reps", c.Reps, 100, "each repetition times every write again on a fresh database"),
		field.AtMost("warmup", c.Warmup, 1_000_000, "some µs per write"),
		field.AtMost("text_size", c.TextSize, 1<<20, "the text every write sets"),
	} {
		if err != nil {
			return err
		}
	}
	for _, g := range c.Guards {
		if _, err := contract.Guards.Parse(string(g)); err != nil {
			return field.Wrap("guards", err)
		}
		if err := sim.CheckServed(target, "guards", contract.Variant{Guard: g}); err != nil {
			return err
		}
	}
	for _, w := range c.Writers {
		if w < 1 {
			return field.Errorf("writers", "%d: must be at least 1", w)
		}
		if w > maxWriters {
			return field.Errorf("writers", "%d is more than %d (each writer holds its own connection to the database)", w, maxWriters)
		}
	}
	if target == nil {
		return sim.ErrNoTarget
	}
	return nil
}

var _ sim.Runner[Row, Run] = Config{}

// maxWriters is the most writers of one run.
const maxWriters = 64

// SeedList implements sim.Runner: the bench draws nothing at random.
func (Config) SeedList() []uint64 { return nil }

// writerList writes the writer counts joined by sep: with "," as the flag
// takes them, "1,2,4".
func (c Config) writerList(sep string) string {
	ws := make([]string, len(c.Writers))
	for i, w := range c.Writers {
		ws[i] = strconv.Itoa(w)
	}
	return strings.Join(ws, sep)
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	where := fmt.Sprintf("file database in WAL mode, synchronous %s", c.Synchronous)
	if c.Store != "" || sim.OnServer(target) {
		where = strings.TrimPrefix(sim.StoreNote(c.Store, target, ""), ", ")
		if !sim.OnServer(target) {
			where += ", synchronous " + string(c.Synchronous)
		}
	}
	return fmt.Sprintf("%s, %s per writer after %s, %d-byte text, %s, writers %s",
		where, plural.Count(c.Writes, "write"), plural.Count(c.Warmup, "warm-up write"), c.TextSize, plural.Count(c.Reps, "repetition"), c.writerList(", "))
}

// ParseWriters parses a comma-separated list of writer counts, such as
// "1,2,4,8". Each must be a whole number of at least 1, listed once.
func ParseWriters(s string) ([]int, error) {
	return contract.ParseList(s, func(item string) (int, error) {
		n, err := strconv.Atoi(item)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", item)
		}
		if n < 1 {
			return 0, fmt.Errorf("%d: must be at least 1", n)
		}
		return n, nil
	})
}

// benchJob is one run: a guard at a writer count, in one repetition.
type benchJob struct {
	guard   contract.Guard
	writers int
	rep     int
}

// benchDBName is the file name of a run's database in the database folder.
func benchDBName(j benchJob) string {
	return fmt.Sprintf("bench-%s-w%d-rep%d", j.guard, j.writers, j.rep)
}

// benchNoteID is the Note writer w (from 0) writes to.
func benchNoteID(w int) string { return fmt.Sprintf("note-%d", w+1) }

// benchText is the text of write i (warm-up writes included, from 0) of
// writer w: a label that tells the writes apart, padded with 'x' (or cut) to
// size bytes.
func benchText(w, i, size int) string {
	label := fmt.Sprintf("writer %d write %d ", w+1, i+1)
	if len(label) >= size {
		return label[:size]
	}
	return label + strings.Repeat("x", size-len(label))
}

// Run runs the bench experiment and returns one run per (repetition, writer
// count, guard), in the order they ran: repetitions outer, then writer counts,
// then the guards one after another, so that a drift of the machine over time
// falls on every guard alike. The guards' order rotates by one place each
// repetition (none, note, tab; then note, tab, none; …), so that no guard
// always runs first. Runs go one at a time, never in parallel, since they
// measure time.
//
// Each run opens a fresh backend from rt's target (for the embedded store, a
// database file in WAL mode). Each of its writers takes
// its own connection and its own Note, reads the text tab once for its
// version, makes Warmup untimed writes, waits for the other writers, then
// makes Writes timed writes: edit_note_tab replace_text through the session's
// typed EditNoteTab, the path every experiment uses, each with a fresh key
// and the version the previous write returned. A writer has its Note to
// itself, so no write conflicts; with several writers, their writes share the
// database as one server's sessions do (RunSpec.OneServer).
//
// Against a target that makes faults (--nemesis), the faults run during the
// timed phase only, on a schedule seeded by the repetition (benchSeed). A
// call that does not end ok is a measurement, not the end of the run: it is
// counted (Run's Errors and Info), the write is not timed and not sent
// again, and its writer reads its version again before its next write. The
// run ends early, keeping what it timed, once its calls ended in errors as
// often as MaxErrors allows (Run.Stopped).
//
// Time here is the wall clock, read with time.Now: this is the one place in
// sim that reads it directly, because a benchmark measures real durations
// and the Clock interface exists to replace real time.
func (cfg Config) Run(ctx context.Context, rt sim.Runtime, _ []uint64) (sim.Result[Row, Run], error) {
	var res sim.Result[Row, Run]
	if err := cfg.Validate(rt.Target); err != nil {
		return res, err
	}
	var jobs []benchJob
	for rep := 1; rep <= cfg.Reps; rep++ {
		for _, w := range cfg.Writers {
			for k := range cfg.Guards {
				g := cfg.Guards[(rep-1+k)%len(cfg.Guards)]
				jobs = append(jobs, benchJob{guard: g, writers: w, rep: rep})
			}
		}
	}
	res.Runs = make([]Run, 0, len(jobs))
	for i, j := range jobs {
		// A peer runs beside each one-writer run, first on every other
		// repetition, so that neither always has the warmer machine.
		var peer []float64
		peerRun := func() error {
			if rt.Peer == nil || j.writers != 1 {
				return nil
			}
			var err error
			peer, err = rt.Peer(ctx, j.guard, cfg.Writes, cfg.Warmup, cfg.TextSize)
			if err != nil {
				return fmt.Errorf("guard %s, repetition %d: the peer: %w", j.guard, j.rep, err)
			}
			return nil
		}
		if j.rep%2 == 0 {
			if err := peerRun(); err != nil {
				return res, err
			}
		}
		run, err := benchRun(ctx, cfg, rt.Target, j)
		if err != nil {
			return res, fmt.Errorf("guard %s, %d writer(s), repetition %d: %w", j.guard, j.writers, j.rep, err)
		}
		if j.rep%2 == 1 {
			if err := peerRun(); err != nil {
				return res, err
			}
		}
		run.PeerUS = peer
		res.Runs = append(res.Runs, run)
		if rt.Progress != nil {
			rt.Progress(i+1, len(jobs))
		}
	}
	res.Rows, _ = cfg.Fold(res.Runs)
	return res, nil
}

// Fold folds runs into one row per (writers, guard), as Run does: the rows
// of a run put together from its runs alone (notesbench merge) keep what
// their JSON leaves out, the repetitions' medians and p99s.
func (Config) Fold(runs []Run) ([]Row, error) {
	return Summarize(runs), nil
}

// benchWriter is one writer of a run, between its warm-up and its timed writes.
type benchWriter struct {
	conn    contract.Session
	noteID  string
	version contract.Version
	samples []float64
	// pings are the latencies of a transport round trip, as many as the
	// timed writes, when the session has a transport to ping (a server's).
	pings []float64
	// errors counts the timed phase's calls that ended in an error, info
	// those of them whose outcome nobody knows.
	errors, info int
}

// failed counts a call of the timed phase that ended in err, and returns
// the error that ends the run instead, if any: the caller's ctx, a fault of
// notesbench's own, or the run's error limit reached (which a version
// conflict, the writer's version moved by a fault, does not count towards).
func (bw *benchWriter) failed(ctx context.Context, budget *sim.ErrorBudget, err error) error {
	if stop := sim.Stopping(ctx, err); stop != nil {
		return stop
	}
	bw.errors++
	info, _ := sim.OutcomeCounts(err)
	bw.info += info
	if contract.KindOf(err) == contract.KindConflict {
		return nil
	}
	return budget.Add(err)
}

// reread reads the writer's version again after a write that did not end
// ok (it may have landed, or landed twice), until a read ends ok or the run
// ends; each read that fails is counted as failed says.
func (bw *benchWriter) reread(ctx context.Context, budget *sim.ErrorBudget) error {
	for {
		tab, err := bw.conn.ReadNoteTab(ctx, bw.noteID, "markdown")
		if err == nil {
			bw.version = tab.Version
			return nil
		}
		if err := bw.failed(ctx, budget, err); err != nil {
			return err
		}
	}
}

// benchSeed is the seed of a run's faults: its repetition, so that every
// guard and writer count of one repetition takes the same schedule.
func benchSeed(j benchJob) uint64 { return uint64(j.rep) }

// benchFaults starts the faults of b, if it makes any (a server given
// --nemesis), for a timed phase that began at began; stop ends them and
// returns how many there were and each one's kind, pid and times in seconds
// from began, in the order they began.
func benchFaults(b contract.Backend, began time.Time) (stop func() (int, []FaultSpan)) {
	fi, ok := b.(sim.FaultInjector)
	if !ok {
		return func() (int, []FaultSpan) { return 0, nil }
	}
	var (
		mu  sync.Mutex
		log []FaultSpan
	)
	seconds := func() float64 { return math.Round(time.Since(began).Seconds()*1e6) / 1e6 }
	end := fi.InjectFaults(func(kind string, pid int) func(string) {
		mu.Lock()
		defer mu.Unlock()
		at := seconds()
		i := len(log)
		log = append(log, FaultSpan{Kind: kind, StartS: at, EndS: at, PID: pid})
		return func(detail string) {
			mu.Lock()
			defer mu.Unlock()
			log[i].EndS, log[i].Detail = max(at, seconds()), detail
		}
	})
	return func() (int, []FaultSpan) {
		n := end()
		mu.Lock()
		defer mu.Unlock()
		return n, slices.Clone(log)
	}
}

// pinger is a session over a transport that answers a round trip doing no
// work: its latency is the floor under every call.
type pinger interface {
	Ping(ctx context.Context) error
}

// retrier is a session whose store runs a write's transaction again when the
// database refuses it for a transient reason (PostgreSQL's serialization
// failures): Retries is how many times its writes have done so.
type retrier interface {
	Retries() int64
}

// retries sums the retries of the writers' sessions so far, and reports
// whether their sessions count retries at all.
func retries(writers []*benchWriter) (int64, bool) {
	var n int64
	for _, bw := range writers {
		r, ok := bw.conn.(retrier)
		if !ok {
			return 0, false
		}
		n += r.Retries()
	}
	return n, true
}

// benchRun runs one repetition of one guard at one writer count, on target.
func benchRun(ctx context.Context, cfg Config, target contract.Target, j benchJob) (run Run, err error) {
	s, err := sim.OpenRun(ctx, target, contract.RunSpec{Name: benchDBName(j), Variant: contract.Variant{Guard: j.guard}.WithDefaults(),
		OneServer: j.writers > 1, Seed: benchSeed(j)})
	if err != nil {
		return run, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()

	// Every writer's Note is made before any writer's session opens, so that
	// a server whose sessions cannot see each other's Notes (one process of
	// its own per session, keeping its Notes in memory) is refused as such
	// when a session opens, not as a Note that is not found.
	for w := range j.writers {
		if err := s.CreateNote(ctx, benchNoteID(w)); err != nil {
			return run, err
		}
	}
	writers := make([]*benchWriter, j.writers)
	defer func() {
		for _, w := range writers {
			if w != nil {
				err = errors.Join(err, w.conn.Close())
			}
		}
	}()
	// Set-up and warm-up, one writer after another: untimed.
	for w := range writers {
		bw := &benchWriter{noteID: benchNoteID(w), samples: make([]float64, 0, cfg.Writes)}
		if bw.conn, err = s.Session(ctx); err != nil {
			return run, err
		}
		writers[w] = bw
		tab, err := bw.conn.ReadNoteTab(ctx, bw.noteID, "markdown")
		if err != nil {
			return run, err
		}
		bw.version = tab.Version
		for i := range cfg.Warmup {
			if _, err := bw.write(ctx, w, i, cfg.TextSize); err != nil {
				return run, fmt.Errorf("warm-up write %d: %w", i+1, err)
			}
		}
	}

	// Over a transport that answers a ping, the pings go in a phase of their
	// own, every writer at once, as many as the timed writes: the floor under
	// every call, measured under the same load, and kept out of the writes'
	// wall time.
	label := func(w int) string { return fmt.Sprintf("writer %d", w+1) }
	if _, ok := writers[0].conn.(pinger); ok {
		if _, err := sim.RunAll(ctx, len(writers), len(writers), label, func(ctx context.Context, w int) (struct{}, error) {
			return struct{}{}, writers[w].ping(ctx, cfg.Writes)
		}); err != nil {
			return run, err
		}
	}

	// The timed phase: every writer starts at once, under the target's
	// faults, if it makes any. A write that does not end ok is counted, not
	// timed and not sent again: its writer reads its version again and goes
	// on. The first error that ends the run (the caller's, notesbench's own,
	// or the run's error limit) cancels the others' calls.
	retriedBefore, _ := retries(writers)
	budget := sim.NewErrorBudget(cfg.MaxErrors)
	began := time.Now()
	stopFaults := benchFaults(s, began)
	_, err = sim.RunAll(ctx, len(writers), len(writers), label, func(ctx context.Context, w int) (struct{}, error) {
		bw := writers[w]
		for i := cfg.Warmup; i < cfg.Warmup+cfg.Writes; i++ {
			d, err := bw.write(ctx, w, i, cfg.TextSize)
			if err == nil {
				bw.samples = append(bw.samples, float64(d.Nanoseconds())/1e3)
				continue
			}
			if err := bw.failed(ctx, budget, err); err != nil {
				return struct{}{}, fmt.Errorf("write %d: %w", i+1, err)
			}
			if err := bw.reread(ctx, budget); err != nil {
				return struct{}{}, fmt.Errorf("reading the version after write %d: %w", i+1, err)
			}
		}
		return struct{}{}, nil
	})
	wall := time.Since(began)
	faults, faultLog := stopFaults()
	limit, stopped := sim.StoppedBy(err)
	if err != nil && !stopped {
		return run, err
	}

	run = Run{Guard: string(j.guard), Writers: j.writers, Rep: j.rep, WallS: wall.Seconds(), Faults: faults, FaultLog: faultLog}
	if stopped {
		run.Stopped = fmt.Sprintf("guard %s, %d writer(s), repetition %d: %s", j.guard, j.writers, j.rep, limit.Error())
	}
	for _, bw := range writers {
		run.Errors += bw.errors
		run.Info += bw.info
	}
	if retried, ok := retries(writers); ok {
		run.Retries, run.RetriesCounted = retried-retriedBefore, true
	}
	run.SamplesUS = make([]float64, 0, cfg.Writes*j.writers)
	for _, bw := range writers {
		run.SamplesUS = append(run.SamplesUS, bw.samples...)
		run.PingsUS = append(run.PingsUS, bw.pings...)
	}
	return run, nil
}

// ping makes n pings and records how long each took.
func (bw *benchWriter) ping(ctx context.Context, n int) error {
	p := bw.conn.(pinger)
	for i := range n {
		t0 := time.Now()
		if err := p.Ping(ctx); err != nil {
			return fmt.Errorf("ping %d: %w", i+1, err)
		}
		bw.pings = append(bw.pings, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	return nil
}

// write makes write i of writer w and returns how long the call took, from the
// call to its return. Everything the call needs is built before the clock
// starts.
func (bw *benchWriter) write(ctx context.Context, w, i, size int) (time.Duration, error) {
	req := contract.EditRequest{
		NoteID:          bw.noteID,
		TabID:           "markdown",
		ExpectedVersion: bw.version,
		IdempotencyKey:  fmt.Sprintf("bench-%d-%d", w+1, i+1),
		Operation:       contract.OpReplaceText,
		Text:            benchText(w, i, size),
	}
	t0 := time.Now()
	res, err := bw.conn.EditNoteTab(ctx, req)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	bw.version = res.Version
	return d, nil
}
