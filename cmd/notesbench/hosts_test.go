package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/serve"
)

// Processes of several hosts race at once against one server, held to one
// start by --start-at; each records its history, and the histories merge
// into one that check judges as one: each run's Notes are its own on the
// server, so runs of the same seed from two processes are two runs.
func TestHostsAgainstOneServer(t *testing.T) {
	if testing.Short() {
		t.Skip("races on the wall clock")
	}
	ctx, stop := context.WithCancel(context.Background())
	v := contract.Variant{Guard: contract.GuardNote}.WithDefaults()
	b, err := backend.OpenBackend(backend.Spec{InMemory: true}, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(ctx, b, serve.Options{Version: "test", Describe: "SQLite in memory", Variant: v, Extensions: serve.ExtensionsOnRequest})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
		srv.Close()
		b.Close()
	})
	url := "http://" + ln.Addr().String() + serve.HTTPPath
	dir := t.TempDir()
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339)
	var wg sync.WaitGroup
	histories := make([]string, 3)
	errs := make([]string, 3)
	for i := range histories {
		histories[i] = filepath.Join(dir, fmt.Sprintf("host%d.jsonl", i+1))
		wg.Go(func() {
			code, _, stderr := runCLI(t, "race", "--target", url, "--seeds", "1-2", "--edits", "8", "--modes", "note/reapply",
				"--replications", "0", "--history", histories[i], "--start-at", start)
			if code != 0 {
				errs[i] = fmt.Sprintf("host %d: exit %d: %s", i+1, code, stderr)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	merged := filepath.Join(dir, "all.jsonl")
	if code, _, stderr := runCLI(t, append([]string{"merge", "--out", merged}, histories...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "check", "--format", "markdown", merged)
	if code != 0 {
		t.Fatalf("check of the merged histories: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, run := range []string{"race-note-reapply-seed1", "host2/race-note-reapply-seed1", "host3/race-note-reapply-seed2"} {
		if !strings.Contains(stdout, run) {
			t.Errorf("the merged history lacks run %s:\n%s", run, stdout)
		}
	}
}
