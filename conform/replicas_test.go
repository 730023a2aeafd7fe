package conform

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
)

// replicasT serves the SQLite database db over streamable HTTP from n
// servers, each with a store of its own on the file (its own connections,
// as a process of its own has), and returns their URLs; wrap, when not
// nil, stands between each server and its store. Everything stops when the
// test ends.
func replicasT(t *testing.T, db string, n int, wrap func(contract.Backend) contract.Backend) []string {
	t.Helper()
	var urls []string
	for range n {
		st, err := store.Open(db, store.Options{QueueWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		var b contract.Backend = st
		if wrap != nil {
			b = wrap(st)
		}
		srv, err := serve.New(ctx, b, serve.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- srv.ServeListener(sctx, ln) }()
		t.Cleanup(func() {
			stop()
			if err := <-done; err != nil {
				t.Errorf("serving: %v", err)
			}
			if err := srv.Close(); err != nil {
				t.Errorf("closing a server: %v", err)
			}
		})
		urls = append(urls, "http://"+ln.Addr().String()+serve.HTTPPath)
	}
	return urls
}

// conformOn runs conform against the target of the URLs, comma-separated.
func conformOn(t *testing.T, urls []string) (results.ConformReport, map[string]results.ConformCheck) {
	t.Helper()
	spec, err := mcpclient.Parse(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := mcpclient.Dial(ctx, spec, mcpclient.Options{LenientSchemas: true, Balance: contract.BalanceRoundRobin})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := Run(ctx, tg, Options{Writers: 4, FastTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]results.ConformCheck{}
	for _, c := range rep.Checks {
		checks[c.Name] = c
	}
	return rep, checks
}

// Two servers of one SQLite file pass both replica clauses, on 2026-07-28,
// and every other clause as one server does; one server is not held to
// them.
func TestReplicaClauses(t *testing.T) {
	urls := replicasT(t, filepath.Join(t.TempDir(), "shared.db"), 2, nil)
	rep, checks := conformOn(t, urls)
	if rep.Protocol != "2026-07-28" || rep.Replicas != 2 || !strings.Contains(rep.Describe, "MCP 2026-07-28 (stateless)") {
		t.Errorf("the report: protocol %q, %d replicas, %q", rep.Protocol, rep.Replicas, rep.Describe)
	}
	// Every clause of one server keeps its verdict (but the one about
	// writes within a millisecond, which a loaded machine may not reach).
	for name, want := range with(map[string]results.ConformOutcome{"resend to another replica": results.ConformPass, "write seen by another replica": results.ConformPass}) {
		if c := checks[name]; c.Outcome != want && name != "writes within a millisecond" {
			t.Errorf("%s: %s (%s); want %s", name, c.Outcome, c.Detail, want)
		}
	}
	if d := checks["resend to another replica"].Detail; !strings.HasPrefix(d, `replica 2 returned replica 1's first result (version `) ||
		!strings.HasSuffix(d, `, with "replayed": true; written once`) {
		t.Errorf("resend to another replica: %s", d)
	}
	one, checks := conformOn(t, urls[:1])
	if len(one.Checks) != len(rep.Checks)-2 || checks["resend to another replica"].Name != "" || one.Replicas != 0 {
		t.Errorf("one server: %d checks of %d, replicas %d", len(one.Checks), len(rep.Checks), one.Replicas)
	}
}

// A server that keeps its idempotency keys in the memory of its process
// passes every clause of one server, and fails the resend to another
// replica: the second replica does not know the key, and takes the resend
// for a new write with a stale version.
func TestReplicaKeysInMemory(t *testing.T) {
	urls := replicasT(t, filepath.Join(t.TempDir(), "shared.db"), 2, func(b contract.Backend) contract.Backend {
		return &memoryKeys{Backend: b, results: map[string]contract.EditResult{}}
	})
	_, single := conformOn(t, urls[:1])
	if c := single["same-key resend"]; c.Outcome != results.ConformPass {
		t.Fatalf("one server with keys in memory: same-key resend %s (%s)", c.Outcome, c.Detail)
	}
	_, checks := conformOn(t, urls)
	c := checks["resend to another replica"]
	if c.Outcome != results.ConformFail || !strings.HasPrefix(c.Detail, "the resend to replica 2 (the same key and arguments) got version_conflict (current ") ||
		len(c.Evidence) == 0 {
		t.Errorf("resend to another replica: %s (%s)", c.Outcome, c.Detail)
	}
	if c := checks["write seen by another replica"]; c.Outcome != results.ConformPass {
		t.Errorf("write seen by another replica: %s (%s)", c.Outcome, c.Detail)
	}
}

// memoryKeys is a Backend whose text writes keep their idempotency keys in
// this process's memory, as a server that caches them in a map does: the
// store gets a key of its own for every write, and a key seen before is
// answered from the map.
type memoryKeys struct {
	contract.Backend
	mu      sync.Mutex
	n       int
	results map[string]contract.EditResult // note and key → the first result
}

func (m *memoryKeys) Session(ctx context.Context) (contract.Session, error) {
	s, err := m.Backend.Session(ctx)
	if err != nil {
		return nil, err
	}
	return &memoryKeysSession{Session: s, m: m}, nil
}

type memoryKeysSession struct {
	contract.Session
	m *memoryKeys
}

func (s *memoryKeysSession) EditNoteTab(ctx context.Context, req contract.EditRequest) (contract.EditResult, error) {
	id := req.NoteID + "\x00" + req.IdempotencyKey
	s.m.mu.Lock()
	first, seen := s.m.results[id]
	s.m.n++
	own := req
	own.IdempotencyKey = fmt.Sprintf("%p-%d", s.m, s.m.n) // unknown to every other process
	s.m.mu.Unlock()
	if seen {
		first.Replayed = true
		return first, nil
	}
	res, err := s.Session.EditNoteTab(ctx, own)
	if err == nil {
		s.m.mu.Lock()
		s.m.results[id] = res
		s.m.mu.Unlock()
	}
	return res, err
}
