package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/report"
)

// A bound is the largest value a count or rate flag takes, and why: what the
// work costs in time and memory on a laptop at that value. Values above it are
// bad usage, refused before anything runs, so that a typo such as
// --sessions 1000000000 fails at once instead of running for hours or
// exhausting memory. Combinations that cost too much together (sources'
// citations per seed, outline's simulated saves) are bounded by the
// experiments themselves.
type bound struct {
	max float64
	// unit writes the bound in the flag's own terms ("1h0m0s" for a
	// duration); nil: a number.
	unit func(float64) string
	why  string
}

// bounds maps a flag name to its bound, for every command that has the flag.
var bounds = map[string]bound{
	"edits":            {10_000, nil, "each write carries the whole text, which grows by a line per edit: time grows with the square of the edits"},
	"replications":     {10_000, nil, "each replication is a full run of the published setup"},
	"parallel":         {256, nil, "each run at once holds its own databases and editors"},
	"trials":           {100_000, nil, "about 5 KB of memory per trial"},
	"writes":           {1_000_000, nil, "8 bytes of samples and some µs per write, per writer, repetition and guard"},
	"warmup":           {1_000_000, nil, "some µs per write"},
	"reps":             {100, nil, "each repetition times every write again on a fresh database"},
	"text-size":        {1 << 20, nil, "the text every write sets"},
	"decks":            {1_000_000, nil, "each deck draws the person's saves"},
	"saves-per-minute": {600, nil, "ten saves a second already conflict with nearly every write"},
	"window":           {float64(time.Hour), func(v float64) string { return time.Duration(v).String() }, "the saves drawn per window grow with it"},
	"sessions":         {100_000, nil, "every citation of a seed stays in memory until the seed is counted"},
	"turns":            {1_000, nil, "every citation of a seed stays in memory until the seed is counted"},
	"pages":            {1_000, nil, "each turn shuffles the session's pages"},
	"tabs":             {1_000, nil, "each resend re-lists every tab: time grows with the square of the tabs"},
	"kills":            {10_000, nil, "each kill starts a server again and recovers its database"},
	"edits-max":        {100, nil, "each of the person's edits is a store call in every trial"},
	"service-time":     {float64(time.Second), func(v float64) string { return time.Duration(v).String() }, "a writer that finds the lock held retries every 100 ms of it, so the work grows with it; stores take microseconds"},
}

// listBounds maps a flag holding a list of counts to the bound of each count.
var listBounds = map[string]bound{
	"writers": {64, nil, "each writer holds its own connection to the database"},
}

// checkBounds refuses a flag of cmd set above its bound, naming the flag.
func checkBounds(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if b, ok := bounds[f.Name]; ok {
			err = b.check(f.Name, f.Value)
		}
		if b, ok := listBounds[f.Name]; ok {
			for item := range strings.SplitSeq(f.Value.String(), ",") {
				if n, perr := strconv.ParseFloat(strings.TrimSpace(item), 64); perr == nil && n > b.max {
					err = usagef("--"+f.Name, "%s is more than %s (%s)", strings.TrimSpace(item), b.format(b.max), b.why)
					return
				}
			}
		}
	})
	return err
}

// check refuses value when it is above b. Values that are not numbers are
// left to the command, which names what is wrong with them.
func (b bound) check(name string, value pflag.Value) error {
	var v float64
	switch value.Type() {
	case "int", "int64":
		n, err := strconv.ParseInt(value.String(), 10, 64)
		if err != nil {
			return nil
		}
		v = float64(n)
	case "float64":
		f, err := strconv.ParseFloat(value.String(), 64)
		if err != nil {
			return nil
		}
		v = f
	case "duration":
		d, err := time.ParseDuration(value.String())
		if err != nil {
			return nil
		}
		v = float64(d)
	default:
		return nil
	}
	if v > b.max {
		return usagef("--"+name, "must be at most %s (%s)", b.format(b.max), b.why)
	}
	return nil
}

func (b bound) format(v float64) string {
	if b.unit != nil {
		return b.unit(v)
	}
	return report.Num(v)
}
