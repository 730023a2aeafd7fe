package outline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/sim"
)

// maxOutlineSlides bounds --slides, so that a typo fails at once instead of
// building a deck of millions of slides.
const maxOutlineSlides = 1000

// maxOutlineSaves bounds the work of one run's conflict model: the person's
// saves it draws, about Decks × (writes of both approaches) × (1 + saves per
// window). Each draw takes some nanoseconds, so a run stays within seconds on
// a laptop; without the bound a rate such as 1e308 saves a minute never
// finished.
const maxOutlineSaves = 2e8

// Config configures the outline experiment: what a deck costs built
// with one create_note_tab carrying an outline, or slide by slide.
type Config struct {
	// Slides is the number of slides in the deck.
	Slides int `json:"slides"`
	// WindowS is the time in seconds between the agent's read and each of its
	// writes: the window in which a person's save makes the write conflict.
	WindowS float64 `json:"window_s"`
	// SavesPerMinute is the mean rate of the person's saves anywhere in the
	// Note, a Poisson process; 0 means the person never saves.
	SavesPerMinute float64 `json:"saves_per_minute"`
	// Decks is the number of decks simulated for the conflict figures.
	Decks int `json:"decks"`
	// Seed seeds the simulated saves and the idempotency keys.
	Seed uint64 `json:"seed"`

	// The Runtime's Target opens the contract each deck is built on.
	sim.TargetSettings
}

var _ sim.Runner[Row, struct{}] = Config{}

// Default returns the published parameters: a 12-slide deck, 4 s
// between read and write, one save a minute, 2,000 decks, seed 1.
func Default() Config {
	return Config{Slides: 12, WindowS: 4, SavesPerMinute: 1, Decks: 2000, Seed: 1}
}

// Validate checks every parameter, and that there is a target to run on; its
// errors are *field.Error, e.g. "window_s: must be positive".
func (c Config) Validate(target contract.Target) error {
	switch {
	case c.Slides < 1:
		return field.Errorf("slides", "must be at least 1")
	case c.Slides > maxOutlineSlides:
		return field.Errorf("slides", "must be at most %d", maxOutlineSlides)
	case math.IsInf(c.WindowS, 0):
		return field.Errorf("window_s", "must be finite")
	case !(c.WindowS > 0):
		return field.Errorf("window_s", "must be positive")
	case math.IsInf(c.SavesPerMinute, 0):
		return field.Errorf("saves_per_minute", "must be finite")
	case !(c.SavesPerMinute >= 0):
		return field.Errorf("saves_per_minute", "must be 0 or more")
	case c.Decks < 1:
		return field.Errorf("decks", "must be at least 1")
	case target == nil:
		return sim.ErrNoTarget
	}
	for _, err := range []error{
		field.AtMost("saves_per_minute", c.SavesPerMinute, 600, "ten saves a second already conflict with nearly every write"),
		field.AtMostDuration("window_s", time.Duration(min(c.WindowS, 1e9)*float64(time.Second)), time.Hour, "the saves drawn per window grow with it"),
		field.AtMost("decks", c.Decks, 1_000_000, "each deck draws the person's saves"),
	} {
		if err != nil {
			return err
		}
	}
	if saves := c.simulatedSaves(); saves > maxOutlineSaves {
		return field.Errorf("decks", "%d decks of %d writes with %s saves per window are %.2g simulated saves, more than %.0g; lower the decks, slides, window or saves per minute",
			c.Decks, outlineWrites(c.Slides), strconv.FormatFloat(c.WindowS*c.SavesPerMinute/60, 'g', 3, 64), saves, float64(maxOutlineSaves))
	}
	return nil
}

// simulatedSaves is about how many saves the conflict model draws in one run:
// per deck and write, one draw past the window's end and the saves expected
// inside it.
func (c Config) simulatedSaves() float64 {
	if c.SavesPerMinute == 0 {
		return 0
	}
	return float64(c.Decks) * float64(outlineWrites(c.Slides)) * (1 + c.WindowS*c.SavesPerMinute/60)
}

// outlineWrites is how many writes both approaches make for a deck of n
// slides: one create_note_tab and one slides_add_outline per further 20 slides,
// and an empty create with one slide_add per slide.
func outlineWrites(n int) int {
	return (n+contract.MaxOutlineSlides-1)/contract.MaxOutlineSlides + 1 + n
}

// Run runs the outline experiment on its one seed (seeds holds exactly one,
// which replaces c.Seed) and returns one row per approach:
// ApproachOutline, then ApproachSlideAdd.
//
// Each approach builds the deck once, for real, in a fresh backend opened from
// rt's target: the agent lists the tabs for the Note version, then sends its
// writes through the session's JSON layer (contract.Call), each request's
// arguments first checked with contract.ValidateArgs. The outline approach sends create_note_tab with the first
// 20 slides and slides_add_outline for each further 20; the other sends an empty
// create_note_tab and one slide_add per slide. Every write carries the version
// the previous one returned and an idempotency key of its own, and the deck is
// read back at the end to check that every slide landed. Writes and
// RequestBytes (the length of the arguments exactly as passed to Call) come
// from that build; the slide texts are outlineSlides' and fix the bytes.
//
// The conflict figures come from a model, not from the store: each write has a
// window of WindowS seconds before it, the windows of one deck follow each
// other, and the person saves as a Poisson process with SavesPerMinute saves a
// minute on average, whose exponential gaps are drawn from a seeded stream per
// approach. A write conflicts when at least one save lands in its window (a
// retry is not modelled). ConflictsPerDeck is the mean over Decks simulated
// decks, ExpectedConflicts the exact writes × (1 − e^(−window·rate)).
func (c Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, struct{}], error) {
	var res sim.Result[Row, struct{}]
	if len(seeds) != 1 {
		return res, field.Errorf("seed", "outline takes one seed, not %d", len(seeds))
	}
	c.Seed = seeds[0]
	if err := c.Validate(rt.Target); err != nil {
		return res, err
	}
	slides := outlineSlides(c.Slides)
	for _, approach := range []string{ApproachOutline, ApproachSlideAdd} {
		build, err := buildDeck(ctx, rt.Target, c.Seed, approach, slides, nil)
		if err != nil {
			return res, fmt.Errorf("%s: %w", approach, err)
		}
		conflicts, err := simulateConflicts(ctx, sim.Stream(c.Seed, "outline/"+approach+"/saves"), build.writes, c)
		if err != nil {
			return res, err
		}
		res.Rows = append(res.Rows, Row{
			Approach:          approach,
			Writes:            build.writes,
			RequestBytes:      build.requestBytes,
			ConflictsPerDeck:  float64(conflicts) / float64(c.Decks),
			ExpectedConflicts: float64(build.writes) * conflictChance(c),
		})
	}
	return res, nil
}

// SeedList implements sim.Runner.
func (c Config) SeedList() []uint64 { return []uint64{c.Seed} }

// window is the time between the agent's read and each write.
func (c Config) window() time.Duration { return time.Duration(c.WindowS * float64(time.Second)) }

// Describe implements sim.Runner: the target does not show, it changes no
// figure.
func (c Config) Describe(contract.Target) string {
	return fmt.Sprintf("seed %d, %d-slide deck, %s, %s between read and write, the person saves %s; request bytes are those of our slide texts",
		c.Seed, c.Slides, plural.Count(c.Decks, "deck"), c.window(), perMinute(c.SavesPerMinute))
}

// perMinute says how often something happens a minute: "once a minute",
// "0.5 times a minute".
func perMinute(x float64) string {
	if x == 1 {
		return "once a minute"
	}
	return strconv.FormatFloat(x, 'f', -1, 64) + " times a minute"
}

// conflictChance is the probability that at least one save lands in a window:
// 1 − e^(−window·rate).
func conflictChance(c Config) float64 {
	return -math.Expm1(-c.WindowS * c.SavesPerMinute / 60)
}

// simulateConflicts simulates c.Decks decks of writes consecutive windows each
// and returns how many windows in all held at least one of the person's saves.
func simulateConflicts(ctx context.Context, r *rand.Rand, writes int, c Config) (int, error) {
	rate := c.SavesPerMinute / 60 // saves per second
	if rate == 0 {
		return 0, nil
	}
	conflicts, draws := 0, 0
	for range c.Decks {
		nextSave := r.ExpFloat64() / rate // seconds from the agent's first read
		for w := 1; w <= writes; w++ {
			end := float64(w) * c.WindowS
			if nextSave < end {
				conflicts++
				for nextSave < end {
					nextSave += r.ExpFloat64() / rate
					// Check for Ctrl-C every 2^16 draws: well under a millisecond.
					if draws++; draws%(1<<16) == 0 {
						if err := ctx.Err(); err != nil {
							return 0, err
						}
					}
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	return conflicts, nil
}

// outlineCaller is the JSON layer a deck is built through: contract.Call on a
// session, or a test's recorder in front of one.
type outlineCaller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
}

// jsonLayer is a session's JSON layer, as an MCP server exposes it.
type jsonLayer struct{ s contract.Session }

func (j jsonLayer) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	return contract.Call(ctx, j.s, tool, args)
}

// deckBuild is what building one deck cost.
type deckBuild struct {
	writes       int
	requestBytes int
}

// buildDeck builds slides as one deck with the given approach in a fresh
// backend opened from target. wrap, when not nil, is put in front of the agent's
// connection (tests record what reaches Call with it).
func buildDeck(ctx context.Context, target contract.Target, seed uint64, approach string, slides []contract.Slide,
	wrap func(outlineCaller) outlineCaller) (b deckBuild, err error) {
	st, err := sim.OpenRun(ctx, target, contract.RunSpec{Name: "outline-" + approach, Clock: sim.NewVirtual(sim.StoreEpoch, 0), Seed: seed})
	if err != nil {
		return b, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	keys := sim.Stream(seed, "outline/"+approach+"/keys")
	noteID := "note-" + sim.RandomUUID(keys)
	if err := st.CreateNote(ctx, noteID); err != nil {
		return b, err
	}
	conn, err := st.Session(ctx)
	if err != nil {
		return b, err
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	var agent outlineCaller = jsonLayer{conn}
	if wrap != nil {
		agent = wrap(agent)
	}

	var list contract.TabList
	if err := deckCallJSON(ctx, agent, "list_note_tabs", map[string]string{"note_id": noteID}, &list); err != nil {
		return b, err
	}
	version := list.Version
	write := func(tool string, req any) (contract.Version, string, error) {
		args, err := json.Marshal(req)
		if err != nil {
			return "", "", err
		}
		violations, err := contract.ValidateArgs(tool, args)
		if err != nil {
			return "", "", err
		}
		if len(violations) > 0 {
			return "", "", fmt.Errorf("%s request %d breaks the schema: %v", tool, b.writes+1, violations[0])
		}
		var res struct {
			TabID   string           `json:"tab_id"`
			Version contract.Version `json:"version"`
		}
		if err := deckCallRaw(ctx, agent, tool, args, &res); err != nil {
			return "", "", err
		}
		b.writes++
		b.requestBytes += len(args)
		return res.Version, res.TabID, nil
	}

	create := contract.CreateRequest{NoteID: noteID, ExpectedVersion: version, IdempotencyKey: sim.RandomUUID(keys),
		TabType: contract.TypeSlides, Label: outlineDeckLabel}
	rest := slides
	if approach == ApproachOutline {
		n := min(len(rest), contract.MaxOutlineSlides)
		create.Slides, rest = rest[:n], rest[n:]
	}
	version, tabID, err := write("create_note_tab", create)
	if err != nil {
		return b, err
	}
	for len(rest) > 0 {
		edit := contract.EditRequest{NoteID: noteID, TabID: tabID, ExpectedVersion: version, IdempotencyKey: sim.RandomUUID(keys)}
		if approach == ApproachOutline {
			n := min(len(rest), contract.MaxOutlineSlides)
			edit.Operation, edit.Slides, rest = contract.OpSlidesAddOutline, rest[:n], rest[n:]
		} else {
			s := rest[0]
			edit.Operation, edit.Title, edit.Body, edit.Notes, rest = contract.OpSlideAdd, s.Title, s.Body, s.Notes, rest[1:]
		}
		if version, _, err = write("edit_note_tab", edit); err != nil {
			return b, err
		}
	}

	var deck struct {
		Data struct {
			Slides []contract.Slide `json:"slides"`
		} `json:"data"`
	}
	if err := deckCallJSON(ctx, agent, "read_note_tab", map[string]string{"note_id": noteID, "tab_id": tabID}, &deck); err != nil {
		return b, err
	}
	if len(deck.Data.Slides) != len(slides) {
		return b, fmt.Errorf("the deck holds %d slides after the writes, want %d", len(deck.Data.Slides), len(slides))
	}
	return b, nil
}

// deckCallJSON marshals args and calls tool through c, decoding its result into res.
func deckCallJSON(ctx context.Context, c outlineCaller, tool string, args, res any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return deckCallRaw(ctx, c, tool, raw, res)
}

// deckCallRaw calls tool with args through c and decodes its result into res. An
// error result (a conflict, a missing tab, an invalid argument) is an error: no
// other editor touches the Note, so none may happen.
func deckCallRaw(ctx context.Context, c outlineCaller, tool string, args json.RawMessage, res any) error {
	out, err := c.Call(ctx, tool, args)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	var failed struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(out, &failed); err != nil {
		return fmt.Errorf("%s: decoding the result: %w", tool, err)
	}
	if failed.Error != "" {
		return fmt.Errorf("%s: %s: %s", tool, failed.Error, failed.Message)
	}
	if err := json.Unmarshal(out, res); err != nil {
		return fmt.Errorf("%s: decoding the result: %w", tool, err)
	}
	return nil
}

// outlineDeckLabel is the label of the deck the outline experiment builds.
const outlineDeckLabel = "Q3 launch review"

// outlineDeck is the 12-slide deck of the outline experiment, written for it:
// a launch review, each slide with a title, a body of one or two sentences and
// a line of speaker notes.
var outlineDeck = []contract.Slide{
	{Title: "Q3 launch review", Body: "What shipped, what it cost and what the first six weeks taught us.", Notes: "Open with the headline number; keep this under a minute."},
	{Title: "Agenda", Body: "Results, customers, incidents, costs, next quarter, decisions needed.", Notes: "Say which decisions we need today."},
	{Title: "Headline", Body: "Shared Notes reached 41,000 weekly editors, 12 % above plan.", Notes: "Plan was 36,500; the gap opened in week three."},
	{Title: "What shipped", Body: "Tab IDs in every listing, outlines of up to 20 slides, keyed source citations.", Notes: "One line each; details are in the appendix."},
	{Title: "Customers", Body: "Three design partners moved their weekly review decks into Notes.", Notes: "Quote from the partner call on 14 August."},
	{Title: "Agent edits", Body: "Agents now write one in five slides; conflicts stay below 1 % of writes.", Notes: "Conflicts are rejected and retried, never merged."},
	{Title: "Incidents", Body: "Two incidents, both from stale tab references; neither lost data.", Notes: "Both fixed by requiring exact tab IDs."},
	{Title: "Costs", Body: "Hosting rose 8 %, in line with usage; support tickets fell by a third.", Notes: "Finance has the breakdown by region."},
	{Title: "What we learned", Body: "Exact IDs beat labels, and one outline beats twelve small writes.", Notes: "This is the slide to remember."},
	{Title: "Next quarter", Body: "Sheet ranges for agents, version history in the side panel, offline drafts.", Notes: "Ordered by what partners asked for most."},
	{Title: "Decisions needed", Body: "Approve the offline drafts work and a second region for EU customers.", Notes: "Ask for both before the break."},
	{Title: "Questions", Body: "Thank you. The appendix has every figure in this deck.", Notes: "Leave ten minutes."},
}

// outlineSlides returns the n slides of the outline experiment's deck. They are
// fixed texts written for this tool, not osFoundry's, so request bytes differ
// from the published ones. Decks of more than 12 slides repeat the 12 with the
// round in the title ("Agenda (2)").
func outlineSlides(n int) []contract.Slide {
	out := make([]contract.Slide, n)
	for i := range out {
		out[i] = outlineDeck[i%len(outlineDeck)]
		if round := i/len(outlineDeck) + 1; round > 1 {
			out[i].Title = fmt.Sprintf("%s (%d)", out[i].Title, round)
		}
	}
	return out
}
