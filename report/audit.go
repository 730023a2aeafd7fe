package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
)

// AuditDoc is an audit as the renderers take it: its record, the tables of
// each of its parts (in the order of Audit.Parts), porcupine's timeline of
// the first linearizability violation in the race's history (nil when
// there is none), and the histories the audit judged, by their names under
// the audit's folder (histories/race.jsonl), which the proofs name.
type AuditDoc struct {
	Audit     results.Audit
	Tables    [][]Table
	Timeline  []byte
	Histories map[string][]byte
}

// partTables returns the tables of part i.
func (d AuditDoc) partTables(i int) []Table {
	if i < len(d.Tables) {
		return d.Tables[i]
	}
	return nil
}

// wrapCommand writes argv as a shell prompt's line, "$ " first, its words
// as shell.Quote quotes them, cut at spaces between words into lines of at
// most width columns that end in " \\" (a shell reads them as one); width
// 0 is no limit. A word longer than a line stays whole.
func wrapCommand(argv []string, width int) string {
	line := "$"
	var lines []string
	for _, a := range argv {
		word := shell.Quote(a)
		if width > 0 && line != "$" && len([]rune(line))+1+len([]rune(word))+2 > width {
			lines = append(lines, line+" \\")
			line = "   "
		}
		line += " " + word
	}
	return strings.Join(append(lines, line), "\n")
}

// auditTitle is the title of an audit's report.
func auditTitle(a results.Audit) string { return "notesbench audit: " + a.Subject.Target }

// MatrixTable is the anomaly matrix: a row per anomaly with its count and
// mark, a column per mode; a cell is the mode's count, "not run" (the
// notes say why) or empty where the mode does not measure the anomaly.
func MatrixTable(a results.Audit) Table {
	t := Table{
		Title:  fmt.Sprintf("Anomalies found (budget %s)", a.Budget),
		Header: append([]string{"Anomaly", "Found", "Mark"}, a.Modes...),
	}
	var notes []string               // what the counts need beside them
	var reasons []string             // why modes did not run, in order
	modesOf := map[string][]string{} // the modes each reason is of
	for _, r := range a.Matrix {
		row := []string{r.Title, totals(r.Totals), string(r.Mark)}
		for _, m := range a.Modes {
			c, ok := r.Cell(m)
			switch {
			case !ok:
				row = append(row, "")
			case c.Count == nil:
				row = append(row, "not run")
				if !slices.Contains(reasons, c.NotRun) {
					reasons = append(reasons, c.NotRun)
				}
				if !slices.Contains(modesOf[c.NotRun], m) {
					modesOf[c.NotRun] = append(modesOf[c.NotRun], m)
				}
			default:
				row = append(row, cellText(c))
				if c.Note != "" {
					notes = append(notes, r.Title+", "+m+": "+c.Note)
				}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, "verdict: "+AuditVerdict(a))
	t.Notes = append(t.Notes, notes...)
	for _, why := range reasons {
		t.Notes = append(t.Notes, "not run, "+strings.Join(modesOf[why], ", ")+": "+why)
	}
	for _, an := range results.Anomalies {
		t.Notes = append(t.Notes, an.Title+" ("+an.Name+"): "+an.About)
	}
	t.Notes = append(t.Notes, "marks: fail, found and not allowed; allowed, found and named by --allow; ok, not found where it was looked for; not run, looked for nowhere (never a 0)")
	return t
}

// MatrixLongTable is the matrix as a terminal too narrow for a column per
// mode shows it: a row per cell, the anomaly with its counts and mark on
// the first of its cells; the notes are the matrix's.
func MatrixLongTable(a results.Audit) Table {
	m := MatrixTable(a)
	t := Table{Title: m.Title, Header: []string{"Anomaly", "Found", "Mark", "Mode", "Its count"}, Notes: m.Notes}
	for _, r := range a.Matrix {
		first := true
		for _, mode := range a.Modes {
			c, ok := r.Cell(mode)
			if !ok {
				continue
			}
			row := []string{"", "", "", mode, "not run"}
			if c.Count != nil {
				row[4] = cellText(c)
			}
			if first {
				row[0], row[1], row[2] = r.Title, totals(r.Totals), string(r.Mark)
				first = false
			}
			t.Rows = append(t.Rows, row)
		}
		if first {
			t.Rows = append(t.Rows, []string{r.Title, totals(r.Totals), string(r.Mark), "", ""})
		}
	}
	return t
}

// totals is a row's counts, one per unit ("3 lines, 1 clause"), or "not
// run" when no mode counted.
func totals(ts []results.AuditTotal) string {
	if len(ts) == 0 {
		return "not run"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = Count(t.Count, singular(t.Unit))
	}
	return strings.Join(parts, ", ")
}

// cellText is a cell's count with its unit, and what it is out of.
func cellText(c results.AuditCell) string {
	if c.Of > 0 {
		return Int(int64(*c.Count)) + " of " + Count(c.Of, singular(c.Unit))
	}
	return Count(*c.Count, singular(c.Unit))
}

// singular is a unit's noun for one ("lines": "line"), as Count takes it.
func singular(unit string) string { return strings.TrimSuffix(unit, "s") }

// AuditVerdict says in a line whether the audit passed, and if not why.
func AuditVerdict(a results.Audit) string {
	if a.Passed() && !a.Finished() {
		return "incomplete: no anomaly found that --allow does not name, but " + Count(len(a.Unfinished), "part") + " not judged: " + strings.Join(a.Unfinished, "; ")
	}
	if a.Passed() {
		allowed := ""
		if found := foundAllowed(a); len(found) > 0 {
			allowed = " (allowed: " + strings.Join(found, ", ") + ")"
		}
		return "passed: no anomaly found that --allow does not name" + allowed
	}
	var why []string
	if len(a.Failed) > 0 {
		why = append(why, "found "+strings.Join(a.Failed, ", "))
	}
	if len(a.Errors) > 0 {
		why = append(why, Count(len(a.Errors), "part")+" ended in an error")
	}
	if len(a.Regressions) > 0 {
		why = append(why, Count(len(a.Regressions), "count")+" worse than the baseline's")
	}
	if !a.Finished() {
		why = append(why, Count(len(a.Unfinished), "part")+" not judged")
	}
	return "failed: " + strings.Join(why, "; ")
}

// foundAllowed are the anomalies found that --allow names.
func foundAllowed(a results.Audit) []string {
	var out []string
	for _, r := range a.Matrix {
		if r.Mark == results.MarkAllowed {
			out = append(out, r.Anomaly)
		}
	}
	return out
}

// SubjectTable says what was audited.
func SubjectTable(a results.Audit) Table {
	s := a.Subject
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	t := Table{Title: "What was audited", Header: []string{"", ""}}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []string{k, v})
		}
	}
	add("target", s.Target)
	add("profile", cmpOr(s.Profile, "none: the contract's own tools"))
	add("server", s.Server)
	add("write style", s.WriteStyle)
	add("guard", cmpOr(s.Guard, "not said"))
	add("versions", s.VersionFormat)
	add("write sends a version it checks", yes(s.VersionCheck))
	add("write sends an idempotency key", yes(s.Key))
	add("documents", s.Documents)
	add("budget", a.Budget)
	add("notesbench", a.Version)
	add("seconds", Fixed(a.Seconds, 1))
	t.Notes = append(t.Notes, s.Describe)
	for _, w := range a.Warnings {
		t.Notes = append(t.Notes, "warning: "+w)
	}
	return t
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ClientCostTable is what the client policy cost, apart from the matrix:
// the client's losses and duplicates, not the server's.
func ClientCostTable(a results.Audit) Table {
	t := Table{
		Title:  "What the client policy costs (the client's, not the server's)",
		Header: []string{"Mode", "Policy", "What", "Count"},
		Keys:   2,
		Notes:  []string{"never a mark: a client that re-applies its line, keeps its key on a resend and normalizes the URL it cites costs nothing here"},
	}
	if len(a.ClientCosts) == 0 {
		t.Notes = append(t.Notes, "nothing to show: no mode that tells client policies apart ran (race under a guard, create, sources)")
	}
	for _, c := range a.ClientCosts {
		n := Int(int64(c.Count))
		if c.Of > 0 {
			n = Of(int64(c.Count), int64(c.Of))
		}
		t.Rows = append(t.Rows, []string{c.Mode, c.Policy, c.What, n})
	}
	return t
}

// Proven is one proven cell of the matrix: its row's title and the cell.
type Proven struct {
	Title string
	Cell  results.AuditCell
}

// Proofs lists the cells of a's matrix that carry a proof, row by row.
func Proofs(a results.Audit) []Proven {
	var out []Proven
	for _, r := range a.Matrix {
		for _, c := range r.Cells {
			if c.Proof != nil {
				out = append(out, Proven{r.Title, c})
			}
		}
	}
	return out
}

// ProofTables are the proofs of the matrix's counts, a table each: the
// operations that show one instance and the faults that bear on them, in
// the order they began, with when each began and ended on the run's clock,
// and under it what they show, where the history is and the command that
// replays the run.
func ProofTables(a results.Audit) []Table {
	var out []Table
	for _, p := range Proofs(a) {
		out = append(out, proofTable(p))
	}
	return out
}

// proofTable is the table of one proof.
func proofTable(p Proven) Table {
	pr := p.Cell.Proof
	t := Table{Title: "Proof: " + p.Title + ", " + p.Cell.Mode, Header: []string{"Made (s)", "Returned (s)", "Operation"}}
	// The operations and the faults that bear on them, in one timeline: a
	// fault where it began among the operations.
	faults := pr.Faults
	row := func(from, to int64, what string) {
		t.Rows = append(t.Rows, []string{Fixed(float64(from)/1e9, 3), Fixed(float64(to)/1e9, 3), what})
	}
	fault := func(f results.ProofFault) {
		row(f.StartNS, f.EndNS, strings.TrimSpace("fault: "+f.Kind+" "+f.Detail))
	}
	for _, op := range pr.Ops {
		for len(faults) > 0 && faults[0].StartNS <= op.InvokeNS {
			fault(faults[0])
			faults = faults[1:]
		}
		what := op.What
		if op.ServerTool != "" && op.ServerTool != op.Tool {
			what += " (the server's " + op.ServerTool + ")"
		}
		row(op.InvokeNS, op.ReturnNS, what)
	}
	for _, f := range faults {
		fault(f)
	}
	t.Notes = append(t.Notes, "shows: "+pr.Says)
	if pr.History != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("history: %s, run %s (notesbench check %s)", pr.History, pr.Run, pr.History))
	}
	t.Notes = append(t.Notes, "replay: "+pr.Replay)
	return t
}

// RegressionTable lists the counts that got worse than the baseline's.
func RegressionTable(a results.Audit) Table {
	t := Table{Title: "Against the baseline " + a.Baseline, Header: []string{"Worse than the baseline"}}
	for _, r := range a.Regressions {
		t.Rows = append(t.Rows, []string{r})
	}
	if len(a.Regressions) == 0 {
		t.Notes = []string{"no count is worse than the baseline's"}
	}
	return t
}

// PartsTable lists the parts of an audit and the command that runs each
// alone.
func PartsTable(a results.Audit) Table {
	t := Table{Title: "What ran", Header: []string{"Part", "Seconds", "Command, or why it did not run"}}
	for _, p := range a.Parts {
		what := shell.Line(p.Command)
		switch {
		case p.NotRun != "":
			what = "not run: " + p.NotRun
		case p.Error != "":
			what += " (ended in an error: " + p.Error + ")"
		}
		secs := Fixed(p.Seconds, 1)
		if p.NotRun != "" {
			secs = ""
		}
		t.Rows = append(t.Rows, []string{p.Name, secs, what})
		if strings.Contains(what, "histories/") && len(t.Notes) == 0 {
			t.Notes = append(t.Notes, "run each command from the audit's folder (--out), whose histories/ holds the histories the audit judged, which the commands name")
		}
	}
	return t
}

// AuditTables are the tables of the audit itself, before those of its
// parts: what was audited, the matrix, what the client policy costs, the
// baseline's regressions and what ran.
func AuditTables(a results.Audit) []Table {
	out := append([]Table{SubjectTable(a), MatrixTable(a)}, ProofTables(a)...)
	out = append(out, ClientCostTable(a))
	if a.Baseline != "" {
		out = append(out, RegressionTable(a))
	}
	return append(out, PartsTable(a))
}

// AuditOutput is an audit as a command prints it: its record as the result
// (json), the document WriteAudit writes (table, markdown), and the page
// WriteAuditHTML writes (html).
func AuditOutput(d AuditDoc) Output {
	return Output{
		Result: d.Audit,
		Text:   func(w io.Writer, f Format, width int) error { return WriteAudit(w, f, width, d) },
		HTML:   func(w io.Writer) error { return WriteAuditHTML(w, d) },
	}
}

// WriteAudit writes an audit in format f (table or markdown): its own
// tables, then each part that ran under a heading, with its command and
// its tables. width is as RenderWidth's.
func WriteAudit(w io.Writer, f Format, width int, d AuditDoc) error {
	if f != FormatTable && f != FormatMarkdown {
		return fmt.Errorf("an audit is written as table, markdown, json or html, not %s", f)
	}
	a := d.Audit
	heading := func(level int, s string) error {
		if f == FormatMarkdown {
			_, err := fmt.Fprintf(w, "%s %s\n\n", strings.Repeat("#", level), mdEscape(s))
			return err
		}
		_, err := fmt.Fprintf(w, "%s\n%s\n\n", s, strings.Repeat("=", min(len([]rune(s)), max(width, 20))))
		return err
	}
	if err := heading(1, auditTitle(a)); err != nil {
		return err
	}
	tables := AuditTables(a)
	if f == FormatTable && width > 0 {
		// On a terminal too narrow for a column per mode, the matrix is a
		// row per cell instead of being cut into parts.
		for i, t := range tables {
			if t.Title == MatrixTable(a).Title && boxOf(t).wrapHeader().width() > max(width, MinWidth) {
				tables[i] = MatrixLongTable(a)
			}
		}
	}
	if err := RenderWidth(w, f, width, tables...); err != nil {
		return err
	}
	for i, p := range a.Parts {
		tables := d.partTables(i)
		if p.NotRun != "" || len(tables) == 0 {
			continue
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := heading(2, p.Name); err != nil {
			return err
		}
		cmd := shell.Line(p.Command)
		var err error
		if f == FormatMarkdown {
			_, err = fmt.Fprintf(w, "```sh\n%s\n```\n\n", cmd)
		} else {
			_, err = fmt.Fprintf(w, "%s\n\n", wrapCommand(p.Command, width))
		}
		if err != nil {
			return err
		}
		if err := RenderWidth(w, f, width, tables...); err != nil {
			return err
		}
	}
	return nil
}

// AuditLine is the matrix in one line, for a summary table: each anomaly
// found with its count and mark, and those not run.
func AuditLine(a results.Audit) string {
	var found, clean, notRun []string
	for _, r := range a.Matrix {
		switch r.Mark {
		case results.MarkFail, results.MarkAllowed:
			s := r.Title + " " + totals(r.Totals)
			if r.Mark == results.MarkAllowed {
				s += " (allowed)"
			}
			found = append(found, s)
		case results.MarkOK:
			clean = append(clean, r.Title)
		default:
			notRun = append(notRun, r.Title)
		}
	}
	var parts []string
	if len(found) > 0 {
		parts = append(parts, "**"+strings.Join(found, "; ")+"**")
	}
	if len(clean) > 0 {
		parts = append(parts, "not found: "+strings.Join(clean, ", "))
	}
	if len(notRun) > 0 {
		parts = append(parts, "not run: "+strings.Join(notRun, ", "))
	}
	return strings.Join(parts, "; ")
}

// AuditEntry is one audit in a summary: the server as the summary names
// it, its version, and the section to link it to ("" for none).
type AuditEntry struct {
	Server, Version, Link string
	Audit                 results.Audit
}

// AuditSummary is the table of several audits, a row each: the server and
// its version, its profile, its write style and guard, and the matrix in
// one line.
func AuditSummary(entries []AuditEntry) Table {
	t := Table{
		Title:  "The servers audited",
		Header: []string{"Server", "Version", "Profile", "Write style", "Guard", "The matrix"},
	}
	for _, e := range entries {
		s := e.Audit.Subject
		name := cmpOr(e.Server, s.Target)
		if e.Link != "" {
			name = "[" + name + "](" + e.Link + ")"
		}
		guard := cmpOr(s.Guard, "not said")
		if !s.VersionCheck {
			guard += " (no version check)"
		}
		t.Rows = append(t.Rows, []string{name, e.Version, cmpOr(s.Profile, "—"), s.WriteStyle, guard, AuditLine(e.Audit)})
	}
	return t
}
