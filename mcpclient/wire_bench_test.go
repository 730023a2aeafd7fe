package mcpclient

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/contract/ext"
	"github.com/notesbench/notesbench/store"
)

// startHTTPHelper starts the helper as an HTTP server of db in a process of
// its own and returns its URL; the process ends with the benchmark.
func startHTTPHelper(b testing.TB, db string) string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+db, httpHelperEnv+"=1", "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(url)
}

// wireGOGC runs the benchmark with GOGC=400, as the notesbench binary runs
// over the wire, here and in the servers, which inherit the environment (see
// cmd/notesbench's wireGCPercent), unless GOGC is set.
func wireGOGC(b *testing.B) {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		old := debug.SetGCPercent(400)
		b.Cleanup(func() { debug.SetGCPercent(old) })
		b.Setenv("GOGC", "400")
	}
}

// benchClient is a session a benchmark writes through, and the version its
// next write expects.
type benchClient struct {
	name string
	s    contract.Session
	v    contract.Version
}

// write replaces the text of note-1's markdown tab with text, with key w<i>
// and c's version, which it moves on; it returns how long the call took.
func (c *benchClient) write(b *testing.B, i int, text string) time.Duration {
	start := time.Now()
	r, err := c.s.EditNoteTab(ctx, contract.EditRequest{NoteID: "note-1", TabID: "markdown", ExpectedVersion: c.v,
		IdempotencyKey: fmt.Sprintf("w%d", i), Operation: contract.OpReplaceText, Text: text})
	d := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	c.v = r.Version
	return d
}

// warmUp makes 200 untimed writes of text through each client, in turn.
func warmUp(b *testing.B, clients []*benchClient, text string) {
	for i := range 200 {
		for _, c := range clients {
			c.write(b, -1-i, text)
		}
	}
}

// BenchmarkWire measures, in one run, the latency of one edit_note_tab
// replace_text write (200 characters, a file database in WAL mode) embedded,
// over stdio and over streamable HTTP, and of an MCP ping over each
// transport: the wire's floor. Over each transport it also times a
// notesbench_describe call (a tool that touches no database: the SDK's
// tools/call floor) and a read_note_tab. Each server is a process of its own;
// each iteration makes one call of each kind, interleaved. It reports medians
// and p90s in µs, and "stdio-cost-x": (median stdio write − median stdio
// ping) / median embedded write, which the issue wants at 2 or below.
//
//	go test -run '^$' -bench BenchmarkWire -benchtime 2000x ./mcpclient
func BenchmarkWire(b *testing.B) {
	wireGOGC(b)
	dir := b.TempDir()
	text := strings.Repeat("x", 200)

	st, err := store.Open(filepath.Join(dir, "embedded.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()

	var clients []*benchClient
	emb, err := st.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Close()
	if err := st.CreateNote(ctx, "note-1"); err != nil {
		b.Fatal(err)
	}
	clients = append(clients, &benchClient{name: "embedded", s: emb, v: "1"})

	httpSpec, err := Parse(startHTTPHelper(b, filepath.Join(dir, "http.db")))
	if err != nil {
		b.Fatal(err)
	}
	for _, spec := range []struct {
		name string
		spec TargetSpec
	}{{"stdio", helperTarget(b, filepath.Join(dir, "stdio.db"))}, {"http", httpSpec}} {
		s := sessionT(b, openNote(b, dialT(b, spec.spec, Options{}), "wire"))
		clients = append(clients, &benchClient{name: spec.name, s: s, v: "1"})
	}

	ping := func(c *benchClient) time.Duration {
		start := time.Now()
		if err := c.s.(Pinger).Ping(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	warmUp(b, clients, text)
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for _, c := range clients {
			samples[c.name+"-write"] = append(samples[c.name+"-write"], c.write(b, i, text))
			if c.name != "embedded" {
				samples[c.name+"-ping"] = append(samples[c.name+"-ping"], ping(c))
				start := time.Now()
				if _, err := c.s.(Caller).Call(ctx, ext.ToolDescribe, []byte(`{}`)); err != nil {
					b.Fatal(err)
				}
				samples[c.name+"-tool"] = append(samples[c.name+"-tool"], time.Since(start))
				start = time.Now()
				if _, err := c.s.ReadNoteTab(ctx, "note-1", "markdown"); err != nil {
					b.Fatal(err)
				}
				samples[c.name+"-read"] = append(samples[c.name+"-read"], time.Since(start))
			}
		}
	}
	b.StopTimer()
	q := func(name string, p float64) float64 {
		s := slices.Clone(samples[name])
		slices.Sort(s)
		return float64(s[int(p*float64(len(s)-1))]) / 1e3
	}
	for _, name := range []string{"embedded-write", "stdio-write", "stdio-ping", "stdio-tool", "stdio-read", "http-write", "http-ping", "http-tool", "http-read"} {
		b.ReportMetric(q(name, 0.5), name+"-median-µs")
		b.ReportMetric(q(name, 0.9), name+"-p90-µs")
	}
	b.ReportMetric((q("stdio-write", 0.5)-q("stdio-ping", 0.5))/q("embedded-write", 0.5), "stdio-cost-x")
	b.ReportMetric((q("http-write", 0.5)-q("http-ping", 0.5))/q("embedded-write", 0.5), "http-cost-x")
}
