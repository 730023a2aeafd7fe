package report

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"io"

	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
)

// WriteAuditHTML writes an audit as one self-contained HTML page: the
// matrix, what was audited and what the client policy costs, the plots
// (SVG, inline as data), each part's command and tables, and the checker's
// timeline of the first linearizability violation, when there is one, in
// a frame of its own. It loads nothing: no script, style, font or picture
// comes from elsewhere, and its policy forbids the page to fetch any.
func WriteAuditHTML(w io.Writer, d AuditDoc) error {
	a := d.Audit
	page := htmlPage{
		Title:   auditTitle(a),
		Verdict: AuditVerdict(a),
		Passed:  a.Passed(),
		Subject: SubjectTable(a),
		Matrix:  MatrixTable(a),
		Marks:   make([]string, len(a.Matrix)),
		Costs:   ClientCostTable(a),
		Ran:     PartsTable(a),
	}
	for i, r := range a.Matrix {
		page.Marks[i] = markClass(r.Mark)
	}
	if a.Baseline != "" {
		t := RegressionTable(a)
		page.Regressions = &t
	}
	for _, p := range a.Plots {
		var buf bytes.Buffer
		if err := AuditPlot(&buf, "svg", p); err != nil {
			return err
		}
		page.Plots = append(page.Plots, htmlPlot{Title: p.Title,
			Src: template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))})
	}
	for i, p := range a.Parts {
		if p.NotRun != "" || len(d.partTables(i)) == 0 {
			continue
		}
		page.Parts = append(page.Parts, htmlPart{Name: p.Name, Command: shell.Line(p.Command), Tables: d.partTables(i)})
	}
	if d.Timeline != nil {
		page.Timeline = string(d.Timeline)
	}
	proofs := ProofTables(a)
	for i, p := range Proofs(a) {
		page.Proofs = append(page.Proofs, htmlProof{Table: proofs[i], Timeline: proofTimeline(p.Cell.Proof)})
	}
	return auditPage.Execute(w, page)
}

// markClass is the style class of a mark.
func markClass(m results.Mark) string {
	switch m {
	case results.MarkFail:
		return "fail"
	case results.MarkAllowed:
		return "allowed"
	case results.MarkOK:
		return "ok"
	}
	return "notrun"
}

// htmlPage is what the page template shows.
type htmlPage struct {
	Title, Verdict string
	Passed         bool
	Subject        Table
	Matrix         Table
	// Marks holds the class of each row of Matrix, by its mark.
	Marks       []string
	Costs       Table
	Regressions *Table
	Ran         Table
	Plots       []htmlPlot
	Proofs      []htmlProof
	Parts       []htmlPart
	// Timeline is porcupine's page, shown in a frame of its own (srcdoc):
	// its script runs there, apart from this page.
	Timeline string
}

type htmlPlot struct {
	Title string
	Src   template.URL
}

// htmlProof is a proof: its timeline, then its table.
type htmlProof struct {
	Table    Table
	Timeline template.HTML
}

type htmlPart struct {
	Name, Command string
	Tables        []Table
}

// pageParts are what every page of notesbench's shares: the head, the
// title and the verdict ("head"), and a table ("table"). Its content
// security policy lets a page load nothing from anywhere; the audit's
// timeline frame runs porcupine's own inline script, which draws from data
// inside it.
const pageParts = `{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'unsafe-inline'; frame-src 'self'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
tr.fail td:nth-child(-n+3) { background: #f8d0d0; } tr.allowed td:nth-child(-n+3) { background: #f8ecc8; }
tr.ok td:nth-child(-n+3) { background: #d6efd6; } tr.notrun td:nth-child(-n+3) { background: #e8e8e8; }
.verdict { font-size: 1.2em; padding: 0.6em 1em; border-radius: 4px; }
.verdict.passed { background: #d6efd6; } .verdict.failed { background: #f8d0d0; }
ul.notes { font-size: 0.85em; color: #444; margin-top: 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
figure { display: inline-block; margin: 0.5em 1em 0.5em 0; } figure img { max-width: 36em; }
iframe { width: 100%; height: 40em; border: 1px solid #ccc; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="verdict {{if .Passed}}passed{{else}}failed{{end}}">{{.Verdict}}</p>
{{end}}{{define "table"}}<table>
<caption>{{.Title}}</caption>
{{if index .Header 0}}<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>{{end}}
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody>
</table>
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}`

// page returns the template of a page named name, made of pageParts and src.
func page(name, src string) *template.Template {
	return template.Must(template.Must(template.New(name).Parse(pageParts)).Parse(src))
}

// auditPage is the audit's page.
var auditPage = page("audit", `{{template "head" .}}
<section id="matrix">
<h2>The anomaly matrix</h2>
<table>
<caption>{{.Matrix.Title}}</caption>
<thead><tr>{{range .Matrix.Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $row := .Matrix.Rows}}<tr class="{{index $.Marks $i}}">{{range $row}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody>
</table>
<ul class="notes">{{range .Matrix.Notes}}<li>{{.}}</li>{{end}}</ul>
</section>
{{if .Proofs}}<section id="proofs">
<h2>Proofs</h2>
<p>For each count above 0, the operations of one run that show it, on the run's clock: a lane per client session, a bar per call from when it was made to when it returned (green ok, red failed, grey unknown), numbered as in the table below it; faults shaded.</p>
{{range .Proofs}}<div class="proof">{{.Timeline}}
{{template "table" .Table}}</div>
{{end}}</section>{{end}}
<section id="subject">
<h2>What was audited, and what ran</h2>
{{template "table" .Subject}}
{{template "table" .Costs}}
{{with .Regressions}}{{template "table" .}}{{end}}
{{template "table" .Ran}}
</section>
{{if .Plots}}<section id="plots">
<h2>Plots</h2>
{{range .Plots}}<figure><img src="{{.Src}}" alt="{{.Title}}"></figure>
{{end}}</section>{{end}}
{{range .Parts}}<section class="part">
<h2>{{.Name}}</h2>
<pre><code>{{.Command}}</code></pre>
{{range .Tables}}{{template "table" .}}{{end}}
</section>
{{end}}<section id="timeline">
<h2>The checker's timeline</h2>
{{if .Timeline}}<p>porcupine's timeline of the first linearizability violation in the race's history: the operations of each client, and where no order of them fits a register.</p>
<iframe title="linearizability timeline" sandbox="allow-scripts" srcdoc="{{.Timeline}}"></iframe>
{{else}}<p>No linearizability violation in the race's history: no timeline to show.</p>{{end}}
</section>
</body>
</html>
`)

// clientPage is a client audit's page: its tables.
var clientPage = page("client", `{{template "head" .}}
{{range .Tables}}{{template "table" .}}
{{end}}</body>
</html>
`)
