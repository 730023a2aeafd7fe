package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/internal/pgtest"
)

// replicaOutcomes runs conform against the replicas at urls and returns
// the outcome and detail of the two replica clauses.
func replicaOutcomes(t *testing.T, urls ...string) map[string]string {
	t.Helper()
	code, stdout, stderr := conformCLI(t, "--target", strings.Join(urls, ","), "--format", "json", "--balance", "round-robin")
	var rec struct {
		Config struct {
			Protocol string `json:"protocol"`
			Replicas int    `json:"replicas"`
		} `json:"config"`
		Rows []struct {
			Name, Outcome, Detail string
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || rec.Config.Replicas != len(urls) || rec.Config.Protocol != "2026-07-28" {
		t.Fatalf("conform: exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	out := map[string]string{}
	for _, r := range rec.Rows {
		if r.Outcome == "fail" {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
		if strings.Contains(r.Name, "replica") {
			out[r.Name] = r.Outcome
		}
	}
	if code != 0 {
		t.Errorf("conform: exit %d: %s", code, stderr)
	}
	return out
}

// Two serve --http processes of one SQLite file, or of one PostgreSQL
// schema, are replicas of one server: race with note/reapply across them
// loses nothing, create and sources keep their keys across them, and
// conform's replica clauses pass.
func TestServeReplicas(t *testing.T) {
	endToEnd(t)
	if testing.Short() {
		t.Skip("starts serve processes and races across them")
	}
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	db := filepath.Join(t.TempDir(), "shared.db")
	u1, _ := startServe(t, bin, "--http", "127.0.0.1:0", "--db", db)
	u2, _ := startServe(t, bin, "--http", "127.0.0.1:0", "--db", db)
	code, stdout, stderr := runCLI(t, "race", "--target", u1+","+u2, "--modes", "note/reapply", "--seeds", "1-2", "--edits", "25",
		"--claude-think", "0-5ms", "--human-think", "0-5ms", "--pause", "0", "--format", "json")
	var rec struct {
		Rows []struct {
			Lost     int `json:"lost"`
			Intended int `json:"intended"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); code != 0 || err != nil || len(rec.Rows) != 1 || rec.Rows[0].Lost != 0 || rec.Rows[0].Intended != 100 {
		t.Fatalf("race across two replicas of one file: exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	// A resend of a create after a lost reply, to either replica, makes no
	// second tab when it keeps its key; a normalized source key saves no
	// duplicate.
	code, stdout, stderr = runCLI(t, "create", "--target", u1+","+u2, "--seeds", "1", "--tabs", "8", "--order", "key-first", "--table", "b", "--format", "json")
	var created struct {
		Rows []struct {
			KeyPolicy   string `json:"key_policy"`
			TabsCreated []int  `json:"tabs_created"`
			Duplicates  []int  `json:"duplicates"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &created); code != 0 || err != nil || len(created.Rows) != 3 {
		t.Fatalf("create across two replicas: exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	for _, r := range created.Rows {
		if r.KeyPolicy != "fresh" && (r.TabsCreated[0] != 8 || r.Duplicates[0] != 0) {
			t.Errorf("create across two replicas, key policy %s: %+v", r.KeyPolicy, r)
		}
	}
	code, stdout, stderr = runCLI(t, "sources", "--target", u1+","+u2, "--seeds", "1", "--sessions", "5", "--format", "json")
	var sources struct {
		Rows []struct {
			KeyPolicy  string `json:"key_policy"`
			Duplicates int    `json:"duplicates"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &sources); code != 0 || err != nil || len(sources.Rows) != 3 || sources.Rows[2].KeyPolicy != "normalized" || sources.Rows[2].Duplicates != 0 {
		t.Errorf("sources across two replicas: exit %d, %v: %s\n%s", code, err, stdout, stderr)
	}
	want := map[string]string{"resend to another replica": "pass", "write seen by another replica": "pass"}
	if got := replicaOutcomes(t, u1, u2); len(got) != 2 || got["resend to another replica"] != "pass" || got["write seen by another replica"] != "pass" {
		t.Errorf("SQLite: %v; want %v", got, want)
	}

	url := pgtest.URL(t)
	const schema = "notesbench_replicas_test"
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), url)
		if err == nil {
			conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			conn.Close(context.Background())
		}
	})
	p1, _ := startServe(t, bin, "--http", "127.0.0.1:0", "--store", url, "--schema", schema)
	p2, _ := startServe(t, bin, "--http", "127.0.0.1:0", "--store", url, "--schema", schema)
	if got := replicaOutcomes(t, p1, p2); len(got) != 2 || got["resend to another replica"] != "pass" || got["write seen by another replica"] != "pass" {
		t.Errorf("PostgreSQL: %v; want %v", got, want)
	}
}
