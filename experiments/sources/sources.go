// Package sources is the sources experiment (which idempotency key to put on
// add_note_source: a UUID, the URL as written, or the normalized URL): its
// configuration and run, its rows, its tables and its descriptor, Experiment,
// which experiments.All registers.
package sources

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
)

// Experiment is the sources experiment: which idempotency key to put on
// add_note_source.
var Experiment = experiment.Define(experiment.Def[Config, Row, Run]{
	Info: experiment.Info{
		Name:  "sources",
		Short: "Which idempotency key to put on add_note_source: a UUID, the URL as written, or the normalized URL",
		Long: `sources runs research sessions, each on its own Note: every turn cites some of the
session's pages, each URL spelled one of seven ways (canonical, trailing slash, www.,
?utm_source=…, #fragment, http://, no scheme), and a share of the replies is lost
and resent with the same key. It counts saved sources and duplicates (a source whose
normalized URL the Note already holds) for three keys: a fresh UUID per citation,
a hash of the URL as written, and a hash of the Note ID and the normalized URL.

See docs/model.md (the model) and docs/usage.md (shared flags).`,
		Examples: []string{
			"notesbench sources",
			"notesbench sources --sessions 100 --drop 0.5",
			"notesbench sources --history s.jsonl && notesbench check s.jsonl",
		},
		Target: true, InMemory: true, History: true, Replications: 20, Baseline: true, Faults: true,
		Needs: []contract.Capability{contract.CapAddSource, contract.CapList, contract.CapListSources},
	},
	Default: Default,
	Params: func(c *Config) []experiment.Param {
		return []experiment.Param{
			experiment.Seeds(&c.Seeds),
			experiment.Int("sessions", &c.Sessions, "research sessions, each on its own Note").AsPublished(),
			experiment.Int("turns", &c.Turns, "turns per session").AsPublished(),
			experiment.Int("pages", &c.Pages, "pages a session draws its citations from").AsPublished(),
			experiment.Int("cites", &c.Cites, "pages cited per turn, without replacement").AsPublished(),
			experiment.Float("drop", &c.Drop, "probability that the reply to a call that succeeded is lost (0 to below 1)").AsPublished(),
			experiment.Int("parallel", &c.Parallel, "seeds run at once (0: one per CPU; 1: everything one at a time); the results do not depend on it, but a server that loses concurrent writes may need 1"),
		}
	},
	Tables: experiment.OneTable(Table),
})
