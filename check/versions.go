package check

import (
	"context"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
)

// checkVersions checks that every committed write of a register made a version
// of its own: no two committed writes returned the same version, and no
// committed write under a guard returned the version it expected. A version
// that does not change on a write is what lets a stale write through: the
// contract's versions must tell every state apart.
func checkVersions(ctx context.Context, runs []*runData, res *Result, _ Options, _ *Report) {
	eachRun(ctx, runs, res, func(rd *runData) {
		guarded := rd.run.Header.Variant.Guard != contract.GuardNone
		for _, p := range rd.parts {
			made := map[string]int{} // version → the call that committed it
			for _, i := range p.calls {
				c := &rd.run.Calls[i]
				if !c.IsWrite() || c.Outcome != history.OK || c.Replayed {
					continue
				}
				res.Judged++
				if first, ok := made[c.Version]; ok {
					rd.res.VersionCollisions++
					res.violation(rd, "register %s: version %s committed twice: by %s, then by %s", p.key, c.Version, rd.run.Calls[first], c)
					continue
				}
				made[c.Version] = i
				if guarded && c.Version == c.ExpectedVersion {
					rd.res.VersionCollisions++
					res.violation(rd, "register %s: a committed write left the version at %s: %s", p.key, c.Version, c)
				}
			}
		}
	})
}
