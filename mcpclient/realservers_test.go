package mcpclient

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/mcpclient/profile"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// stdioSpec is a stdio target running argv.
func stdioSpec(t testing.TB, argv ...string) Spec {
	t.Helper()
	spec, err := Parse("stdio:" + quoteAll(argv))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// raceNone races two editors without a guard through tg: every editor's
// think time up to 15 ms, no pause, so that writes overlap.
func raceNone(t *testing.T, tg *Target, edits int) sim.Result[results.RaceRow, results.RaceRun] {
	t.Helper()
	cfg := sim.DefaultRace()
	cfg.Target, cfg.Seeds, cfg.Modes, cfg.Edits = tg, []uint64{1}, []sim.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}}, edits
	cfg.ClaudeThink, cfg.HumanThink, cfg.Pause = sim.Dist{Max: 15 * time.Millisecond}, sim.Dist{Max: 15 * time.Millisecond}, "0"
	res, err := cfg.Run(ctx, cfg.Seeds)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The built-in profiles against the real servers they are written for,
// installed at pinned versions: races run and lose lines where the server
// has no version check, conform fails the stale-version clause and passes
// what applies, and an extraction that finds nothing in a real reply names
// the profile field and the reply.
func TestRealServers(t *testing.T) {
	if raceDetector {
		// The servers are node processes: the race detector watches only
		// the client, which the other tests run under it. make test-full,
		// in CI, runs this.
		t.Skip("installs and runs the npm servers: make test-full runs it")
	}
	bin := npmtest.Install(t, npmtest.Filesystem, npmtest.Memory)
	root := t.TempDir()
	fs := stdioSpec(t, filepath.Join(bin, "mcp-server-filesystem"), root)
	mem := stdioSpec(t, "env", "MEMORY_FILE_PATH="+filepath.Join(root, "memory.jsonl"), filepath.Join(bin, "mcp-server-memory"))

	t.Run("filesystem", func(t *testing.T) {
		tg := dialT(t, fs, Options{Profile: builtin(t, "filesystem")})
		if v, ok := tg.Served(); !ok || v.Guard != contract.GuardNone {
			t.Fatalf("served %v", v)
		}
		res := raceNone(t, tg, 40)
		if r := res.Runs[0]; r.Lost() == 0 || r.Claude.Writes != 40 || r.Human.Writes != 40 {
			t.Errorf("write_file without a version lost no line: %+v", r)
		}
		rep, err := conform.Run(ctx, tg, conform.Options{Writers: 4})
		if err != nil {
			t.Fatal(err)
		}
		got := outcomes(rep)
		if got["tools/list"] != conform.Pass || got["stale version"] != conform.Fail || got["concurrent writers"] != conform.Fail ||
			got["same-key resend"] != conform.NotApplicable {
			t.Errorf("conform: %+v", rep.Checks)
		}
	})
	t.Run("filesystem-edit", func(t *testing.T) {
		tg := dialT(t, fs, Options{Profile: builtin(t, "filesystem-edit")})
		res := raceNone(t, tg, 30)
		if r := res.Runs[0]; r.Claude.Edits != 30 || r.Claude.Writes < 30 || r.Human.Writes < 30 {
			t.Errorf("edit_file: %+v", r)
		}
	})
	t.Run("memory", func(t *testing.T) {
		tg := dialT(t, mem, Options{Profile: builtin(t, "memory")})
		res := raceNone(t, tg, 30)
		if r := res.Runs[0]; r.Claude.Writes != 30 || r.Human.Writes != 30 {
			t.Errorf("add_observations: %+v", r)
		}
		cfg := sim.DefaultCreate()
		cfg.Target, cfg.Seeds, cfg.Tabs, cfg.Table, cfg.Order, cfg.Parallel = tg, []uint64{1}, 8, "a", contract.OrderKeyFirst, 1
		cres, err := cfg.Run(ctx, cfg.Seeds)
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
		rep, err := conform.Run(ctx, tg, conform.Options{Writers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomes(rep); got["stale version"] != conform.Fail || got["lost reply, create"] != conform.Pass {
			t.Errorf("conform: %+v", rep.Checks)
		}
	})
	t.Run("an extraction that finds nothing", func(t *testing.T) {
		p := builtin(t, "filesystem")
		data := strings.Replace(mustJSON(t, p), `"content":{"pointer":"/content"}`, `"content":{"pointer":"/text"}`, 1)
		bad, err := profile.Parse([]byte(data), "bad.json")
		if err != nil {
			t.Fatal(err)
		}
		tg := dialT(t, fs, Options{Profile: bad})
		b, err := tg.Open(ctx, contract.RunSpec{Name: "bad"})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.CreateNote(ctx, "n"); err != nil {
			t.Fatal(err)
		}
		s, err := b.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = s.ReadNoteTab(ctx, "n", "markdown")
		var ee *profile.ExtractError
		if !errors.As(err, &ee) || err.Error() != `profile filesystem: read.content: a string at pointer /text found nothing in the reply "{\"content\":\"\"}"` {
			t.Errorf("%v", err)
		}
	})
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
