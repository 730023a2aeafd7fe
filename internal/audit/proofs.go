package audit

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/shell"
	"github.com/notesbench/notesbench/results"
)

// The histories the audit keeps, by their names under its folder (--out),
// which the commands of "what ran" and the proofs name.
const (
	raceHistory    = "histories/race.jsonl"
	createHistory  = "histories/create.jsonl"
	sourcesHistory = "histories/sources.jsonl"
)

// keep keeps what w recorded as the history called name, and returns it
// read back, checked: the second opinion whose proofs the cells carry.
func (a *auditRun) keep(ctx context.Context, name string, w *history.Writer, visualize bool) (*results.CheckReport, error) {
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	a.histories[name] = slices.Clone(buf.Bytes())
	return checkBytes(ctx, name, buf.Bytes(), a.cfg.Budget.CheckTimeout, visualize)
}

// checkBytes checks the history b, called name.
func checkBytes(ctx context.Context, name string, b []byte, timeout time.Duration, visualize bool) (*results.CheckReport, error) {
	h, err := history.Read(ctx, bytes.NewReader(b), name)
	if err != nil {
		return nil, err
	}
	return check.Run(ctx, []*history.History{h}, check.Options{Timeout: timeout, Visualize: visualize})
}

// proofOf returns the first proof the check called name found in the runs
// of rep that of keeps, in the history called file, replayed by replay
// (given the run); nil when it found none.
func proofOf(rep *results.CheckReport, name string, of func(results.CheckRun) bool, file string, replay func(results.CheckRun) string) *results.AuditProof {
	i := slices.IndexFunc(rep.Checks, func(c results.CheckResult) bool { return c.Check == name })
	if i < 0 {
		return nil
	}
	for _, p := range rep.Checks[i].Proofs {
		j := slices.IndexFunc(rep.Runs, func(r results.CheckRun) bool { return r.Run == p.Run })
		if j < 0 || !of(rep.Runs[j]) {
			continue
		}
		p.File = file // the kept history, whatever the check called it
		return &results.AuditProof{CheckProof: p, History: file, Replay: replay(rep.Runs[j])}
	}
	return nil
}

// prove sets the proof of the cell of anomaly in column col, when the cell
// counted something and p shows it.
func (a *auditRun) prove(anomaly, col string, p *results.AuditProof) {
	if p == nil {
		return
	}
	for i, c := range a.cells[anomaly] {
		if c.Mode == col && c.Count != nil && *c.Count > 0 && c.Proof == nil {
			a.cells[anomaly][i].Proof = p
		}
	}
}

// saidProof is the proof of a count no history shows, only the server's
// words: a run it could not set up, a final state it could not read.
func saidProof(says string, seed uint64, replay string) *results.AuditProof {
	return &results.AuditProof{CheckProof: results.CheckProof{Seed: seed, Says: says, Ops: []results.ProofOp{}}, Replay: replay}
}

// replayOf is the command line that replays the experiment x of a part on
// one seed: its flags with the seed (and, given, the modes) in place of
// theirs, its history recorded where it does not overwrite the kept one.
func (a *auditRun) replayOf(x experiment.Configured, seed uint64, modes string) string {
	omit := []string{"seeds", "parallel"}
	if modes != "" {
		omit = append(omit, "modes")
	}
	flags := append(x.Flags(omit...), "--seeds", strconv.FormatUint(seed, 10))
	if modes != "" {
		flags = append(flags, "--modes", modes)
	}
	name := x.Info().Name
	return shell.Line(a.command(name, flags, "--replications", "0", "--history", fmt.Sprintf("%s-seed%d.jsonl", name, seed)))
}
