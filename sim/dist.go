package sim

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Dist is a uniform distribution of durations over [Min, Max], with 0 <= Min <= Max.
// The zero Dist always draws 0 ("no pause").
type Dist struct{ Min, Max time.Duration }

// ParseDist parses a distribution written as a range, "20ms-80ms" or "250us-1ms", or
// as a single duration, "5ms" or "0", which means Min == Max. Durations use
// time.ParseDuration's syntax; negative ones are errors, and so is a minimum above the
// maximum. Error texts do not name the flag, which the caller adds.
func ParseDist(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	lo, hi := s, s
	if i := strings.IndexByte(s[min(1, len(s)):], '-'); i >= 0 { // a leading '-' is a sign
		lo, hi = strings.TrimSpace(s[:i+1]), strings.TrimSpace(s[i+2:])
	}
	if lo == "" || hi == "" {
		return Dist{}, fmt.Errorf("%q is not a duration or a range of durations", s)
	}
	minD, err := parseNonNegative(lo)
	if err != nil {
		return Dist{}, err
	}
	maxD, err := parseNonNegative(hi)
	if err != nil {
		return Dist{}, err
	}
	if minD > maxD {
		return Dist{}, fmt.Errorf("%s: minimum above maximum", s)
	}
	return Dist{Min: minD, Max: maxD}, nil
}

func parseNonNegative(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			return 0, fmt.Errorf("%s: missing unit (e.g. %sms)", s, s)
		}
		return 0, fmt.Errorf("%s: not a duration", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s: negative duration", s)
	}
	return d, nil
}

// Draw returns a duration drawn uniformly from [d.Min, d.Max].
//
// Draw always takes exactly one value from r, also when Min == Max, so that the rest
// of a stream does not shift when a distribution changes (say --pause 0 instead of
// 5ms-40ms). The value is mapped onto the range by a multiply-shift without rejection,
// whose bias is below (Max-Min+1)/2^64: about 5e-12 for an 80 ms range.
func (d Dist) Draw(r *rand.Rand) time.Duration {
	u := r.Uint64()
	if d.Max <= d.Min {
		return d.Min
	}
	offset, _ := bits.Mul64(u, uint64(d.Max-d.Min)+1)
	return d.Min + time.Duration(offset)
}

// String returns d in the form ParseDist reads: "20ms-80ms", or "5ms" when
// Min == Max.
func (d Dist) String() string {
	if d.Min == d.Max {
		return d.Min.String()
	}
	return d.Min.String() + "-" + d.Max.String()
}

// MarshalText writes the distribution as ParseDist reads it, e.g. "20ms-80ms".
func (d Dist) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a distribution written by MarshalText.
func (d *Dist) UnmarshalText(b []byte) error {
	v, err := ParseDist(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
