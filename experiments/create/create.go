// Package create is the create experiment (idempotency keys on creates:
// duplicate tabs after lost replies): its configuration and run, its rows, its
// tables and its descriptor, Experiment, which experiments.All registers.
package create

import (
	"fmt"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// Experiment is the create experiment: duplicate tabs after lost replies, by key
// policy and by which check the server makes first.
var Experiment = experiment.Define(experiment.Def[Config, Row, Run]{
	Info: experiment.Info{
		Name:  "create",
		Short: "Idempotency keys on creates: duplicate tabs after lost replies",
		Long: `create has a client make Sheet tabs with create_note_tab while a share of the
replies to calls that succeeded are lost after the server committed, as a host
timeout looks; the client then resends. Table A: the server checks the key first,
and the client re-lists for the fresh version before resending, with a new key or
the same one. Table B: the server checks the key first or the version first, and
the resend carries the version from before the lost commit; the client takes a new
key every call, keeps it on a resend, or keeps it until a conflict makes it re-list.
Duplicates are counted in the store.

See docs/model.md (the model) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench create                      # tables A and B at the published setup",
			"notesbench create --table b --drop 0.5",
			"notesbench create --target http://127.0.0.1:8765/mcp --order key-first",
		},
		Target: true, InMemory: true, History: true, Replications: 100, Baseline: true, Faults: true,
		Needs: []contract.Capability{contract.CapCreate, contract.CapList},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return []experiment.Param{
			experiment.Seeds(&c.Seeds),
			experiment.Int("tabs", &c.Tabs, "Sheet tabs the client means to create per run").AsPublished(),
			experiment.Float("drop", &c.Drop, "probability that the reply to a call that succeeded is lost (0 to below 1)").AsPublished(),
			experiment.Int("parallel", &c.Parallel, "seeds run at once (0: one per CPU); the results do not depend on it, but a server that loses concurrent writes may need 1"),
			experiment.String("table", &c.Table, "which table to run: a, b or both").
				Completing(false, TableA, TableB, BothTables),
			experiment.Custom("order", "string", "only the rows of this server order: key-first or version-first (a server checks in one; default: what it says it serves)",
				func() string { return string(c.Order) },
				func(s string) error { c.Order = contract.Order(s); return nil }).
				AsPublished().Completing(false, contract.Orders.Strings()...).
				ServedAs(func(v contract.Variant) string { return string(v.Order) }),
		}
	},
	Tables: Tables,
	VerdictTitle: func(cmp results.Comparison) string {
		if cmp.Singles == 0 {
			return ""
		}
		return fmt.Sprintf("Verdicts: each published seed against the single runs of %s", report.Count(cmp.Singles, "seed"))
	},
})
