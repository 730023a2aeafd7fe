package mcpclient

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkProfile measures, in one run, what mapping a write through a
// profile costs over stdio: the same 200-character replace_text write on
// the same server (a file database, each session a process of its own),
// once through the contract's own tools and once through the notes profile,
// the two alternated and their order swapped every iteration. It reports
// both medians and "profile-overhead-%": the profile's median over the
// native one, less 1, in per cent. Run it with -count for several rounds.
//
//	go test -run '^$' -bench BenchmarkProfile -benchtime 3000x -count 5 ./mcpclient
func BenchmarkProfile(b *testing.B) {
	wireGOGC(b)
	spec := helperTarget(b, filepath.Join(b.TempDir(), "profile.db"))
	text := strings.Repeat("x", 200)
	var clients []*benchClient
	for _, c := range []struct {
		name string
		opts Options
	}{{"native", Options{}}, {"profile", Options{Profile: builtin(b, "notes")}}} {
		s := sessionT(b, openNote(b, dialT(b, spec, c.opts), "bench-"+c.name))
		read, err := s.ReadNoteTab(ctx, "note-1", "markdown")
		if err != nil {
			b.Fatal(err)
		}
		clients = append(clients, &benchClient{name: c.name, s: s, v: read.Version})
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
	median := func(name string) float64 {
		s := slices.Clone(samples[name])
		slices.Sort(s)
		return float64(s[len(s)/2]) / 1e3
	}
	b.ReportMetric(median("native"), "native-write-median-µs")
	b.ReportMetric(median("profile"), "profile-write-median-µs")
	b.ReportMetric((median("profile")/median("native")-1)*100, "profile-overhead-%")
}
