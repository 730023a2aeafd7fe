package check

import (
	"context"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/results"
)

// checkEmptyReads holds every read of a tab's text to the writes before
// it: a read that returned an empty text after a write of a text with
// lines to that tab was acknowledged (it returned ok before the read was
// made), and with no write of an empty text made before the read returned,
// found a document that had been emptied — a server that truncates a file
// then writes it, or lost its store — whatever the final state says. It
// judges the reads whose text it knows (history.Call.Digest); a run
// without any is not one it applies to.
func checkEmptyReads(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, runs, res, func(rd *runData) {
		type tab struct{ note, tab string }
		var reads []*history.Call
		for i := range rd.run.Calls {
			c := &rd.run.Calls[i]
			if c.Tool == contract.ToolReadNoteTab && c.Outcome == contract.OK && c.Digest != "" {
				reads = append(reads, c)
			}
		}
		if len(reads) == 0 {
			notApplicable(res, rd, "no read's text recorded")
			return
		}
		for _, r := range reads {
			res.Judged++
			if r.Digest != history.EmptyDigest {
				continue
			}
			// The latest write of lines acknowledged before the read, unless
			// an empty text may have been written since.
			var filled *history.Call
			emptied := false
			for i := range rd.run.Calls {
				w := &rd.run.Calls[i]
				if w.Tool != contract.ToolEditNoteTab || w.Note != r.Note || w.Tab != r.Tab || w.Digest == "" || w.Invoke > r.Return {
					continue
				}
				switch {
				case w.Digest == history.EmptyDigest:
					emptied = true
				case w.Outcome == contract.OK && w.Return < r.Invoke && (filled == nil || w.Return > filled.Return):
					filled = w
				}
			}
			if filled == nil || emptied {
				continue
			}
			rd.res.EmptyReads++
			violations(res, 1, rd, filled.Return, r.Return, "read an empty document: %s, after %s had written lines and was acknowledged", r, filled)
		}
	})
}
