package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
)

// repeatsCalls says the column's fault makes a write again with the same
// arguments: a duplicate send, a lost reply re-issued, a call sent again
// after a timeout (a pause) or a kill (the kill nemesis, crash). A line
// such a column finds applied twice is a repeat that had an effect.
func repeatsCalls(col string) bool {
	return strings.HasPrefix(col, "nemesis ") || col == "crash"
}

// declaredNotKept fills the row of hints declared but not kept, once every
// part has run, from what they counted and what the server declares of the
// tools the target writes through (a.mapping.Hints):
//
//   - idempotentHint: true on the write tool promises that a repeat with
//     the same arguments has no further effect: in each column whose fault
//     repeats calls, every line it found applied twice contradicts it;
//   - readOnlyHint: true on the write tool promises that it changes
//     nothing: in each race column, every line written through it that the
//     final text kept contradicts it.
//
// A column the server declared nothing for says so: a hint not declared
// cannot be broken, and its cell is "not run", never 0.
func (a *auditRun) declaredNotKept() {
	m := a.mapping
	write := contract.ToolEditNoteTab
	if !m.Native() {
		write = m.ServerTools[contract.ToolEditNoteTab]
	}
	if write == "" {
		return // a read-only server: nothing is written, nothing to contradict
	}
	idempotent := m.Hints[write].Idempotent
	row := results.AnomalyDeclaredNotKept
	for _, c := range a.cells[results.AnomalyAppliedTwice] {
		if !repeatsCalls(c.Mode) || c.Count == nil {
			continue
		}
		if !idempotent {
			a.add(row, results.NotRunCell(c.Mode, "", write+" does not declare idempotentHint: true, so its repeats promise nothing"))
			continue
		}
		cell := results.Counted(c.Mode, "lines applied twice by a repeat of "+write+", which declares idempotentHint: true", UnitLines, *c.Count, 0)
		if c.Proof != nil {
			p := *c.Proof
			p.Says = write + " declares idempotentHint: true (a repeat with the same arguments has no further effect); yet " + p.Says
			cell.Proof = &p
		}
		a.add(row, cell)
	}
	if !m.Hints[write].ReadOnly {
		return
	}
	replay := ""
	if i := slices.IndexFunc(a.parts, func(p results.AuditPart) bool { return p.Name == "race" }); i >= 0 {
		replay = shell.Line(a.parts[i].Command)
	}
	for _, c := range a.cells[results.AnomalyLostUpdate] {
		if !strings.HasPrefix(c.Mode, "race ") || c.Count == nil {
			continue
		}
		kept := c.Of - *c.Count
		cell := results.Counted(c.Mode, "lines written through "+write+", which declares readOnlyHint: true, that the final text kept", UnitLines, kept, c.Of)
		if kept > 0 {
			cell.Proof = saidProof(fmt.Sprintf("%s declares readOnlyHint: true (it changes nothing); yet %d of the %d lines written through it are in the final text", write, kept, c.Of), 0, replay)
		}
		a.add(row, cell)
	}
}
