package mcpclient

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkStatelessWrite measures, in one run against one serve --http
// process, the latency of one edit_note_tab write (200 characters, a file
// database in WAL mode) over MCP 2026-07-28, stateless (the server makes a
// session for each request), and over 2025-11-25, on a session: the two
// clients write in turn, each iteration one write of each, the first of them
// alternating, so that neither always follows the other. It reports their
// medians and p90s in µs and "stateless-x", the ratio of the medians, which
// the issue wants at 1.2 or below.
//
//	go test -run '^$' -bench BenchmarkStatelessWrite -benchtime 3000x ./mcpclient
func BenchmarkStatelessWrite(b *testing.B) {
	wireGOGC(b)
	dir := b.TempDir()
	text := strings.Repeat("x", 200)
	spec, err := Parse(startHTTPHelper(b, filepath.Join(dir, "http.db")))
	if err != nil {
		b.Fatal(err)
	}
	var clients []*benchClient
	for _, c := range []struct{ name, protocol string }{{"stateless", ""}, {"session", "2025-11-25"}} {
		tg := dialT(b, spec, Options{Protocol: c.protocol})
		if c.protocol == "" && tg.Protocol() != StatelessVersion {
			b.Fatalf("negotiated %s", tg.Protocol())
		}
		s := sessionT(b, openNote(b, tg, c.name))
		clients = append(clients, &benchClient{name: c.name, s: s, v: "1"})
	}
	warmUp(b, clients, text)
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		order := clients
		if i%2 == 1 {
			order = []*benchClient{clients[1], clients[0]}
		}
		for _, c := range order {
			samples[c.name] = append(samples[c.name], c.write(b, i, text))
		}
	}
	b.StopTimer()
	q := func(name string, p float64) float64 {
		s := slices.Clone(samples[name])
		slices.Sort(s)
		return float64(s[int(p*float64(len(s)-1))]) / 1e3
	}
	for _, name := range []string{"stateless", "session"} {
		b.ReportMetric(q(name, 0.5), name+"-median-µs")
		b.ReportMetric(q(name, 0.9), name+"-p90-µs")
	}
	b.ReportMetric(q("stateless", 0.5)/q("session", 0.5), "stateless-x")
}
