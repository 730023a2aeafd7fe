package mcpclient

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/notesbench/notesbench/contract"
)

// Replicas: an HTTP target written as several URLs is one server run as
// several replicas behind a load balancer, which notesbench plays itself.
// Every link (the transport of one MCP session) has a balancer of its own in
// front of its HTTP client, which sends each request to one replica: a
// stateless (2026-07-28) request wherever the policy says, so that a resend
// may reach another replica than the first send; a request of a session
// (2025-11-25, an Mcp-Session-Id) to the replica that opened the session, as
// a load balancer with sticky sessions does, since no other knows it.

// parseReplicas parses a target of several HTTP URLs, comma-separated.
func parseReplicas(raw, s string) (TargetSpec, error) {
	var urls []string
	for _, u := range strings.Split(s, ",") {
		u = strings.TrimSpace(u)
		switch {
		case u == "":
			return TargetSpec{}, syntaxf(raw, "an empty URL in the list of replicas")
		case !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://"):
			return TargetSpec{}, syntaxf(raw, "replica %q is not an http:// or https:// URL", u)
		case slices.Contains(urls, u):
			return TargetSpec{}, syntaxf(raw, "replica %s is listed twice", u)
		}
		if err := checkURL(raw, u); err != nil {
			return TargetSpec{}, err
		}
		urls = append(urls, u)
	}
	return TargetSpec{Raw: s, URL: urls[0], URLs: urls}, nil
}

// replicaKey marks a context whose link goes to one replica alone.
type replicaKey struct{}

// replicaDialer opens links to the replicas at urls, each with a balancer
// of its own choosing by policy: the n-th link's random stream is seeded
// with (seed, n), and its round-robin starts at replica n. A link dialed
// with a context of ReplicaSession's sends every request to its replica.
// With a token every request carries it, as a bearer token; a target of
// one URL and a token is a balancer of one replica.
func replicaDialer(urls []string, policy contract.Balance, seed uint64, token string) (dialer, error) {
	parsed := make([]*url.URL, len(urls))
	for i, u := range urls {
		var err error
		if parsed[i], err = url.Parse(u); err != nil {
			return nil, err
		}
	}
	var links atomic.Uint64
	return func(ctx context.Context, _ *wire) (*link, error) {
		n := links.Add(1) - 1
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b := &balancer{rt: tr, urls: parsed, policy: policy, pinned: -1, token: token, rng: rand.New(rand.NewPCG(seed, n)),
			next: int(n % uint64(len(parsed))), sticky: map[string]int{}}
		if i, ok := ctx.Value(replicaKey{}).(int); ok {
			b.pinned = i
		}
		return &link{
			transport: &mcp.StreamableClientTransport{Endpoint: urls[0], HTTPClient: &http.Client{Transport: b}, DisableStandaloneSSE: true},
			end:       tr.CloseIdleConnections,
			abort:     tr.CloseIdleConnections,
			died:      func() error { return nil },
			stray:     func() string { return "" },
		}, nil
	}, nil
}

// balancer is the load balancer of one link: a RoundTripper that sends each
// request to one of the replicas.
type balancer struct {
	rt     http.RoundTripper
	urls   []*url.URL
	policy contract.Balance
	pinned int    // the replica of every request, or -1
	token  string // the bearer token every request carries, or ""

	mu     sync.Mutex
	rng    *rand.Rand
	next   int            // round-robin: the replica of the next request
	sticky map[string]int // a session's ID → the replica that opened it
}

// choose returns the replica of req.
func (b *balancer) choose(req *http.Request) int {
	if b.pinned >= 0 {
		return b.pinned
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if sid := req.Header.Get("Mcp-Session-Id"); sid != "" {
		if i, ok := b.sticky[sid]; ok {
			return i
		}
	}
	if b.policy == contract.BalanceRoundRobin {
		i := b.next
		b.next = (b.next + 1) % len(b.urls)
		return i
	}
	return b.rng.IntN(len(b.urls))
}

func (b *balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	i := b.choose(req)
	out := req.Clone(req.Context())
	u := *b.urls[i]
	u.RawQuery = req.URL.RawQuery
	out.URL, out.Host = &u, ""
	if b.token != "" {
		out.Header.Set("Authorization", "Bearer "+b.token)
	}
	resp, err := b.rt.RoundTrip(out)
	if err == nil {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			b.mu.Lock()
			b.sticky[sid] = i
			b.mu.Unlock()
		}
	}
	return resp, err
}

// balance is the Target's balance policy, the default filled in.
func (t *Target) balance() contract.Balance {
	if t.opts.Balance == "" {
		return contract.BalanceRandom
	}
	return t.opts.Balance
}

// Replicas is how many replicas serve the run's Notes (contract.Replicated).
func (b *backend) Replicas() int { return max(1, len(b.t.replicas)) }

// ReplicaSession opens a session of the run whose calls all go to replica
// i (contract.Replicated): over a target of one URL, any session.
func (b *backend) ReplicaSession(ctx context.Context, i int) (contract.Session, error) {
	n := b.Replicas()
	if i < 0 || i >= n {
		return nil, fmt.Errorf("target %s: replica %d of %d", b.t.name, i+1, n)
	}
	if n == 1 {
		return b.Session(ctx)
	}
	return b.Session(context.WithValue(ctx, replicaKey{}, i))
}

var _ contract.Replicated = (*backend)(nil)
