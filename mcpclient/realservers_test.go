package mcpclient

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/create"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// stdioSpec is a stdio target running argv.
func stdioSpec(t testing.TB, argv ...string) TargetSpec {
	t.Helper()
	spec, err := Parse("stdio:" + quoteAll(argv))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// realConform is how the real servers' tests run conform: four writers,
// and the within-a-millisecond clause, which none of them judges, writing
// for a second at most instead of ten. A Node server's writes come
// milliseconds apart, so the clause wrote its whole ten seconds on each
// server with counter versions (2,662 writes to mcp-sqlite-server, 13
// CPU-seconds of notesbench and node: most of this test's CPU).
var realConform = conform.Options{Writers: 4, FastTime: time.Second}

// raceNone races two editors without a guard through tg: every editor's
// think time up to 15 ms, no pause, so that writes overlap.
func raceNone(t *testing.T, tg *Target, edits int) sim.Result[race.Row, results.RaceRun] {
	t.Helper()
	return raceMode(t, tg, race.Mode{Guard: contract.GuardNone, Policy: sim.Reapply}, edits)
}

// raceMode races two editors through tg in mode, as raceNone does.
func raceMode(t *testing.T, tg *Target, mode race.Mode, edits int) sim.Result[race.Row, results.RaceRun] {
	t.Helper()
	cfg := race.Default()
	cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1}, []race.Mode{mode}, edits
	if v, ok := tg.Served(); ok {
		cfg.VersionFormat = v.VersionFormat // digests, a counter, an etag: what the profile says
	}
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 15 * time.Millisecond}, sim.Dist{Max: 15 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The built-in profiles against the real servers they are written for,
// installed at pinned versions (obsidian-mcp on the Node the registry
// ships as a package): races run and lose lines where the server has no
// version check and none where it has one, conform fails the stale-version
// clause or passes it as the server checks versions, the teardown removes
// what the runs made, and an extraction that finds nothing in a real reply
// names the profile field and the reply.
func TestRealServers(t *testing.T) {
	// The servers are node processes: the race detector watches only
	// the client, which the other tests run under it. make test-large,
	// in CI, runs this.
	testpass.Large(t, "installs and runs the npm servers")
	t.Parallel() // waits on node processes, most of its time: beside the other large tests
	bin := npmtest.Install(t, npmtest.Filesystem, npmtest.Memory, npmtest.SQLite, npmtest.SQLiteNpx, npmtest.KnowledgeGraph,
		npmtest.MemoryKeeper, npmtest.TaskManager, npmtest.MemoryLibSQL, npmtest.MemoryBank, npmtest.Obsidian, npmtest.Dex, npmtest.Node)
	root := t.TempDir()
	fs := stdioSpec(t, filepath.Join(bin, "mcp-server-filesystem"), root)
	mem := stdioSpec(t, "env", "MEMORY_FILE_PATH="+filepath.Join(root, "memory.jsonl"), filepath.Join(bin, "mcp-server-memory"))

	// The servers' groups run side by side: each waits on its node
	// processes most of its time. Within a group, what shares a folder or a
	// database runs in turn.
	t.Run("filesystem", func(t *testing.T) {
		t.Parallel()
		tg := dialT(t, fs, Options{Profile: builtin(t, "filesystem")})
		if v, ok := tg.Served(); !ok || v.Guard != contract.GuardNone {
			t.Fatalf("served %v", v)
		}
		res := raceNone(t, tg, 40)
		if r := res.Runs[0]; r.Lost() == 0 || r.Claude.Writes != 40 || r.Human.Writes != 40 {
			t.Errorf("write_file without a version lost no line: %+v", r)
		}
		rep, err := conform.Run(ctx, tg, realConform)
		if err != nil {
			t.Fatal(err)
		}
		got := outcomes(rep)
		if got["tools/list"] != results.ConformPass || got["stale version"] != results.ConformFail || got["concurrent writers"] != results.ConformFail ||
			got["same-key resend"] != results.ConformNotApplicable {
			t.Errorf("conform: %+v", rep.Checks)
		}
		t.Run("filesystem-edit", func(t *testing.T) {
			tg := dialT(t, fs, Options{Profile: builtin(t, "filesystem-edit")})
			res := raceNone(t, tg, 30)
			if r := res.Runs[0]; r.Claude.Edits != 30 || r.Claude.Writes < 30 || r.Human.Writes < 30 {
				t.Errorf("edit_file: %+v", r)
			}
		})
		t.Run("an extraction that finds nothing", func(t *testing.T) { extractionFindsNothing(t, fs) })
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		tg := dialT(t, mem, Options{Profile: builtin(t, "memory")})
		res := raceNone(t, tg, 30)
		if r := res.Runs[0]; r.Claude.Writes != 30 || r.Human.Writes != 30 {
			t.Errorf("add_observations: %+v", r)
		}
		cfg := create.Default()
		cfg.Seeds, cfg.Tabs, cfg.Table, cfg.Order, cfg.Parallel = []uint64{1}, 8, "a", contract.OrderKeyFirst, 1
		cres, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range cres.Rows {
			// add_observations keeps one of equal observations: a resend
			// after a lost reply adds nothing, whatever the key.
			if row.TabsCreated[0] != 8 || row.Duplicates[0] != 0 || row.CallsSent[0] <= 8 {
				t.Errorf("create over memory: %+v", row)
			}
		}
		rep, err := conform.Run(ctx, tg, realConform)
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(rep); got["stale version"] != results.ConformFail || got["lost reply, create"] != results.ConformPass {
			t.Errorf("conform: %+v", rep.Checks)
		}
	})
	// SQL: a version-checked UPDATE, with bound values (mcp-sqlite) and
	// with the values written into the SQL text ({content|sql},
	// {expected_version|inc}: mcp-server-sqlite-npx), a PRAGMA per session,
	// the row deleted by the teardown, kept with Keep. Both servers serve
	// the same database file, each reading the other's rows.
	db := filepath.Join(root, "notes.db")
	sqlite := stdioSpec(t, filepath.Join(bin, "mcp-sqlite-server"), db)
	sqliteNpx := stdioSpec(t, filepath.Join(bin, "mcp-server-sqlite-npx"), db)
	rows := func(t *testing.T, tg *Target) string {
		t.Helper()
		r, err := tg.control.reply(ctx, "query", json.RawMessage(`{"sql":"SELECT id, version FROM notesbench_docs ORDER BY id"}`))
		if err != nil || r.IsError {
			t.Fatalf("%v %+v", err, r)
		}
		return strings.Join(strings.Fields(r.Text), "")
	}
	t.Run("sql", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct{ name string }{{"sqlite"}, {"sqlite-npx"}} {
			t.Run(tc.name, func(t *testing.T) {
				spec := sqlite
				if tc.name == "sqlite-npx" {
					spec = sqliteNpx
				}
				tg := dialT(t, spec, Options{Profile: builtin(t, tc.name)})
				if v, ok := tg.Served(); !ok || v.Guard != contract.GuardNote || v.VersionFormat != contract.FormatCounter {
					t.Fatalf("served %v", v)
				}
				res := raceMode(t, tg, race.Mode{Guard: contract.GuardNote, Policy: sim.Reapply}, 30)
				if r := res.Runs[0]; r.Lost() != 0 || r.Claude.Conflicts+r.Human.Conflicts == 0 || r.Claude.Errors+r.Human.Errors != 0 {
					t.Errorf("a version-checked UPDATE under note/reapply: %+v", r)
				}
				reader := dialT(t, sqlite, Options{Profile: builtin(t, "sqlite")})
				if got := rows(t, reader); got != "[]" {
					t.Errorf("the teardown left rows: %s", got)
				}
				kept := dialT(t, spec, Options{Profile: builtin(t, tc.name), Keep: true})
				raceMode(t, kept, race.Mode{Guard: contract.GuardNote, Policy: sim.Reapply}, 3)
				if got := rows(t, reader); len(kept.Kept()) != 1 || got != `[{"id":"`+kept.Kept()[0]+`","version":7}]` {
					t.Errorf("kept %v, rows %s", kept.Kept(), got)
				}
				if _, err := reader.control.reply(ctx, "query", json.RawMessage(`{"sql":"DELETE FROM notesbench_docs"}`)); err != nil {
					t.Fatal(err)
				}
				rep, err := conform.Run(ctx, tg, realConform)
				if err != nil {
					t.Fatal(err)
				}
				if got := outcomes(rep); got["stale version"] != results.ConformPass || got["concurrent writers"] != results.ConformPass ||
					got["no expected_version"] != results.ConformNotApplicable || got["versions increase"] != results.ConformPass {
					t.Errorf("conform: %+v", rep.Checks)
				}
			})
		}
	})

	// A Markdown vault on Node 26: its etag guard loses nothing under
	// note/reapply; without it lines are lost and the server's own
	// REVISION_CONFLICT is a refusal, not a conflict.
	vault := filepath.Join(root, "vault")
	if err := os.MkdirAll(filepath.Join(vault, ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	obsidian := stdioSpec(t, npmtest.WithNode(bin, filepath.Join(bin, "obsidian-mcp"), "serve", "--vault", "notes="+vault)...)
	t.Run("obsidian", func(t *testing.T) {
		t.Parallel()
		tg := dialT(t, obsidian, Options{Profile: builtin(t, "obsidian")})
		res := raceMode(t, tg, race.Mode{Guard: contract.GuardNote, Policy: sim.Reapply}, 20)
		if r := res.Runs[0]; r.Lost() != 0 || r.Claude.Conflicts+r.Human.Conflicts == 0 {
			t.Errorf("if_match under note/reapply: %+v", r)
		}
		rep, err := conform.Run(ctx, tg, realConform)
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(rep); got["stale version"] != results.ConformPass || got["no expected_version"] != results.ConformFail || got["concurrent writers"] != results.ConformPass {
			t.Errorf("conform: %+v", rep.Checks)
		}
		entries, err := os.ReadDir(filepath.Join(vault, "notesbench"))
		if err != nil || len(entries) != 0 {
			t.Errorf("the teardown left %v (%v)", entries, err)
		}
		t.Run("obsidian-unguarded", func(t *testing.T) {
			tg := dialT(t, obsidian, Options{Profile: builtin(t, "obsidian-unguarded")})
			res := raceNone(t, tg, 20)
			if r := res.Runs[0]; r.Claude.Edits != 20 || r.Stopped != "" || r.Unreadable != "" {
				t.Errorf("obsidian_edit_note without if_match: %+v", r)
			}
		})
	})

	// Whole-content writes to stores that keep one file or database for
	// every document: a knowledge graph whose observations are the lines
	// ({content_lines}), a context store, a task store whose ids the create
	// answers ({task}, {request}, bound per document), a libSQL database
	// read through a ranked search (where picks the document's entity), a
	// memory bank of Markdown files (which has no delete: its documents are
	// left). One session's write reads back as written and the teardown
	// removes the document; then two editors race. These stores rewrite their one file on every call, and
	// under two writers they lose more than lines: the task store drops the
	// run's task (its calls then refused, the final state unreadable), the
	// knowledge graph's file can end up holding two writes at once, which it
	// then cannot parse (a JSON-RPC internal error on every read), and dex's
	// task file two lines torn into each other, which it then refuses as
	// corrupted: the race must reach its end, or end on that error, as the
	// server decides, and so must conform after it.
	graph := filepath.Join(root, "graph.jsonl")
	tasks := filepath.Join(root, "tasks.json")
	keeper := stdioSpec(t, "env", "DATA_DIR="+filepath.Join(root, "keeper"), filepath.Join(bin, "mcp-memory-keeper"))
	bank := filepath.Join(root, "bank")
	dex := filepath.Join(root, "dex")
	for _, tc := range []struct {
		name string
		spec TargetSpec
		// gone reports whether the teardown removed doc (for a profile
		// without one, whether doc is still there, as written).
		gone func(t *testing.T, tg *Target, doc string) bool
		// torn reports whether err is the server's word that two writers
		// destroyed its store (nil: a server that never says it).
		torn func(err error) bool
	}{
		{"knowledge-graph", stdioSpec(t, filepath.Join(bin, "mcp-knowledge-graph"), "--memory-path", graph), func(t *testing.T, _ *Target, doc string) bool {
			data, err := os.ReadFile(graph)
			return err == nil && !strings.Contains(string(data), doc)
		}, func(err error) bool {
			var pe *ProtocolError
			return errors.As(err, &pe) && pe.Code == -32603
		}},
		{"memory-keeper", keeper, func(t *testing.T, tg *Target, doc string) bool {
			r, err := tg.control.reply(ctx, "context_get", json.RawMessage(`{"key":"`+doc+`"}`))
			return err == nil && r.Text == "No matching context found"
		}, nil},
		{"taskmanager", stdioSpec(t, "env", "TASK_MANAGER_FILE_PATH="+tasks, filepath.Join(bin, "mcp-taskmanager")), func(t *testing.T, _ *Target, doc string) bool {
			data, err := os.ReadFile(tasks)
			return err == nil && !strings.Contains(string(data), `"title": "`+doc+`"`)
		}, nil},
		{"memory-libsql", stdioSpec(t, "env", "LIBSQL_URL=file:"+filepath.Join(root, "libsql.db"), filepath.Join(bin, "mcp-memory-libsql")), func(t *testing.T, tg *Target, doc string) bool {
			r, err := tg.control.reply(ctx, "search_nodes", json.RawMessage(`{"query":"`+doc+`","limit":50}`))
			return err == nil && !r.IsError && !strings.Contains(r.Text, `"name": "`+doc+`"`)
		}, nil},
		{"dex", stdioSpec(t, npmtest.WithNode(bin, "env", "DEX_HOME="+root, "DEX_STORAGE_PATH="+dex, filepath.Join(bin, "dex"), "mcp")...), func(t *testing.T, _ *Target, doc string) bool {
			data, err := os.ReadFile(filepath.Join(dex, "tasks.jsonl"))
			return err == nil && !strings.Contains(string(data), `"name":"`+doc+`"`)
		}, func(err error) bool {
			return strings.Contains(err.Error(), "is corrupted: Invalid JSON")
		}},
		{"memory-bank", stdioSpec(t, "env", "MEMORY_BANK_ROOT="+bank, filepath.Join(bin, "mcp-server-memory-bank")), func(t *testing.T, _ *Target, doc string) bool {
			data, err := os.ReadFile(filepath.Join(bank, doc, "text.md"))
			return err == nil && string(data) == "one\ntwo" // no teardown: left as written
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := dialT(t, tc.spec, Options{Profile: builtin(t, tc.name)})
			b, s := openRun(t, tg)
			write(t, s, "one")
			write(t, s, "one\ntwo")
			if read, err := s.ReadNoteTab(ctx, "n", "markdown"); err != nil || read.Text != "one\ntwo" {
				t.Errorf("read back %q, %v", read.Text, err)
			}
			doc, _ := b.(*backend).document("n")
			s.Close()
			if err := b.Close(); err != nil || !tc.gone(t, tg, doc) {
				t.Errorf("the teardown left %s (%v)", doc, err)
			}

			cfg := race.Default()
			cfg.Seeds, cfg.Modes, cfg.Edits = []uint64{1}, []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}}, 20
			cfg.ClaudeThink, cfg.HumanThink, cfg.Pause, cfg.VersionFormat = sim.Dist{Max: 15 * time.Millisecond}, sim.Dist{Max: 15 * time.Millisecond}, "0", contract.FormatDigest
			res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
			switch {
			case err != nil && tc.torn != nil && tc.torn(err):
				// Every later call fails alike: conform cannot even create
				// its document.
				t.Logf("the store became unreadable to the server: %v", err)
				return
			case err != nil:
				t.Fatal(err)
			default:
				r := res.Runs[0]
				if r.Claude.Edits != 20 || r.Stopped != "" || r.Claude.Writes+r.Claude.Errors == 0 || r.Human.Writes+r.Human.Errors == 0 {
					t.Errorf("%s: %+v", tc.name, r)
				}
				t.Logf("%s: lost %d of %d, errors %d / %d, %s", tc.name, r.Lost(), r.Intended(), r.Claude.Errors, r.Human.Errors, r.Unreadable)
			}
			rep, err := conform.Run(ctx, tg, realConform)
			switch {
			case err != nil && tc.torn != nil && tc.torn(err):
				// The race ran to the end, and the store is gone for every
				// later call.
				t.Logf("conform: the store became unreadable to the server: %v", err)
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := outcomes(rep); got["stale version"] != results.ConformFail || got["tools/list"] != results.ConformPass {
				t.Errorf("conform: %+v", rep.Checks)
			}
		})
	}

	// The memory bank's tabs are files, listed as one line of names (all):
	// a file's name is its key, so a resend after a lost reply writes the
	// same file again and makes no second tab. A bank of its own: the
	// memory bank's race runs beside it.
	t.Run("memory-bank create", func(t *testing.T) {
		t.Parallel()
		tg := dialT(t, stdioSpec(t, "env", "MEMORY_BANK_ROOT="+filepath.Join(root, "bank-create"), filepath.Join(bin, "mcp-server-memory-bank")), Options{Profile: builtin(t, "memory-bank")})
		cfg := create.Default()
		cfg.Seeds, cfg.Tabs, cfg.Table, cfg.Order, cfg.Parallel = []uint64{1}, 8, "a", contract.OrderKeyFirst, 1
		res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, cfg.Seeds)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Rows {
			if row.TabsCreated[0] != 8 || row.Duplicates[0] != 0 || row.CallsSent[0] <= 8 {
				t.Errorf("create over the memory bank: %+v", row)
			}
		}
	})
}

// extractionFindsNothing dials the filesystem server fs through a profile
// whose read extracts nothing from its replies. The profile is tried on a
// fresh document before any run: the extraction that finds nothing is the
// dial's error, one that names the field and the reply, and no run starts.
func extractionFindsNothing(t *testing.T, fs TargetSpec) {
	p := builtin(t, "filesystem")
	data := strings.Replace(mustJSON(t, p), `"content":{"pointer":"/content"}`, `"content":{"pointer":"/text"}`, 1)
	bad, err := profile.Parse([]byte(data), "bad.json")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Dial(ctx, fs, Options{Profile: bad})
	if err == nil {
		tg.Close()
	}
	var ee *profile.ExtractError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), `: profile filesystem: read.content: a string at pointer /text found nothing in the reply "{\"content\":\"\"}" (tried on a fresh document before any run)`) {
		t.Errorf("%v", err)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
