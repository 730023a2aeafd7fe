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
	code, stdout, stderr := runCLI(t, "conform", "--target", strings.Join(urls, ","), "--format", "json", "--balance", "round-robin")
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
// loses nothing, and conform's replica clauses pass.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes and races across them")
	}
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
