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
	why string
	// duration: the flag is a duration, and its bound is written as one
	// ("1h0m0s"); list: the flag holds comma-separated counts, each bounded.
	duration, list bool
}

// bounds maps a flag name to its bound, for every command that has the flag.
var bounds = map[string]bound{
	"edits":            {max: 10_000, why: "each write carries the whole text, which grows by a line per edit: time grows with the square of the edits"},
	"replications":     {max: 10_000, why: "each replication is a full run of the published setup"},
	"parallel":         {max: 256, why: "each run at once holds its own databases and editors"},
	"trials":           {max: 100_000, why: "about 5 KB of memory per trial"},
	"writes":           {max: 1_000_000, why: "8 bytes of samples and some µs per write, per writer, repetition and guard"},
	"warmup":           {max: 1_000_000, why: "some µs per write"},
	"reps":             {max: 100, why: "each repetition times every write again on a fresh database"},
	"text-size":        {max: 1 << 20, why: "the text every write sets"},
	"decks":            {max: 1_000_000, why: "each deck draws the person's saves"},
	"saves-per-minute": {max: 600, why: "ten saves a second already conflict with nearly every write"},
	"window":           {max: float64(time.Hour), duration: true, why: "the saves drawn per window grow with it"},
	"sessions":         {max: 100_000, why: "every citation of a seed stays in memory until the seed is counted"},
	"turns":            {max: 1_000, why: "every citation of a seed stays in memory until the seed is counted"},
	"pages":            {max: 1_000, why: "each turn shuffles the session's pages"},
	"tabs":             {max: 1_000, why: "each resend re-lists every tab: time grows with the square of the tabs"},
	"kills":            {max: 10_000, why: "each kill starts a server again and recovers its database"},
	"edits-max":        {max: 100, why: "each of the person's edits is a store call in every trial"},
	"service-time":     {max: float64(time.Second), duration: true, why: "a writer that finds the lock held retries every 100 ms of it, so the work grows with it; stores take microseconds"},
	"writers":          {max: 64, list: true, why: "each writer holds its own connection to the database"},
}

// checkBounds refuses a flag of cmd set above its bound, naming the flag.
func checkBounds(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if b, ok := bounds[f.Name]; ok && err == nil {
			err = b.check(f.Name, f.Value)
		}
	})
	return err
}

// check refuses value when it is above b, or for a list when an item is.
// Values that are not numbers are left to the command, which names what is
// wrong with them.
func (b bound) check(name string, value pflag.Value) error {
	if b.list {
		for item := range strings.SplitSeq(value.String(), ",") {
			item = strings.TrimSpace(item)
			if n, err := strconv.ParseFloat(item, 64); err == nil && n > b.max {
				return usagef("--"+name, "%s is more than %s (%s)", item, b.limit(), b.why)
			}
		}
		return nil
	}
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
		return usagef("--"+name, "must be at most %s (%s)", b.limit(), b.why)
	}
	return nil
}

// limit writes the bound in the flag's own terms.
func (b bound) limit() string {
	if b.duration {
		return time.Duration(b.max).String()
	}
	return report.Num(b.max)
}
