package check

import (
	"context"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// checkVersions checks that every committed write of a register made a version
// of its own: no two committed writes returned the same version, and no
// committed write under a guard returned the version it expected. A version
// that does not change on a write is what lets a stale write through: the
// contract's versions must tell every state apart.
//
// It is no rule of versions without an order (contract.VersionFormat.Ordered):
// a digest is the same for the same content, and an opaque version is the
// server's own. Runs of those are not applicable, not passed.
func checkVersions(ctx context.Context, runs []*runData, res *results.CheckResult, _ Options, _ *results.CheckReport) {
	eachRun(ctx, runs, res, func(rd *runData) {
		v := rd.run.Header.Variant
		if !v.VersionFormat.Ordered() {
			rd.res.Versions = results.CheckNotApplicable
			notApplicable(res, rd, "%s", unordered(v.VersionFormat))
			return
		}
		rd.res.Versions = results.CheckOK
		guarded := v.Guard != contract.GuardNone
		for _, p := range rd.parts {
			made := map[string]int{} // version → the call that committed it
			for _, i := range p.calls {
				c := &rd.run.Calls[i]
				if !c.IsWrite() || c.Outcome != contract.OK || c.Replayed || c.Version == "" {
					continue // a create whose server named no version made none to judge
				}
				res.Judged++
				if first, ok := made[c.Version]; ok {
					rd.res.VersionCollisions++
					rd.res.Versions = results.CheckViolated
					violation(res, rd, c.Return, "register %s: version %s committed twice: by %s, then by %s", p.key, c.Version, &rd.run.Calls[first], c)
					continue
				}
				made[c.Version] = i
				if guarded && c.Version == c.ExpectedVersion {
					rd.res.VersionCollisions++
					rd.res.Versions = results.CheckViolated
					violation(res, rd, c.Return, "register %s: a committed write left the version at %s: %s", p.key, c.Version, c)
				}
			}
		}
	})
}

// unordered says why distinct versions per commit is no rule of versions in
// format f.
func unordered(f contract.VersionFormat) string {
	if f == contract.FormatDigest {
		return "digest versions are the same for the same content, so two commits may make one version"
	}
	return string(f) + " versions are the server's own, whose make is unknown: nothing says every commit makes a new one"
}
