package report

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/results"
)

// sampleAudit is an audit of a server without a version check: lost
// updates and stale writes found (one allowed), a mode not run, a fault
// mode that ran, the client's costs apart, a part with its table and a
// timeline.
func sampleAudit() AuditDoc {
	a := results.Audit{
		Experiment: results.AuditExperiment,
		Subject: results.AuditSubject{Target: "stdio:server /tmp/docs", Profile: "filesystem", Server: "@example/server-files 1.2.3",
			Describe:   "MCP server stdio:server /tmp/docs through profile filesystem (write_file with no version check)",
			WriteStyle: "whole text (write_file)", Guard: "none", VersionFormat: "digest"},
		Budget: "quick", Seconds: 42.5, Version: "v0.9.0",
		ClientCosts: []results.ClientCost{{Mode: "race note/refresh", Policy: "refresh", What: "acknowledged lines lost resending the old text", Count: 306, Of: 1000}},
		Parts: []results.AuditPart{
			{Name: "race", Command: []string{"notesbench", "race", "--target", "stdio:server /tmp/docs", "--profile", "filesystem", "--seeds", "1-5"}, Seconds: 24},
			{Name: "create", NotRun: "profile filesystem maps no create"},
		},
		Plots: []results.AuditPlot{{Name: "race-lost", Title: "Acknowledged lines lost per race run", YLabel: "lines lost",
			Runs: []string{"seed 1", "seed 2"}, Series: []results.PlotSeries{{Label: "none", Values: []float64{64, 60}}}}},
		Warnings: []string{"race: a warning of the run"},
	}
	lost := results.Counted("race none", "acknowledged lines lost", "lines", 314, 1000)
	lost.Proof = &results.AuditProof{History: "histories/race.jsonl", Replay: "notesbench race --target 'stdio:server /tmp/docs' --profile filesystem --seeds 2 --modes none --replications 0 --history race-seed2.jsonl",
		CheckProof: results.CheckProof{File: "histories/race.jsonl", Run: "race-none-seed2", Seed: 2,
			Says: `acknowledged, missing from the final state: human#2 edit_note_tab note-1/markdown adding "human-1" expected 2 → ok 3; then claude#1 edit_note_tab note-1/markdown adding "claude-0" expected 2 → ok 4 replaced the text with one built on a version before it`,
			Ops: []results.ProofOp{
				{Call: 4, Editor: "human", Session: 2, Tool: "edit_note_tab", ServerTool: "write_file", Note: "note-1", Tab: "markdown", Intent: "human-1", Outcome: "ok", Version: "3", InvokeNS: 100_000_000, ReturnNS: 130_000_000,
					What: `human#2 edit_note_tab note-1/markdown adding "human-1" expected 2 → ok 3`},
				{Call: 5, Editor: "claude", Session: 1, Tool: "edit_note_tab", ServerTool: "write_file", Note: "note-1", Tab: "markdown", Intent: "claude-0", Outcome: "ok", Version: "4", InvokeNS: 120_000_000, ReturnNS: 150_000_000,
					What: `claude#1 edit_note_tab note-1/markdown adding "claude-0" expected 2 → ok 4`},
			},
			Faults: []results.ProofFault{{Kind: "kill", StartNS: 110_000_000, EndNS: 110_000_000, Detail: "SIGKILL of 1 server process (pid 4711)"}}}}
	cells := map[string][]results.AuditCell{
		results.AnomalyLostUpdate:       {lost},
		results.AnomalyStaleWrite:       {results.Counted("race none", "stale overwrites (check)", "writes", 374, 0), results.Counted("conform", "the stale-version clause", "clauses", 1, 1)},
		results.AnomalyUnversionedWrite: {results.NotRunCell("conform", "the no-expected_version clause", "n/a: no version parameter")},
		results.AnomalyDuplicate: {results.NotRunCell("create a", "", "create not run: profile filesystem maps no create"),
			results.NotRunCell("create b", "", "create not run: profile filesystem maps no create")},
		results.AnomalyLostAcknowledged: {results.Counted("crash", "acknowledged writes lost", "writes", 0, 0)},
		results.AnomalyUnreadable:       {results.Counted("crash", "runs whose final state did not read back whole", "runs", 0, 2)},
		results.AnomalyServerErrors:     {results.Counted("race none", "calls ended in a server error", "calls", 0, 0)},
	}
	a.Judge([]string{"race none", "conform", "create a", "create b", "crash"}, cells, []string{results.AnomalyStaleWrite})
	a = a.Complete()
	return AuditDoc{
		Audit: a,
		Tables: [][]Table{{{Title: "Lost updates by write guard and conflict policy", Header: []string{"Guard", "Lost"},
			Rows: [][]string{{"none", "314 of 1,000"}}}}, nil},
		Timeline: []byte(`<!doctype html><html><body><div id="canvas"></div><script>document.getElementById("canvas").textContent = "a timeline & its <ops>"</script></body></html>`),
	}
}

// The audit's markdown: what was audited, the matrix with its marks and
// why a mode did not run, the client's costs, what ran, and each part
// that ran under its command.
func TestAuditMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAudit(&buf, FormatMarkdown, 0, sampleAudit()); err != nil {
		t.Fatal(err)
	}
	golden(t, "audit.md", buf.Bytes())
}

// The summary line and table: each anomaly found with its count, the rest
// by what was looked for.
func TestAuditSummary(t *testing.T) {
	d := sampleAudit()
	got := AuditLine(d.Audit)
	want := "**lost update 314 lines; stale write accepted 374 writes, 1 clause (allowed)**; not found: acknowledged write lost under kill -9, document unreadable after a fault, calls that ended in server errors; not run: write without a version accepted, duplicate after a lost reply, store destroyed or unreadable without a fault, read returned an emptied document, write applied twice, declared but not kept"
	if got != want {
		t.Errorf("line\n%s\nwant\n%s", got, want)
	}
	sum := AuditSummary([]AuditEntry{{Server: "@example/server-files", Version: "1.2.3", Link: "servers/files.md", Audit: d.Audit}})
	if len(sum.Rows) != 1 || sum.Rows[0][0] != "[@example/server-files](servers/files.md)" || sum.Rows[0][4] != "none (no version check)" || sum.Rows[0][5] != want {
		t.Errorf("summary %q", sum.Rows)
	}
}

// The page loads nothing from elsewhere: no script, style, picture or
// frame from a URL, the plots inline as data, the timeline's page inside
// its frame's srcdoc, escaped.
func TestAuditHTMLSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAuditHTML(&buf, sampleAudit()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, m := range regexp.MustCompile(`(?i)\b(src|href|action|srcset|poster|data)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(html.UnescapeString(m[2]), "data:image/svg+xml;base64,") {
			t.Errorf("the page loads %s=%q", m[1], m[2])
		}
	}
	for _, bad := range []string{"<link", "<script", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %s", bad)
		}
	}
	if !strings.Contains(page, `srcdoc="&lt;!doctype html&gt;`) {
		t.Error("no timeline frame")
	}
}

// chromiumEnv names the variable that makes a missing Chromium a failure.
const chromiumEnv = "NOTESBENCH_REQUIRE_CHROMIUM"

// chromium returns the headless Chromium to render with; without one the
// test skips, or fails under NOTESBENCH_REQUIRE_CHROMIUM=1.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(chromiumEnv) == "1" {
		t.Fatalf("chromium not found, and %s=1 requires it (Debian's chromium package)", chromiumEnv)
	}
	t.Skipf("chromium not found: the page is rendered by headless Chromium (Debian's chromium package; %s=1 makes this a failure)", chromiumEnv)
	return ""
}

// runChromium runs headless Chromium on page with args, offline: the flags
// keep it off the network, which it would otherwise try.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, append(argv, "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// The page renders in headless Chromium: a screenshot of it, and its
// text, as the browser built it, holds every anomaly's row with its mark,
// the verdict and the part's command.
func TestAuditHTMLRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium (not with -short)")
	}
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "audit.html")
	var buf bytes.Buffer
	if err := WriteAuditHTML(&buf, sampleAudit()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "audit.png")
	dom := string(runChromium(t, bin, page, "--window-size=1280,2400", "--screenshot="+shot, "--dump-dom"))
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10_000 {
		t.Fatalf("no screenshot of the page (%d bytes): %v", len(png), err)
	}
	text := regexp.MustCompile(`\s+`).ReplaceAllString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, " "), " ")
	d := sampleAudit()
	for _, r := range d.Audit.Matrix {
		want := r.Title + " " + totals(r.Totals) + " " + string(r.Mark)
		if !strings.Contains(text, want) {
			t.Errorf("the page's text lacks the row %q", want)
		}
	}
	if !strings.Contains(dom, `<svg xmlns="http://www.w3.org/2000/svg" class="timeline"`) || strings.Count(dom, `<rect`) < 3 {
		t.Error("the page shows no timeline of the proof's operations")
	}
	for _, want := range []string{"Proof: lost update, race none", `human#2 edit_note_tab note-1/markdown adding "human-1" expected 2 → ok 3 (the server's write_file)`,
		"replay: notesbench race --target 'stdio:server /tmp/docs' --profile filesystem --seeds 2 --modes none"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	for _, want := range []string{"failed: found lost-update", "notesbench race --target 'stdio:server /tmp/docs' --profile filesystem --seeds 1-5",
		"not run, create a, create b: create not run: profile filesystem maps no create", "What the client policy costs", "306 of 1,000"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	if !strings.Contains(dom, "<iframe") {
		t.Error("the page has no timeline frame")
	}
}

// On an 80-column terminal the audit fits: the matrix becomes a row per
// cell instead of parts of a table, and a table whose header says nothing
// (what was audited) has no empty header row.
func TestAuditFitsEightyColumns(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAudit(&buf, FormatTable, 80, sampleAudit()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for i, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line %d is %d columns: %s", i+1, n, line)
		}
	}
	if strings.Contains(out, "part 1 of") {
		t.Error("the matrix is cut into parts")
	}
	if !strings.Contains(out, "│ Anomaly ") || !strings.Contains(out, "│ Mode ") {
		t.Errorf("no matrix a row per cell:\n%s", out)
	}
	if regexp.MustCompile(`What was audited\n┌[─┬]+┐\n│ +│ +│`).MatchString(out) {
		t.Errorf("an empty header row:\n%s", out)
	}
}

// The report for a server's maintainers: each anomaly found and not
// allowed, with what each mode counted, the operations of its proof, the
// command that replays the run and what would fix it; the allowed one and
// those not found are not in it; an audit that found nothing has none.
func TestMaintainersReportGolden(t *testing.T) {
	a := sampleAudit().Audit
	md, err := MaintainersReport(a, "@example/server-files", "1.2.3", "notesbench audit --target 'stdio:server $WORK' --profile filesystem --budget quick --out audit/servers/files")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "maintainers.md", md)
	for _, want := range []string{"## Lost update\n", "- race none: 314 of 1,000 lines", `| 0.100 | 0.130 | human#2 edit_note_tab note-1/markdown adding "human-1" expected 2 → ok 3 (the server's write_file) |`,
		"notesbench race --target 'stdio:server /tmp/docs' --profile filesystem --seeds 2", "What would fix it: Check a version on every write"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "## Stale write accepted") {
		t.Error("an allowed anomaly is in the maintainers' report")
	}
	a.Failed = nil
	if md, err := MaintainersReport(a, "s", "1", "c"); md != nil || err != nil {
		t.Errorf("an audit that found nothing: %q %v", md, err)
	}
}
