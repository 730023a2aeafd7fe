package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/internal/plural"
)

// maxSeeds bounds a seed list, so that a typo such as 1-1000000000 fails at once
// instead of exhausting memory.
const maxSeeds = 1_000_000

// ParseSeeds parses a seed list such as "1-5", "7" or "1-5,7,10-12": seeds and
// inclusive ranges separated by commas. The seeds come back in the order written, each
// range ascending. An empty range, a seed listed twice and more than a million seeds
// are errors; error texts do not name the flag, which the caller adds.
func ParseSeeds(s string) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no seeds given")
	}
	var seeds []uint64
	seen := make(map[uint64]bool)
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, err := parseSeedItem(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		if hi-lo >= maxSeeds-uint64(len(seeds)) {
			return nil, fmt.Errorf("more than %d seeds", maxSeeds)
		}
		for seed := lo; ; seed++ {
			if seen[seed] {
				return nil, fmt.Errorf("seed %d is listed twice", seed)
			}
			seen[seed] = true
			seeds = append(seeds, seed)
			if seed == hi {
				break
			}
		}
	}
	return seeds, nil
}

// parseSeedItem parses one item of a seed list: a seed n (lo = hi = n) or a range lo-hi.
func parseSeedItem(item string) (lo, hi uint64, err error) {
	if item == "" {
		return 0, 0, errors.New("empty item in seed list")
	}
	a, b, isRange := strings.Cut(item, "-")
	if !isRange || a == "" { // a leading '-' is a negative seed, not a range
		n, err := strconv.ParseUint(item, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%q is not a seed", item)
		}
		return n, n, nil
	}
	lo, errLo := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	hi, errHi := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	if errLo != nil || errHi != nil {
		return 0, 0, fmt.Errorf("%q is not a seed range", item)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("range %d-%d is empty", lo, hi)
	}
	return lo, hi, nil
}

// SeedsText writes seeds for a description: "seed 3", "seeds 1-5".
func SeedsText(seeds []uint64) string {
	return plural.Noun(len(seeds), "seed") + " " + FormatSeeds(seeds)
}

// FormatSeeds writes seeds in the compact form ParseSeeds reads, joining runs of
// consecutive ascending seeds into ranges: [1 2 3 4 5 7] becomes "1-5,7". No seeds
// give "".
func FormatSeeds(seeds []uint64) string {
	var b strings.Builder
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j] != math.MaxUint64 && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(seeds[i], 10))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.FormatUint(seeds[j], 10))
		}
		i = j + 1
	}
	return b.String()
}
