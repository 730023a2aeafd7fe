package create

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/sim"
)

// Config configures the create experiment: a client creates Sheet tabs while a share
// of the replies to calls that succeeded are lost, under each row of the two
// tables (server order and client key policy). Its JSON form is the config
// block of a report.
type Config struct {
	// Seeds are the runs, one per seed.
	Seeds []uint64 `json:"seeds"`
	// Tabs is how many Sheet tabs the client intends to create per run.
	Tabs int `json:"tabs"`
	// Drop is the probability that the reply to a call that succeeded is lost
	// after the server committed; conflict replies always arrive.
	Drop float64 `json:"drop"`
	// Table is which table to run: "a", "b" or "both".
	Table string `json:"table"`
	// Order, when set, keeps only the rows of that server order: a server
	// checks in one order, so a run against one names it.
	Order contract.Order `json:"order"`
	// ServiceTime is how far the virtual clock advances per store call. It shows
	// only in tab IDs: the experiment has one client, so nothing interleaves and
	// the experiment always runs on the virtual clock.
	ServiceTime time.Duration `json:"service_time_ns"`
	// Parallel is how many seeds run at once, 0 to MaxParallel; 0 means one
	// per CPU. It does not change any figure, so it is not part of the JSON
	// form.
	Parallel int `json:"-"`

	sim.TargetSettings
}

// BothTables is the Config.Table that runs table A and table B; the
// other choices are TableA and TableB.
const BothTables = "both"

var _ sim.Runner[Row, Run] = Config{}

// Default returns the published parameters: seeds 1-3, 50 tabs, 30 % of
// successful replies lost, both tables.
func Default() Config {
	return Config{
		Seeds:       []uint64{1, 2, 3},
		Tabs:        50,
		Drop:        0.3,
		Table:       BothTables,
		ServiceTime: sim.DefaultServiceTime,
	}
}

// SeedList implements sim.Runner.
func (c Config) SeedList() []uint64 { return c.Seeds }

// Validate checks c, and that target can run it (a server names its order);
// its errors are *field.Error.
func (c Config) Validate(target contract.Target) error {
	if len(c.Seeds) == 0 {
		return field.Errorf("seeds", "no seeds given")
	}
	if c.Tabs < 1 {
		return field.Errorf("tabs", "must be at least 1")
	}
	if err := field.AtMost("tabs", c.Tabs, 1_000, "each resend re-lists every tab: time grows with the square of the tabs"); err != nil {
		return err
	}
	if err := nemesis.ValidatePerReply(c.Drop); err != nil {
		return err
	}
	if err := sim.ValidateParallel(c.Parallel); err != nil {
		return err
	}
	switch c.Table {
	case TableA, TableB, BothTables:
	default:
		return field.Errorf("table", "%q is not one of a, b, both", c.Table)
	}
	if c.ServiceTime < 0 {
		return field.Errorf("service_time_ns", "%v is negative", c.ServiceTime)
	}
	if target == nil {
		return sim.ErrNoTarget
	}
	if c.Order != "" {
		if _, err := contract.Orders.Parse(string(c.Order)); err != nil {
			return field.Wrap("order", err)
		}
		if len(c.createCases()) == 0 {
			return field.Errorf("order", "table %s has no rows with the %s order (table a is key-first)", c.Table, c.Order)
		}
	}
	if sim.OnServer(target) {
		if c.Order == "" {
			return field.Errorf("order", "a server checks in one order: name it (key-first or version-first)")
		}
		return sim.CheckServed(target, "order", contract.Variant{Order: c.Order})
	}
	return nil
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	where := sim.StoreNote(c.Store, target, ", in-memory store")
	return fmt.Sprintf("%s, %s, %s per run, %s of successful replies lost%s",
		sim.ClockOf(target), sim.SeedsText(c.Seeds), plural.Count(c.Tabs, "tab"), sim.Percent(c.Drop), where)
}

// Fold groups runs into rows, one per table row, each entry a seed in order of
// first appearance.
func (c Config) Fold(runs []Run) ([]Row, error) {
	return Summarize(sim.SeedsOf(runs, func(r Run) uint64 { return r.Seed }), runs)
}

// createCase is one row of the create tables.
type createCase struct {
	table  string
	order  contract.Order
	policy string
}

// createCases returns the rows of the tables c.Table selects, in published order.
func (c Config) createCases() []createCase {
	var cases []createCase
	if c.Table != TableB && c.Order != contract.OrderVersionFirst {
		for _, p := range []string{KeyNone, KeyRetry} {
			cases = append(cases, createCase{TableA, contract.OrderKeyFirst, p})
		}
	}
	if c.Table != TableA {
		for _, o := range []contract.Order{contract.OrderKeyFirst, contract.OrderVersionFirst} {
			if c.Order != "" && o != c.Order {
				continue
			}
			for _, p := range []string{KeyFresh, KeyRetry, KeyAfterConflict} {
				cases = append(cases, createCase{TableB, o, p})
			}
		}
	}
	return cases
}

// Run runs the create experiment: for every seed and every row of the selected
// tables, a client creates cfg.Tabs Sheet tabs in a Note of a fresh backend opened
// from the target while successful replies are lost with probability cfg.Drop.
//
// The client, per intended tab: it sends create_note_tab with the version it knows
// (from its first list_note_tabs, then from the last reply it received) and a new
// key. A successful reply that arrives ends the intent; the client keeps the tab ID
// and the version it carries (a replayed reply carries the version of the first
// commit). When the reply is lost it resends the call: with a new key under none and
// fresh, the same key otherwise; in table A with the version of a fresh re-list, in
// table B with the version it sent before, from before the lost commit. On a
// version conflict it re-lists and sends again with the fresh version: with a new
// key under fresh and after-conflict, the same key under retry. Calls sent counts
// create_note_tab calls only; the re-lists are in the runs' lists.
//
// Every row of one seed draws its losses from the same stream, Stream(seed, "drop"),
// one draw per successful reply, so rows differ by policy and order alone.
func (cfg Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, Run], error) {
	var res sim.Result[Row, Run]
	if err := cfg.Validate(rt.Target); err != nil {
		return res, err
	}
	cases := cfg.createCases()
	perSeed, err := sim.RunSeeds(ctx, seeds, sim.CPUParallel(cfg.Parallel), func(ctx context.Context, seed uint64) ([]Run, error) {
		runs := make([]Run, 0, len(cases))
		for _, c := range cases {
			run, _, err := createRun(ctx, cfg, rt, c, seed)
			if err != nil {
				return nil, fmt.Errorf("table %s, %s, %s: %w", c.table, c.order, c.policy, err)
			}
			runs = append(runs, run)
		}
		return runs, nil
	})
	if err != nil {
		return res, err
	}
	// Runs in row order, then seed order.
	for i := range cases {
		for _, seedRuns := range perSeed {
			res.Runs = append(res.Runs, seedRuns[i])
		}
	}
	res.Rows, err = Summarize(seeds, res.Runs)
	return res, err
}

// createNoteID is the Note every create run writes to.
const createNoteID = "note-1"

// creator is the client of one create run.
type creator struct {
	conn   contract.Session
	clock  *sim.Virtual
	loss   *nemesis.ReplyDraws
	c      createCase
	run    *Run
	keySeq int
	errors *sim.ErrorBudget
}

// createRun runs one row of the create tables for one seed against a fresh store
// of rt's target, recording in rt's history, and returns the run and the Sheet
// tabs of the Note at the end.
func createRun(ctx context.Context, cfg Config, rt sim.Runtime, c createCase, seed uint64) (run Run, _ []contract.TabInfo, err error) {
	run = Run{Table: c.table, Order: string(c.order), KeyPolicy: c.policy, Seed: seed, Intended: cfg.Tabs}
	clock := sim.NewVirtual(sim.Epoch, cfg.ServiceTime)
	name := fmt.Sprintf("create-%s-%s-%s-seed%d", c.table, c.order, c.policy, seed)
	variant := contract.Variant{Order: c.order}
	// A setup the server failed is the seed's outcome, not the run's end.
	setup := func(err error) (Run, []contract.TabInfo, error) {
		failed, stop := sim.SetupFailed(ctx, name, err)
		run.SetupFailed = failed
		return run, nil, stop
	}
	st, err := sim.OpenRun(ctx, rt.Target, contract.RunSpec{Name: name, Variant: variant.WithDefaults(), Clock: clock, Seed: seed})
	if err != nil {
		return setup(err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	if err := st.CreateNote(ctx, createNoteID); err != nil {
		return setup(err)
	}
	conn, err := st.Session(ctx)
	if err != nil {
		return setup(err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()

	rec, err := sim.OpenRecorder(rt.History, rt.Target, history.RunHeader{Run: name, Seed: seed, Clock: string(sim.ClockVirtual), Variant: sim.RecordedVariant(rt.Target, variant), Policy: c.policy}, clock)
	if err != nil {
		return run, nil, err
	}
	cl := &creator{conn: sim.Recorded(rec, conn, "client"), clock: clock, loss: nemesis.LoseReplies{}.PerReply(sim.Stream(seed, "drop"), cfg.Drop), c: c, run: &run,
		errors: sim.NewErrorBudget(cfg.MaxErrors)}
	stopFaults := sim.InjectFaults(st, rec)
	believed, err := cl.createAll(ctx, cfg.Tabs)
	run.Faults = stopFaults()
	if limit, stopped := sim.StoppedBy(err); stopped {
		run.Stopped = name + ": " + limit.Error()
	} else if err != nil {
		return run, nil, err
	}
	if err := sim.EndRecord(ctx, rec, conn, createNoteID); err != nil {
		return run, nil, err
	}

	// Count in the store, not in the client's bookkeeping.
	list, err := conn.ListNoteTabs(ctx, createNoteID)
	if err != nil {
		return run, nil, err
	}
	var sheets []contract.TabInfo
	exists := map[string]bool{}
	for _, t := range list.Tabs {
		if t.Type == contract.TypeSheet {
			sheets = append(sheets, t)
			exists[t.TabID] = true
		}
	}
	run.TabsCreated = len(sheets)
	run.Duplicates = run.TabsCreated - run.Intended
	for _, id := range believed {
		if !exists[id] {
			run.Missing++
		}
	}
	return run, sheets, nil
}

// createAll creates n tabs as the client of cl.c would and returns the IDs of the
// tabs it believes it created, from the replies it received.
//
// A call whose outcome nobody knows (a timeout, a server that died) is
// resent as a lost reply is: it may have committed. A call refused for
// another reason than a conflict did not happen and will not on a resend:
// the client gives that tab up and goes on with the next. Either counts as
// an error; so does a tab given up after MaxCallsPerIntent calls. The run
// ends early only on ctx, a fault of the client's own, or its error limit,
// with the tabs believed so far.
func (cl *creator) createAll(ctx context.Context, n int) ([]string, error) {
	version, err := cl.list(ctx)
	if err != nil {
		return nil, err
	}
	believed := make([]string, 0, n)
	for i := range n {
		req := contract.CreateRequest{
			NoteID:          createNoteID,
			ExpectedVersion: version,
			IdempotencyKey:  cl.newKey(),
			TabType:         contract.TypeSheet,
			Label:           "Sheet " + strconv.Itoa(i+1),
		}
		history.Intend(cl.conn, history.Intent{Mark: req.Label})
	calls:
		for calls := 0; ; calls++ {
			if calls == sim.MaxCallsPerIntent {
				if err := cl.failed(ctx, fmt.Errorf("tab %d: no reply after %d calls", i+1, calls)); err != nil {
					return believed, err
				}
				break
			}
			res, err := cl.send(ctx, req)
			var conflict *contract.ConflictError
			switch {
			case errors.As(err, &conflict):
				cl.run.Conflicts++
				if req.ExpectedVersion, err = cl.list(ctx); err != nil {
					return believed, err
				}
				if cl.c.policy != KeyRetry {
					req.IdempotencyKey = cl.newKey()
				}
				continue
			case err != nil:
				if err := cl.failed(ctx, err); err != nil {
					return believed, err
				}
				if contract.OutcomeOf(err) == contract.Fail {
					break calls // refused: this tab is given up
				}
				if err := cl.resend(ctx, &req); err != nil {
					return believed, err
				}
				continue
			}
			if res.Replayed {
				cl.run.Replays++
			} else {
				cl.run.Commits++
			}
			if cl.loss.Lose(cl.conn) {
				cl.run.RepliesLost++
				if err := cl.resend(ctx, &req); err != nil {
					return believed, err
				}
				continue
			}
			believed = append(believed, res.TabID)
			version = res.Version
			break
		}
	}
	return believed, nil
}

// resend readies req to be sent again after a reply that never came: in
// table A with the version of a fresh re-list, in table B with the version
// sent before; with a new key under none and fresh, the same key otherwise.
func (cl *creator) resend(ctx context.Context, req *contract.CreateRequest) error {
	if cl.c.table == TableA {
		v, err := cl.list(ctx)
		if err != nil {
			return err
		}
		req.ExpectedVersion = v
	}
	if cl.c.policy == KeyNone || cl.c.policy == KeyFresh {
		req.IdempotencyKey = cl.newKey()
	}
	return nil
}

// failed counts a call that ended in a server error, and returns the error
// that ends the run instead, if any (see editor.failed).
func (cl *creator) failed(ctx context.Context, err error) error {
	if stop := sim.Stopping(ctx, err); stop != nil {
		return stop
	}
	info, unreadable := sim.OutcomeCounts(err)
	cl.run.Info += info
	cl.run.Unreadable += unreadable
	cl.run.Errors++
	return cl.errors.Add(err)
}

// send makes one create_note_tab call, one service time on the clock.
func (cl *creator) send(ctx context.Context, req contract.CreateRequest) (contract.CreateResult, error) {
	if err := cl.clock.Busy(ctx); err != nil {
		return contract.CreateResult{}, err
	}
	cl.run.CallsSent++
	return cl.conn.CreateNoteTab(ctx, req)
}

// list makes list_note_tabs calls until one answers, and returns the Note
// version; each call that ends in a server error counts as one, until the
// run's error limit ends it.
func (cl *creator) list(ctx context.Context) (contract.Version, error) {
	for {
		if err := cl.clock.Busy(ctx); err != nil {
			return "", err
		}
		cl.run.Lists++
		l, err := cl.conn.ListNoteTabs(ctx, createNoteID)
		if err == nil {
			return l.Version, nil
		}
		if err := cl.failed(ctx, err); err != nil {
			return "", err
		}
	}
}

// newKey returns an idempotency key never used before in the run. Keys need to be
// distinct, not random, so a counter will do.
func (cl *creator) newKey() string {
	cl.keySeq++
	return "create-" + strconv.Itoa(cl.keySeq)
}
