package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A Benchmark is one result line in the Go benchmark format.
type Benchmark struct {
	// Name follows "Benchmark" on the line, e.g. "Write/guard=note"; benchstat
	// reads the key=value parts as configuration. Spaces become underscores.
	Name string
	// N is the number of iterations the metrics are averaged over.
	N int64
	// Metrics are the measurements, e.g. {61900, "ns/op"}.
	Metrics []Metric
}

// A Metric is one value with its unit, e.g. 61900 ns/op.
type Metric struct {
	Value float64
	Unit  string
}

// WriteGoBench writes benches as Go benchmark lines that benchstat reads:
//
//	BenchmarkWrite/guard=note	2000	61900 ns/op	16154 writes/s
//
// A benchmark without a name, with N below 1 or without metrics, or a unit that
// is empty or holds a space, is an error, found before anything is written.
func WriteGoBench(w io.Writer, benches ...Benchmark) error {
	var b strings.Builder
	for _, bm := range benches {
		if bm.Name == "" || bm.N < 1 || len(bm.Metrics) == 0 {
			return fmt.Errorf("benchmark %q: want a name, N ≥ 1 and at least one metric", bm.Name)
		}
		b.WriteString("Benchmark" + strings.ReplaceAll(bm.Name, " ", "_") + "\t" + strconv.FormatInt(bm.N, 10))
		for _, m := range bm.Metrics {
			if m.Unit == "" || strings.ContainsAny(m.Unit, " \t") {
				return fmt.Errorf("benchmark %q: unit %q must be one word", bm.Name, m.Unit)
			}
			b.WriteString("\t" + strconv.FormatFloat(m.Value, 'f', -1, 64) + " " + m.Unit)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
