package report

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/results"
)

// ClientAuditVerdict says in a few words what a client audit found.
func ClientAuditVerdict(a results.ClientAudit) string {
	anomalies, errs := 0, 0
	for _, r := range a.Runs {
		anomalies += r.Anomalies()
		if r.Error != "" {
			errs++
		}
	}
	var parts []string
	if anomalies > 0 {
		parts = append(parts, Count(anomalies, "anomalous line"))
	}
	if errs > 0 {
		parts = append(parts, Count(errs, "run")+" not judged")
	}
	switch {
	case len(parts) > 0:
		return "failed: " + strings.Join(parts, ", ")
	case a.Interrupted:
		return "unfinished: interrupted after " + Count(len(a.Runs), "run")
	case len(a.Runs) == 0:
		return "unfinished: nothing ran"
	}
	return "passed: no anomaly in " + Count(len(a.Runs), "run")
}

// ClientAuditTables are a client audit's tables: what was audited, the
// matrix (a column per fault), and the proofs.
func ClientAuditTables(a results.ClientAudit) []Table {
	subject := Table{Title: "Client audited", Header: []string{"What", "Value"}, Rows: [][]string{
		{"Driver", a.Command},
		{"Library (its clientInfo)", cmp.Or(a.Client, "none seen")},
		{"Protocol", cmp.Or(a.Protocol, "none named in a header")},
		{"Lines per run", strconv.Itoa(a.Lines)},
		{"Seed", strconv.FormatUint(a.Seed, 10)},
	}}
	m := Table{Title: "What each fault did", Header: []string{"Count"}}
	for _, r := range a.Runs {
		m.Header = append(m.Header, r.Fault)
	}
	row := func(name string, v func(results.ClientRun) string) {
		cells := []string{name}
		for _, r := range a.Runs {
			cells = append(cells, v(r))
		}
		m.Rows = append(m.Rows, cells)
	}
	num := func(f func(results.ClientRun) int) func(results.ClientRun) string {
		return func(r results.ClientRun) string {
			if r.Error != "" && r.Calls == 0 {
				return "not judged"
			}
			return strconv.Itoa(f(r))
		}
	}
	row("writes the fault hit", num(func(r results.ClientRun) int { return r.Injected }))
	row("calls the application made", num(func(r results.ClientRun) int { return r.Calls }))
	row("  told ok", num(func(r results.ClientRun) int { return r.OK }))
	row("  told error", num(func(r results.ClientRun) int { return r.Failed }))
	row("    of a write that had committed", num(func(r results.ClientRun) int { return r.FailedCommitted }))
	row("write requests the server got", num(func(r results.ClientRun) int { return r.Requests }))
	row("  resent by the library, same id", num(func(r results.ClientRun) int { return r.ResentSameID }))
	row("  resent by the library, new id", num(func(r results.ClientRun) int { return r.ResentNewID }))
	row("  with no idempotency key", num(func(r results.ClientRun) int { return r.NoKey }))
	row("calls the application remade with a new key", num(func(r results.ClientRun) int { return r.NewKey }))
	row("lines "+results.ClientAppliedTwice, num(func(r results.ClientRun) int { return r.AppliedTwice }))
	row("lines "+results.ClientFailedButWritten, num(func(r results.ClientRun) int { return r.FailedButWritten }))
	row("lines "+results.ClientOKButMissing, num(func(r results.ClientRun) int { return r.OKButMissing }))
	row("lines lost, and told so", num(func(r results.ClientRun) int { return r.Lost }))
	for _, r := range a.Runs {
		if r.Error != "" {
			m.Notes = append(m.Notes, r.Fault+": "+r.Error)
		}
	}
	m.Notes = append(m.Notes, "Verdict: "+ClientAuditVerdict(a)+".")
	tables := []Table{subject, m}
	for _, r := range a.Runs {
		for _, p := range r.Proofs {
			t := Table{Title: fmt.Sprintf("Proof: line %d %s, under %s", p.Line, p.Anomaly, r.Fault), Header: []string{"Step", "What happened"}}
			for i, e := range p.Events {
				t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), e})
			}
			tables = append(tables, t)
		}
	}
	return tables
}

// ClientAuditOutput is a client audit for Write: its tables, the result
// itself for json, and one self-contained page for html.
func ClientAuditOutput(a results.ClientAudit) Output {
	return Output{Section: Section{Main: ClientAuditTables(a)}, Result: a,
		HTML: func(w io.Writer) error { return WriteClientAuditHTML(w, a) }}
}

// WriteClientAuditHTML writes a client audit as one self-contained HTML
// page, as WriteAuditHTML writes an audit: the verdict, then its tables.
func WriteClientAuditHTML(w io.Writer, a results.ClientAudit) error {
	return clientPage.Execute(w, struct {
		Title, Verdict string
		Passed         bool
		Tables         []Table
	}{"notesbench audit --client: " + a.Command, ClientAuditVerdict(a), a.Passed(), ClientAuditTables(a)})
}
