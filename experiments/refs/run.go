package refs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/sim"
)

// refLabels is the pool of deck labels: the K decks of a trial start with K
// distinct ones, and the person renames and adds decks with any of the five.
var refLabels = [...]string{"Pitch", "Roadmap", "Budget", "Launch", "Review"}

// Mix is how the person's edits in the refs experiment are shared between
// the three tab-bar actions: move a tab, rename a Slides tab, add a Slides tab.
// The shares are probabilities and must add up to 1.
type Mix struct {
	Move   float64 `json:"move"`
	Rename float64 `json:"rename"`
	Add    float64 `json:"add"`
}

// DefaultMix is the published mix: move 40 %, rename 35 %, add 25 %.
func DefaultMix() Mix { return Mix{Move: 0.4, Rename: 0.35, Add: 0.25} }

// ParseMix parses a mix written as "move=0.4,rename=0.35,add=0.25". An action
// left out gets a share of 0; an unknown action, an action named twice, and a
// share that is not a number or is negative are errors. ParseMix does not check
// that the shares add up to 1 (Config.Validate does), and its error texts do
// not name the flag, which the caller adds.
func ParseMix(s string) (Mix, error) {
	if strings.TrimSpace(s) == "" {
		return Mix{}, errors.New("no shares given")
	}
	var m Mix
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return Mix{}, fmt.Errorf("%q is not action=share", strings.TrimSpace(item))
		}
		var share *float64
		switch name {
		case "move":
			share = &m.Move
		case "rename":
			share = &m.Rename
		case "add":
			share = &m.Add
		default:
			return Mix{}, fmt.Errorf("unknown action %q (want move, rename or add)", name)
		}
		if seen[name] {
			return Mix{}, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Mix{}, fmt.Errorf("%s: %q is not a number", name, strings.TrimSpace(value))
		}
		if v < 0 {
			return Mix{}, fmt.Errorf("%s: share is negative", name)
		}
		*share = v
	}
	return m, nil
}

// String returns m in the form ParseMix reads.
func (m Mix) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return "move=" + f(m.Move) + ",rename=" + f(m.Rename) + ",add=" + f(m.Add)
}

// validate checks the shares.
func (m Mix) validate() error {
	for _, s := range []struct {
		name string
		v    float64
	}{{"move", m.Move}, {"rename", m.Rename}, {"add", m.Add}} {
		if math.IsNaN(s.v) || math.IsInf(s.v, 0) {
			return fmt.Errorf("%s share is not a number", s.name)
		}
		if s.v < 0 {
			return fmt.Errorf("%s share is negative", s.name)
		}
	}
	if sum := m.Move + m.Rename + m.Add; math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("shares sum to %.2f, want 1", sum)
	}
	return nil
}

// Config is the refs experiment's configuration: how an agent should refer to a
// tab it means to write to later.
type Config struct {
	// K lists the numbers of decks (Slides tabs) in the Note, one table block
	// each; each K is 1 to 5, the size of the label pool.
	K []int `json:"k"`
	// Trials is the number of trials per K.
	Trials int `json:"trials"`
	// EditsMax is the most edits the person makes between the agent's two
	// listings; each trial draws 0..EditsMax uniformly.
	EditsMax int `json:"edits_max"`
	// Mix shares the person's edits between moves, renames and adds.
	Mix Mix `json:"mix"`
	// Seed seeds every random stream of the experiment.
	Seed uint64 `json:"seed"`
	// Parallel is how many trials run at once, each worker on a store of its
	// own; 0 means one per CPU. The results do not depend on it.
	Parallel int `json:"parallel"`

	// The Runtime's Target opens each worker's contract; its sessions must
	// also offer the person's actions (contract.Person).
	sim.TargetSettings
}

var _ sim.Runner[Row, struct{}] = Config{}

// Default returns the published parameters: K = 2 and 5, 10,000 trials per
// K, 0 to 2 edits with the published mix, seed 7.
func Default() Config {
	return Config{K: []int{2, 5}, Trials: 10000, EditsMax: 2, Mix: DefaultMix(), Seed: 7}
}

// Validate checks every parameter, and that target can run it; its errors
// are *field.Error, e.g. "k: must be at least 1".
func (c Config) Validate(target contract.Target) error {
	if len(c.K) == 0 {
		return field.Errorf("k", "no values given")
	}
	for i, k := range c.K {
		switch {
		case k < 1:
			return field.Errorf("k", "must be at least 1")
		case k > len(refLabels):
			return field.Errorf("k", "must be at most %d, the size of the label pool", len(refLabels))
		}
		for _, earlier := range c.K[:i] {
			if earlier == k {
				return field.Errorf("k", "%d is listed twice", k)
			}
		}
	}
	switch {
	case c.Trials < 1:
		return field.Errorf("trials", "must be at least 1")
	case c.EditsMax < 0:
		return field.Errorf("edits_max", "must be 0 or more")
	case target == nil:
		return sim.ErrNoTarget
	}
	for _, err := range []error{
		field.AtMost("trials", c.Trials, 100_000, "about 5 KB of memory per trial"),
		field.AtMost("edits_max", c.EditsMax, 100, "each of the person's edits is a store call in every trial"),
		sim.ValidateParallel(c.Parallel),
	} {
		if err != nil {
			return err
		}
	}
	if err := c.Mix.validate(); err != nil {
		return field.Wrap("mix", err)
	}
	return sim.CheckServed(target, "target", contract.Variant{})
}

// Run runs the refs experiment on its one seed (seeds holds exactly one, which
// replaces c.Seed) and returns one row per K and reference kind, in the order
// of c.K and of Kinds.
//
// Each trial creates a Note with the three fixed tabs and K Slides tabs with
// distinct labels from a pool of five. The agent lists the tabs, picks a target
// deck uniformly and keeps four references to it: its index in the bar, its
// type, its label and its ID. The person then makes 0..EditsMax edits (each a
// store person action, which bumps the Note version): move a random tab to a
// random index, rename a random Slides tab to one of the five labels, or add a
// Slides tab with a random label at the end of the bar. Then, for each
// reference kind in turn, the agent lists the tabs again, resolves its reference
// on that listing and sends edit_note_tab slide_add to what it resolved, with
// the listing's version. All four kinds are judged on the same trial, after the
// same edits: the writes change slides, never the bar, so each of the four
// listings shows the bar the person left.
//
// A position resolves to the tab now at that index (past the end: not found); a
// type to the first Slides tab in bar order, as the desktop app's fallback does;
// a label to the first tab carrying it (none: not found); an ID to the tab with
// that ID. A resolution is correct when it is the target, otherwise a wrong deck.
// A write the store refuses before it compares any version, because slide_add
// does not apply to the tab resolved (a position that now names a fixed tab),
// counts as refused; every other write passes the version check or conflicts.
//
// Store mode: every worker opens its own backend from rt's target (by default an
// in-memory SQLite database) with the default contract (guard note, counter
// versions) on a fixed clock, and gives every trial a fresh Note of its
// own in that store ("refs-k2-t17"), with one connection for the agent and one
// for the person. Creating a Note is cheaper than resetting one, and separate
// stores let the trials use every CPU without sharing SQLite's write lock.
//
// Each trial draws from two streams of its own, derived from the seed, K and
// the trial number ("refs/k2/t17/agent" and ".../person"), so the results are
// the same whatever the number of workers and whichever worker runs a trial.
func (c Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, struct{}], error) {
	var res sim.Result[Row, struct{}]
	if len(seeds) != 1 {
		return res, field.Errorf("seed", "refs takes one seed, not %d", len(seeds))
	}
	c.Seed = seeds[0]
	if err := c.Validate(rt.Target); err != nil {
		return res, err
	}
	trials, err := sim.RunPool(ctx, len(c.K)*c.Trials, sim.CPUParallel(c.Parallel),
		func(j int) string { return fmt.Sprintf("seed %d, k %d, trial %d", c.Seed, c.K[j/c.Trials], j%c.Trials) },
		func(ctx context.Context, worker int) (*refsTrial, func() error, error) {
			return c.openWorker(ctx, rt.Target, worker)
		},
		func(ctx context.Context, t *refsTrial, j int) (refsTally, error) {
			k, trial := c.K[j/c.Trials], j%c.Trials
			name := fmt.Sprintf("refs/k%d/t%d", k, trial)
			t.agentRand = sim.Stream(c.Seed, name+"/agent")
			t.personRand = sim.Stream(c.Seed, name+"/person")
			var tally refsTally
			err := t.run(ctx, fmt.Sprintf("refs-k%d-t%d", k, trial), k, &tally)
			return tally, err
		})
	if err != nil {
		return res, err
	}
	for i, k := range c.K {
		var sum refsTally
		for _, t := range trials[i*c.Trials : (i+1)*c.Trials] {
			sum.add(&t)
		}
		for kind, name := range Kinds() {
			res.Rows = append(res.Rows, sum.row(k, c.Trials, refKind(kind), name))
		}
	}
	return res, nil
}

// SeedList implements sim.Runner.
func (c Config) SeedList() []uint64 { return []uint64{c.Seed} }

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	where := sim.StoreNote(c.Store, target, ", in-memory stores")
	return fmt.Sprintf("seed %d, %s per K, 0 to %d person edits per trial (%s)%s",
		c.Seed, plural.Count(c.Trials, "trial"), c.EditsMax, c.Mix, where)
}

// refKind is a kind of tab reference, in the order of Kinds.
type refKind int

// refKindNames names the reference kinds, by refKind.
var refKindNames = Kinds()

const (
	refPosition refKind = iota
	refType
	refLabel
	refID
	numRefKinds
)

// refOutcome is where a reference resolved.
type refOutcome int

const (
	resCorrect refOutcome = iota
	resWrong
	resNotFound
)

// refsTally counts the outcomes of one K's trials, per reference kind.
type refsTally struct {
	resolved  [numRefKinds][3]int // by refOutcome
	writes    [numRefKinds]int    // writes sent
	refused   [numRefKinds]int    // refused for the tab's type before any version compare
	passed    [numRefKinds]int    // committed: passed the version check
	conflicts [numRefKinds]int    // rejected with a version conflict
}

func (t *refsTally) add(o *refsTally) {
	for k := range numRefKinds {
		for r := range t.resolved[k] {
			t.resolved[k][r] += o.resolved[k][r]
		}
		t.writes[k] += o.writes[k]
		t.refused[k] += o.refused[k]
		t.passed[k] += o.passed[k]
		t.conflicts[k] += o.conflicts[k]
	}
}

func (t *refsTally) row(k, trials int, kind refKind, name string) Row {
	n := float64(trials)
	row := Row{
		K:        k,
		Ref:      name,
		Correct:  float64(t.resolved[kind][resCorrect]) / n,
		Wrong:    float64(t.resolved[kind][resWrong]) / n,
		NotFound: float64(t.resolved[kind][resNotFound]) / n,
		Trials:   trials,
		Writes:   t.writes[kind],
		Refused:  t.refused[kind],
	}
	if judged := t.passed[kind] + t.conflicts[kind]; judged > 0 {
		row.PassedVersionCheck = float64(t.passed[kind]) / float64(judged)
	}
	return row
}

// openWorker opens a worker's backend from target, with a session for the
// agent and one for the person, and returns the trial they run with and what
// closes them.
func (c Config) openWorker(ctx context.Context, target contract.Target, worker int) (_ *refsTrial, _ func() error, err error) {
	st, err := sim.OpenRun(ctx, target, contract.RunSpec{Name: fmt.Sprintf("refs-worker%d", worker), Clock: sim.NewVirtual(sim.StoreEpoch, 0), Seed: c.Seed})
	if err != nil {
		return nil, nil, err
	}
	closers := []func() error{st.Close}
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, closeAll())
		}
	}()
	agent, err := st.Session(ctx)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, agent.Close)
	ps, err := st.Session(ctx)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, ps.Close)
	person, ok := ps.(personSession)
	if !ok {
		return nil, nil, errors.New("the target does not offer the person's actions (move, rename, add a tab), which refs needs")
	}
	return &refsTrial{st: st, agent: agent, person: person, editsMax: c.EditsMax, mix: c.Mix}, closeAll, nil
}

// refsTrial is one worker's store and connections, and the streams of the trial
// it is running.
type refsTrial struct {
	st       contract.Backend
	agent    contract.Session
	person   personSession
	editsMax int
	mix      Mix

	agentRand, personRand *rand.Rand
}

// personSession is a session that also offers the person's actions in the app.
type personSession interface {
	contract.Session
	contract.Person
}

// tabRef is the agent's reference to its target deck, of every kind at once.
type tabRef struct {
	position int
	label    string
	id       string
}

// run plays one trial on a fresh Note and adds its outcomes to tally.
func (t *refsTrial) run(ctx context.Context, noteID string, k int, tally *refsTally) error {
	if err := t.st.CreateNote(ctx, noteID); err != nil {
		return err
	}
	for _, l := range t.personRand.Perm(len(refLabels))[:k] {
		if _, err := t.person.AddTab(ctx, noteID, contract.TypeSlides, refLabels[l]); err != nil {
			return fmt.Errorf("adding a deck: %w", err)
		}
	}

	list, err := t.agent.ListNoteTabs(ctx, noteID)
	if err != nil {
		return err
	}
	decks := deckTabs(list.Tabs)
	target := decks[t.agentRand.IntN(len(decks))]
	ref := tabRef{position: slices.IndexFunc(list.Tabs, func(tab contract.TabInfo) bool { return tab.TabID == target.TabID }),
		label: target.Label, id: target.TabID}

	for range t.personRand.IntN(t.editsMax + 1) {
		if err := t.personEdit(ctx, noteID); err != nil {
			return err
		}
	}

	var bar []contract.TabInfo // the bar after the person's edits
	for kind := range numRefKinds {
		fresh, err := t.agent.ListNoteTabs(ctx, noteID)
		if err != nil {
			return err
		}
		if kind == 0 {
			bar = fresh.Tabs
		} else if !slices.Equal(fresh.Tabs, bar) {
			return errors.New("the bar changed between the agent's listings, so the references are not judged alike")
		}
		tab, ok := resolveRef(kind, ref, fresh.Tabs)
		switch {
		case !ok:
			tally.resolved[kind][resNotFound]++
			continue
		case tab.TabID == target.TabID:
			tally.resolved[kind][resCorrect]++
		default:
			tally.resolved[kind][resWrong]++
		}
		tally.writes[kind]++
		_, err = t.agent.EditNoteTab(ctx, contract.EditRequest{
			NoteID:          noteID,
			TabID:           tab.TabID,
			ExpectedVersion: fresh.Version,
			IdempotencyKey:  fmt.Sprintf("%s-%s", noteID, refKindNames[kind]),
			Operation:       contract.OpSlideAdd,
			Title:           "Added by reference " + refKindNames[kind],
		})
		var conflict *contract.ConflictError
		var bad *contract.InvalidArgumentError
		switch {
		case err == nil:
			tally.passed[kind]++
		case errors.As(err, &conflict):
			tally.conflicts[kind]++
		case errors.As(err, &bad) && tab.Type != contract.TypeSlides:
			tally.refused[kind]++
		default:
			return fmt.Errorf("writing through a %s reference: %w", refKindNames[kind], err)
		}
	}
	return nil
}

// personEdit makes one of the person's tab-bar edits, drawn from the mix, on the
// bar as the app shows it now.
func (t *refsTrial) personEdit(ctx context.Context, noteID string) error {
	bar, err := t.person.ListNoteTabs(ctx, noteID)
	if err != nil {
		return err
	}
	r := t.personRand
	switch u := r.Float64(); {
	case u < t.mix.Move:
		tab := bar.Tabs[r.IntN(len(bar.Tabs))]
		err = t.person.MoveTab(ctx, noteID, tab.TabID, r.IntN(len(bar.Tabs)))
	case u < t.mix.Move+t.mix.Rename:
		decks := deckTabs(bar.Tabs)
		tab := decks[r.IntN(len(decks))]
		err = t.person.RenameTab(ctx, noteID, tab.TabID, refLabels[r.IntN(len(refLabels))])
	default:
		_, err = t.person.AddTab(ctx, noteID, contract.TypeSlides, refLabels[r.IntN(len(refLabels))])
	}
	if err != nil {
		return fmt.Errorf("person's edit: %w", err)
	}
	return nil
}

// deckTabs returns the Slides tabs of a bar, in bar order.
func deckTabs(tabs []contract.TabInfo) []contract.TabInfo {
	var out []contract.TabInfo
	for _, tab := range tabs {
		if tab.Type == contract.TypeSlides {
			out = append(out, tab)
		}
	}
	return out
}

// resolveRef finds what a reference of the given kind names in a bar listed in
// bar order, and reports whether it names anything.
func resolveRef(kind refKind, ref tabRef, tabs []contract.TabInfo) (contract.TabInfo, bool) {
	switch kind {
	case refPosition:
		if ref.position < len(tabs) {
			return tabs[ref.position], true
		}
	case refType:
		for _, tab := range tabs {
			if tab.Type == contract.TypeSlides {
				return tab, true
			}
		}
	case refLabel:
		for _, tab := range tabs {
			if tab.Label == ref.label {
				return tab, true
			}
		}
	case refID:
		for _, tab := range tabs {
			if tab.TabID == ref.id {
				return tab, true
			}
		}
	}
	return contract.TabInfo{}, false
}
