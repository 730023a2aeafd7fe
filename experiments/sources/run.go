package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/sim"
)

// Config configures the sources experiment: research sessions cite pages through
// add_note_source while a share of the replies is lost, under each key policy.
// Its JSON form is the config block of a report.
type Config struct {
	// Seeds are the runs, one per seed; each runs every session.
	Seeds []uint64 `json:"seeds"`
	// Sessions is how many research sessions run per seed, each on its own Note.
	Sessions int `json:"sessions"`
	// Turns is how many turns a session has.
	Turns int `json:"turns"`
	// Pages is how many distinct pages a session draws its citations from.
	Pages int `json:"pages"`
	// Cites is how many of those pages a turn cites, without replacement.
	Cites int `json:"cites"`
	// Drop is the probability that the reply to a call that succeeded is lost;
	// the client resends the same call, same key.
	Drop float64 `json:"drop"`
	// ListSources is how many sources the Note of the paging figure holds, and
	// ListLimit the limit of each list_note_attachments call that lists them.
	ListSources int `json:"list_sources"`
	ListLimit   int `json:"list_limit"`
	// ServiceTime is how far the virtual clock advances per store call. It shows
	// only in creation times: the experiment always runs on the virtual clock.
	ServiceTime time.Duration `json:"service_time_ns"`
	// Parallel is how many seeds run at once, 0 to MaxParallel; 0 means one
	// per CPU, and 1 also runs a seed's key policies one at a time (they run at once
	// otherwise). It does not change any figure, so it is not part of the
	// JSON form.
	Parallel int `json:"-"`

	sim.TargetSettings
}

var _ sim.Runner[Row, Run] = Config{}

// Bounds of a sources run. Every citation of a seed stays in its stores (one
// per key policy, all in memory) until the seed is counted: about 1.5 KB and
// a millisecond per citation here, so a seed's citations are bounded to keep
// it under about 150 MB (times the seeds that run at once) and a minute.
const (
	maxSourcesCitations = 100_000
	maxSourcesPages     = 1000
)

// Default returns the published parameters: seed 1, 300 sessions of 3
// turns, each turn citing 6 of the session's 8 pages, 20 % of successful replies
// lost, and 120 sources listed 50 at a time.
func Default() Config {
	return Config{
		Seeds:       []uint64{1},
		Sessions:    300,
		Turns:       3,
		Pages:       8,
		Cites:       6,
		Drop:        0.2,
		ListSources: 120,
		ListLimit:   contract.MaxPageLimit,
		ServiceTime: sim.DefaultServiceTime,
	}
}

// SeedList implements sim.Runner.
func (c Config) SeedList() []uint64 { return c.Seeds }

// Validate checks c, and that target can run it; its errors are
// *field.Error.
func (c Config) Validate(target contract.Target) error {
	switch {
	case len(c.Seeds) == 0:
		return field.Errorf("seeds", "no seeds given")
	case c.Sessions < 1:
		return field.Errorf("sessions", "must be at least 1")
	case c.Turns < 1:
		return field.Errorf("turns", "must be at least 1")
	case c.Pages < 1:
		return field.Errorf("pages", "must be at least 1")
	case c.Cites < 1:
		return field.Errorf("cites", "must be at least 1")
	case c.Cites > c.Pages:
		return field.Errorf("cites", "%d is more than the %d pages", c.Cites, c.Pages)
	}
	const memory = "every citation of a seed stays in memory until the seed is counted"
	for _, err := range []error{
		field.AtMost("sessions", c.Sessions, maxSourcesCitations, memory),
		field.AtMost("turns", c.Turns, 1_000, memory),
		field.AtMost("pages", c.Pages, maxSourcesPages, "each turn shuffles the session's pages"),
	} {
		if err != nil {
			return err
		}
	}
	if c.Sessions*c.Turns*c.Cites > maxSourcesCitations {
		return field.Errorf("citations", "%d sessions × %d turns × %d cites are more than %d citations per seed; lower the sessions, turns or cites",
			c.Sessions, c.Turns, c.Cites, maxSourcesCitations)
	}
	if err := nemesis.ValidatePerReply(c.Drop); err != nil {
		return err
	}
	if err := sim.ValidateParallel(c.Parallel); err != nil {
		return err
	}
	switch {
	case c.ListSources < 0:
		return field.Errorf("list_sources", "must be 0 or more")
	case c.ListLimit < 1 || c.ListLimit > contract.MaxPageLimit:
		return field.Errorf("list_limit", "%d is not 1 to %d", c.ListLimit, contract.MaxPageLimit)
	case c.ServiceTime < 0:
		return field.Errorf("service_time_ns", "%v is negative", c.ServiceTime)
	case target == nil:
		return sim.ErrNoTarget
	}
	return sim.CheckServed(target, "target", contract.Variant{})
}

// Describe implements sim.Runner.
func (c Config) Describe(target contract.Target) string {
	return fmt.Sprintf("%s, %s, %s × %s × %d of %s cited, %s of successful replies lost%s",
		sim.ClockOf(target), sim.SeedsText(c.Seeds), plural.Count(c.Sessions, "session"), plural.Count(c.Turns, "turn"), c.Cites, plural.Count(c.Pages, "page"), sim.Percent(c.Drop), sim.StoreNote(c.Store, target, ""))
}

// Fold groups runs into one row per key policy, counts summed over the seeds.
func (c Config) Fold(runs []Run) ([]Row, error) {
	return Summarize(sim.SeedsOf(runs, func(r Run) uint64 { return r.Seed }), runs)
}

// sourcesPolicies are the key policies, in published row order.
var sourcesPolicies = []string{KeyUUID, KeyRaw, KeyNormalized}

// Run runs the sources experiment. For every seed it writes a script of
// sessions, then plays it once per key policy (the three at once) against a fresh
// backend from the target each, one Note per session; every policy sees the same
// citations and, drawing one value per successful reply from Stream(seed,
// "drop"), the same stream of losses.
//
// The script. Each session gets cfg.Pages distinct pages (see sessionPages). Each
// turn cites cfg.Cites of them, drawn without replacement, and spells each
// citation in one of seven ways, uniformly: canonical https://host/path, with a
// trailing slash, with a www. host, with ?utm_source=chat, with #overview, with
// http://, or without a scheme. Script draws come from Stream(seed, "sources").
//
// The client. At the start of a turn it lists the tabs for the Note version. It
// sends each citation to add_note_source with the version of the last reply it
// received, the citation's title and URL, and a key per policy: a fresh UUID-like
// key drawn from Stream(seed, "uuid") (uuid), the SHA-256 of the URL as written
// (raw), or the SHA-256 of the note ID and the normalized URL (normalized). A
// citation written without a scheme cannot be sent as is (the store accepts only
// http and https URLs), so the client sends it with "https://" prefixed, as a browser
// would read it; the raw key still hashes what was written. A lost reply is resent
// as the same call; a version conflict makes the client re-list and send again with
// the fresh version and the same key.
//
// The figures are counted from the sources in the store at the end (see
// Run). The paging figure comes from a Note of its own holding
// cfg.ListSources sources, listed cfg.ListLimit at a time.
func (cfg Config) Run(ctx context.Context, rt sim.Runtime, seeds []uint64) (sim.Result[Row, Run], error) {
	var res sim.Result[Row, Run]
	if err := cfg.Validate(rt.Target); err != nil {
		return res, err
	}
	perSeed, err := sim.RunSeeds(ctx, seeds, sim.CPUParallel(cfg.Parallel), func(ctx context.Context, seed uint64) ([]Run, error) {
		// The policies share the script, read only, and nothing else: each has
		// its own store and streams, so they run at once, unless Parallel is
		// 1: then everything runs one at a time.
		script := sourcesScript(cfg, seed)
		width := len(sourcesPolicies)
		if cfg.Parallel == 1 {
			width = 1
		}
		return sim.RunAll(ctx, len(sourcesPolicies), width, func(i int) string { return "key policy " + sourcesPolicies[i] },
			func(ctx context.Context, i int) (Run, error) {
				return sourcesRun(ctx, cfg, rt, script, sourcesPolicies[i], seed)
			})
	})
	if err != nil {
		return res, err
	}
	paging, err := sourcesPaging(ctx, cfg, rt.Target)
	if err != nil {
		return res, fmt.Errorf("paging: %w", err)
	}
	for i := range sourcesPolicies {
		for _, seedRuns := range perSeed {
			res.Runs = append(res.Runs, seedRuns[i])
		}
	}
	res.Rows, err = Summarize(seeds, res.Runs)
	res.Facts = []string{fmt.Sprintf("listing %d sources at limit %d took %s", paging.Sources, paging.Limit, plural.Count(paging.PagesCalls, "call"))}
	return res, err
}

// The seven spellings of a cited page, in the order a citation draws them.
const (
	spellCanonical = iota
	spellTrailingSlash
	spellWWW
	spellUTM
	spellFragment
	spellHTTP
	spellNoScheme
	numSpellings
)

// citedPage is one page a session cites: a host and a path, both lower case.
type citedPage struct{ host, path string }

// spell writes p's URL the way spelling k does.
func (p citedPage) spell(k int) string {
	switch k {
	case spellTrailingSlash:
		return "https://" + p.host + p.path + "/"
	case spellWWW:
		return "https://www." + p.host + p.path
	case spellUTM:
		return "https://" + p.host + p.path + "?utm_source=chat"
	case spellFragment:
		return "https://" + p.host + p.path + "#overview"
	case spellHTTP:
		return "http://" + p.host + p.path
	case spellNoScheme:
		return p.host + p.path
	}
	return "https://" + p.host + p.path
}

// pageCitation is one citation of a turn: which page of the session, spelled how.
type pageCitation struct {
	page    int
	written string // the URL as the citation writes it
}

// researchSession is the script of one research session.
type researchSession struct {
	noteID string
	pages  []citedPage
	turns  [][]pageCitation
}

// The parts invented page addresses are made of.
var (
	pageSites    = []string{"arxiv", "bioline", "climatelab", "datahub", "econwatch", "fieldnotes", "geodesk", "histories", "lawreview", "medjournal", "openstats", "physworld", "policybrief", "sciencedaily", "techreport", "worldbank"}
	pageTLDs     = []string{"com", "org", "net"}
	pageSections = []string{"articles", "papers", "news", "reports", "data", "blog", "docs", "research"}
)

// sessionPages invents n distinct pages from r: host <site>.example.<tld> (16 sites,
// 3 top-level domains), path /<section>/<slug> (8 sections, a slug of 4 to 7
// base-36 characters from one 32-bit draw), every part drawn uniformly. A page that
// repeats one already drawn for the session is drawn again.
func sessionPages(r *rand.Rand, n int) []citedPage {
	pages := make([]citedPage, 0, n)
	seen := make(map[citedPage]bool, n)
	for len(pages) < n {
		p := citedPage{
			host: pageSites[r.IntN(len(pageSites))] + ".example." + pageTLDs[r.IntN(len(pageTLDs))],
			path: "/" + pageSections[r.IntN(len(pageSections))] + "/" + strconv.FormatUint(uint64(r.Uint32()|1<<20), 36),
		}
		if !seen[p] {
			seen[p] = true
			pages = append(pages, p)
		}
	}
	return pages
}

// sourcesScript writes the sessions of one seed: pages, then turns, session by
// session, from Stream(seed, "sources").
func sourcesScript(cfg Config, seed uint64) []researchSession {
	r := sim.Stream(seed, "sources")
	sessions := make([]researchSession, cfg.Sessions)
	for i := range sessions {
		s := &sessions[i]
		s.noteID = "session-" + strconv.Itoa(i+1)
		s.pages = sessionPages(r, cfg.Pages)
		for range cfg.Turns {
			turn := make([]pageCitation, cfg.Cites)
			order := r.Perm(cfg.Pages)
			for j := range turn {
				turn[j] = pageCitation{page: order[j], written: s.pages[order[j]].spell(r.IntN(numSpellings))}
			}
			s.turns = append(s.turns, turn)
		}
	}
	return sessions
}

// sendableURL is what the client sends for a URL as written: a URL without a scheme
// gets "https://" prefixed, as a browser would read it.
func sendableURL(written string) string {
	if hasScheme(written) {
		return written
	}
	return "https://" + written
}

// citer is the client of one sources run.
type citer struct {
	conn   contract.Session
	clock  *sim.Virtual
	loss   *nemesis.ReplyDraws
	uuids  *rand.Rand
	policy string
	run    *Run
	errors *sim.ErrorBudget
}

// sourcesRun plays the script under one key policy against a fresh store of rt's
// target, recording in rt's history, and counts what the Notes hold at the end.
func sourcesRun(ctx context.Context, cfg Config, rt sim.Runtime, script []researchSession, policy string, seed uint64) (run Run, err error) {
	run = Run{KeyPolicy: policy, Seed: seed, Sessions: len(script)}
	clock := sim.NewVirtual(sim.Epoch, cfg.ServiceTime)
	name := fmt.Sprintf("sources-%s-seed%d", policy, seed)
	// A setup the server failed is the seed's outcome, not the run's end.
	setup := func(err error) (Run, error) {
		failed, stop := sim.SetupFailed(ctx, name, err)
		run.SetupFailed = failed
		return run, stop
	}
	st, err := sim.OpenRun(ctx, rt.Target, contract.RunSpec{Name: name, Clock: clock, Seed: seed})
	if err != nil {
		return setup(err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	conn, err := st.Session(ctx)
	if err != nil {
		return setup(err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()

	rec, err := sim.OpenRecorder(rt.History, rt.Target, history.RunHeader{Run: name, Seed: seed, Clock: string(sim.ClockVirtual), Variant: sim.RecordedVariant(rt.Target, contract.Variant{}), Policy: policy}, clock)
	if err != nil {
		return run, err
	}
	cl := &citer{conn: sim.Recorded(rec, conn, "agent"), clock: clock, loss: nemesis.LoseReplies{}.PerReply(sim.Stream(seed, "drop"), cfg.Drop),
		uuids: sim.Stream(seed, "uuid"), policy: policy, run: &run, errors: sim.NewErrorBudget(cfg.MaxErrors)}
	// The sessions play under the run's faults; their Notes are counted
	// once the faults are over.
	stopFaults := sim.InjectFaults(st, rec)
	var played []string
	var stoppedAt string
	for i := range script {
		s := &script[i]
		if err := st.CreateNote(ctx, s.noteID); err != nil {
			// A later Note the server did not make ends the run there,
			// counted: the Notes made before hold what they hold.
			failed, stop := sim.SetupFailed(ctx, name+": "+s.noteID, err)
			if stop != nil {
				stopFaults()
				return run, stop
			}
			run.SetupFailed = failed
			break
		}
		played = append(played, s.noteID)
		err := cl.play(ctx, s)
		limit, stopped := sim.StoppedBy(err)
		if err != nil && !stopped {
			stopFaults()
			return run, fmt.Errorf("%s: %w", s.noteID, err)
		}
		if stopped {
			stoppedAt = fmt.Sprintf("%s: %s: %v", name, s.noteID, limit)
			break
		}
	}
	run.Faults = stopFaults()
	for _, noteID := range played {
		readable, err := countSources(ctx, clock, conn, noteID, &run)
		if err != nil {
			return run, fmt.Errorf("%s: %w", noteID, err)
		}
		if !readable {
			continue // no final state to record: check judges its calls as unknown
		}
		if err := sim.FinalState(ctx, rec, conn, noteID); err != nil {
			return run, err
		}
	}
	run.Stopped = stoppedAt
	return run, sim.EndRecord(ctx, rec, conn)
}

// play runs one session's turns.
func (cl *citer) play(ctx context.Context, s *researchSession) error {
	for _, turn := range s.turns {
		version, err := cl.list(ctx, s.noteID)
		if err != nil {
			return err
		}
		for _, c := range turn {
			p := s.pages[c.page]
			mark := c.written // the intent is the page: its normalized URL
			if norm, err := NormalizeURL(c.written); err == nil {
				mark = norm
			}
			history.Intend(cl.conn, history.Intent{Mark: mark})
			req := contract.SourceRequest{
				NoteID:          s.noteID,
				ExpectedVersion: version,
				IdempotencyKey:  cl.key(s.noteID, c.written),
				Title:           p.host + p.path,
				URL:             sendableURL(c.written),
			}
			if version, err = cl.cite(ctx, req); err != nil {
				return err
			}
		}
	}
	return nil
}

// cite sends one citation until a successful reply arrives, and returns the version
// that reply carries. A call whose outcome nobody knows is resent as a lost reply
// is, with the same key; a call refused for another reason than a conflict did not
// happen, and the citation is given up (the version stays as it was). Either
// counts as an error, as does a citation given up after MaxCallsPerIntent calls.
func (cl *citer) cite(ctx context.Context, req contract.SourceRequest) (contract.Version, error) {
	cl.run.Citations++
	commits := 0
	for calls := 0; ; calls++ {
		if calls == sim.MaxCallsPerIntent {
			return req.ExpectedVersion, cl.failed(ctx, fmt.Errorf("citation %s: no reply after %d calls", req.URL, calls))
		}
		if err := cl.clock.Busy(ctx); err != nil {
			return "", err
		}
		cl.run.CallsSent++
		res, err := cl.conn.AddNoteSource(ctx, req)
		var conflict *contract.ConflictError
		switch {
		case errors.As(err, &conflict):
			cl.run.Conflicts++
			if req.ExpectedVersion, err = cl.list(ctx, req.NoteID); err != nil {
				return "", err
			}
			continue
		case err != nil:
			if err := cl.failed(ctx, err); err != nil {
				return "", err
			}
			if contract.OutcomeOf(err) == contract.Fail {
				return req.ExpectedVersion, nil // refused: the citation is given up
			}
			continue // it may have landed: resent, as after a lost reply
		}
		if res.Replayed {
			cl.run.Replays++
		} else {
			cl.run.Commits++
			if commits++; commits > 1 {
				cl.run.ResendDuplicates++
			}
		}
		if cl.loss.Lose(cl.conn) {
			cl.run.RepliesLost++
			continue
		}
		return res.Version, nil
	}
}

// failed counts a call that ended in a server error, and returns the error
// that ends the run instead, if any (see editor.failed).
func (cl *citer) failed(ctx context.Context, err error) error {
	if stop := sim.Stopping(ctx, err); stop != nil {
		return stop
	}
	info, unreadable := sim.OutcomeCounts(err)
	cl.run.Info += info
	cl.run.Unreadable += unreadable
	cl.run.Errors++
	return cl.errors.Add(err)
}

// key returns the idempotency key of a citation under the client's policy.
func (cl *citer) key(noteID, written string) string {
	switch cl.policy {
	case KeyRaw:
		return "raw-" + keyHash(written)
	case KeyNormalized:
		norm, err := NormalizeURL(written)
		if err != nil {
			norm = written // cannot happen for the script's URLs; keep a stable key anyway
		}
		return "norm-" + keyHash(noteID+"\n"+norm)
	}
	return sim.RandomUUID(cl.uuids)
}

// keyHash returns the first 128 bits of the SHA-256 of s, in hex.
func keyHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// list makes list_note_tabs calls until one answers, and returns the Note
// version; each call that ends in a server error counts as one, until the
// run's error limit ends it.
func (cl *citer) list(ctx context.Context, noteID string) (contract.Version, error) {
	for {
		if err := cl.clock.Busy(ctx); err != nil {
			return "", err
		}
		cl.run.Lists++
		l, err := cl.conn.ListNoteTabs(ctx, noteID)
		if err == nil {
			return l.Version, nil
		}
		if err := cl.failed(ctx, err); err != nil {
			return "", err
		}
	}
}

// countSources lists every source of a Note and adds to run what it holds: sources
// saved, duplicates (a normalized URL already saved in the Note) and the duplicates a
// browser-style href comparison with the sources before it would have flagged.
//
// A listing the server refused, answered with no document, or kept answering
// with an error, or a server that died and did not come back, counts as a
// Note with no sources, and the run says why (UnreadableFinal), as a final
// state that does not read does in race (sim.FinalRead).
func countSources(ctx context.Context, clock sim.Clock, conn contract.Session, noteID string, run *Run) (readable bool, err error) {
	items, why, err := sim.FinalRead[[]contract.Attachment]{
		Failed:  "the sources of " + noteID + " could not be listed",
		Reading: "listing the sources",
		Read: func(ctx context.Context) ([]contract.Attachment, error) {
			items, _, err := listAllSources(ctx, conn, noteID, contract.MaxPageLimit)
			return items, err
		},
	}.Do(ctx, clock)
	switch {
	case err != nil:
		return false, err
	case why != "":
		if run.UnreadableFinal == "" {
			run.UnreadableFinal = why
		}
		return false, nil
	}
	normals := map[string]bool{}
	hrefs := map[string]bool{}
	for _, it := range items {
		norm, err := NormalizeURL(it.URL)
		if err != nil {
			return false, fmt.Errorf("source %s: %w", it.ID, err)
		}
		href, err := BrowserHref(it.URL)
		if err != nil {
			return false, fmt.Errorf("source %s: %w", it.ID, err)
		}
		run.Saved++
		if normals[norm] {
			run.Duplicates++
			if hrefs[href] {
				run.BrowserFlagged++
			}
		}
		normals[norm] = true
		hrefs[href] = true
	}
	return true, nil
}

// listAllSources pages through a Note's sources with list_note_attachments at the
// given limit and returns them with the number of calls it took.
func listAllSources(ctx context.Context, conn contract.Session, noteID string, limit int) ([]contract.Attachment, int, error) {
	var items []contract.Attachment
	req := contract.AttachmentsRequest{NoteID: noteID, Kind: "sources", Limit: limit}
	for calls := 1; ; calls++ {
		page, err := conn.ListNoteAttachments(ctx, req)
		if err != nil {
			return nil, calls, err
		}
		items = append(items, page.Items...)
		if page.NextCursor == "" {
			return items, calls, nil
		}
		if req.Cursor == page.NextCursor {
			return nil, calls, fmt.Errorf("list_note_attachments returned cursor %q twice", page.NextCursor)
		}
		req.Cursor = page.NextCursor
	}
}

// sourcesPaging fills a Note of target with cfg.ListSources sources and lists
// them cfg.ListLimit at a time.
func sourcesPaging(ctx context.Context, cfg Config, target contract.Target) (paging Paging, err error) {
	paging = Paging{Sources: cfg.ListSources, Limit: cfg.ListLimit}
	clock := sim.NewVirtual(sim.Epoch, cfg.ServiceTime)
	st, err := sim.OpenRun(ctx, target, contract.RunSpec{Name: "sources-paging", Clock: clock})
	if err != nil {
		return paging, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	const pagingNote = "paging"
	if err := st.CreateNote(ctx, pagingNote); err != nil {
		return paging, err
	}
	conn, err := st.Session(ctx)
	if err != nil {
		return paging, err
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	list, err := conn.ListNoteTabs(ctx, pagingNote)
	if err != nil {
		return paging, err
	}
	version := list.Version
	for i := range cfg.ListSources {
		if err := clock.Busy(ctx); err != nil {
			return paging, err
		}
		n := strconv.Itoa(i + 1)
		res, err := conn.AddNoteSource(ctx, contract.SourceRequest{NoteID: pagingNote, ExpectedVersion: version,
			IdempotencyKey: "paging-" + n, Title: "Source " + n, URL: "https://pages.example.org/source/" + n})
		if err != nil {
			return paging, err
		}
		version = res.Version
	}
	items, calls, err := listAllSources(ctx, conn, pagingNote, cfg.ListLimit)
	if err != nil {
		return paging, err
	}
	ids := map[string]bool{}
	for _, it := range items {
		ids[it.ID] = true
	}
	paging.PagesCalls, paging.Listed = calls, len(ids)
	return paging, nil
}
