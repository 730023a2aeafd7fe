package clientaudit

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/notesbench/notesbench/results"
)

// LineText is the text of line i, as a driver appends it.
func LineText(i int) string { return fmt.Sprintf("line %d", i) }

// maxProofs bounds the proofs kept per run, maxErrors the errors.
const (
	maxProofs = 3
	maxErrors = 3
)

// judge fills r from the driver's calls, the write requests the server
// received and the Note's final text.
func judge(r *results.ClientRun, lines int, calls []call, reqs []request, text string) {
	r.Calls = len(calls)
	r.Requests = len(reqs)
	held := map[string]int{}
	for _, l := range strings.Split(text, "\n") {
		held[strings.TrimSpace(l)]++
	}
	byLine, callsPerKey := countCalls(r, calls, reqs)
	reqsPerKey := countRequests(r, reqs, callsPerKey)
	for i := 1; i <= lines; i++ {
		cs := byLine[i]
		if len(cs) == 0 {
			if r.Error == "" {
				r.Error = fmt.Sprintf("the driver made no call for line %d", i)
			}
			continue
		}
		judgeLine(r, i, held[LineText(i)], cs, reqsPerKey)
	}
}

// countCalls counts the calls told ok and told error, those told error of
// a write the server had committed, and the errors' words; and returns the
// calls by line, and how many calls each key had.
func countCalls(r *results.ClientRun, calls []call, reqs []request) (map[int][]call, map[string]int) {
	byLine := map[int][]call{}
	callsPerKey := map[string]int{}
	committedAt := map[string]time.Duration{} // when each key's write first committed
	for _, q := range reqs {
		if _, ok := committedAt[q.key]; !ok && q.outcome == outcomeCommitted {
			committedAt[q.key] = q.at
		}
	}
	for _, c := range calls {
		byLine[c.Line] = append(byLine[c.Line], c)
		callsPerKey[c.Key]++
		if at, ok := committedAt[c.Key]; ok && c.Told == "error" && at <= c.at {
			r.FailedCommitted++
		}
		if c.Told == "ok" {
			r.OK++
			continue
		}
		r.Failed++
		if e := oneLine(c.Error); len(r.Errors) < maxErrors && !slices.Contains(r.Errors, e) {
			r.Errors = append(r.Errors, e)
		}
	}
	return byLine, callsPerKey
}

// countRequests counts the requests without a key and the library's own
// resends (a request again under its id, or under a new one beyond the
// calls of its key), and returns the requests by key.
func countRequests(r *results.ClientRun, reqs []request, callsPerKey map[string]int) map[string][]request {
	reqsPerKey := map[string][]request{}
	for _, q := range reqs {
		if q.key == "" {
			r.NoKey++
			continue
		}
		reqsPerKey[q.key] = append(reqsPerKey[q.key], q)
	}
	for key, qs := range reqsPerKey {
		ids := map[string]bool{}
		same := 0
		for _, q := range qs {
			if ids[q.id] {
				same++
			}
			ids[q.id] = true
		}
		r.ResentSameID += same
		r.ResentNewID += max(0, len(qs)-callsPerKey[key]-same)
	}
	return reqsPerKey
}

// judgeLine judges line i, which the Note holds n times, from its calls:
// the keys it was made under, and what it came to (applied twice, told
// failed but written, told written but missing, lost and told so), with
// the proof of an anomaly.
func judgeLine(r *results.ClientRun, i, n int, cs []call, reqsPerKey map[string][]request) {
	var keys []string
	toldOK := false
	for _, c := range cs {
		if !slices.Contains(keys, c.Key) {
			keys = append(keys, c.Key)
		}
		toldOK = toldOK || c.Told == "ok"
	}
	r.NewKey += len(keys) - 1
	var anomaly string
	switch last := cs[len(cs)-1].Told; {
	case n > 1:
		r.AppliedTwice++
		anomaly = results.ClientAppliedTwice
	case n == 1 && last == "error":
		r.FailedButWritten++
		anomaly = results.ClientFailedButWritten
	case n == 0 && toldOK:
		r.OKButMissing++
		anomaly = results.ClientOKButMissing
	case n == 0:
		r.Lost++
	}
	if anomaly != "" && len(r.Proofs) < maxProofs {
		r.Proofs = append(r.Proofs, proof(i, anomaly, n, cs, keys, reqsPerKey))
	}
}

// proof is the line's calls and requests in the order they happened, and
// what the Note holds.
func proof(line int, anomaly string, held int, cs []call, keys []string, reqs map[string][]request) results.ClientProof {
	type event struct {
		at   time.Duration
		text string
	}
	var evs []event
	for _, c := range cs {
		told := "the application was told ok"
		if c.Told == "error" {
			told = "the application was told error: " + oneLine(c.Error)
		}
		evs = append(evs, event{c.at, fmt.Sprintf("%s (%s, key %s)", told, c.Tool, c.Key)})
	}
	for _, k := range keys {
		for _, q := range reqs[k] {
			f := ""
			if q.fault != "" {
				f = ", fault " + q.fault
			}
			evs = append(evs, event{q.at, fmt.Sprintf("the server got %s id %s key %s args %s%s: %s", q.tool, q.id, q.key, q.args, f, q.outcome)})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	var out []string
	for _, e := range evs {
		out = append(out, fmt.Sprintf("%8.3fs  %s", e.at.Seconds(), e.text))
	}
	out = append(out, fmt.Sprintf("the Note holds %q %s", LineText(line), times(held)))
	return results.ClientProof{Line: line, Anomaly: anomaly, Events: out}
}

func times(n int) string {
	switch n {
	case 0:
		return "not at all"
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// loopbackPort is a loopback address's port, which differs from run to run.
var loopbackPort = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):[0-9]+`)

// oneLine is an error as a report shows it: on one line, at most 160
// characters, a loopback port named PORT.
func oneLine(s string) string {
	s = loopbackPort.ReplaceAllString(strings.Join(strings.Fields(s), " "), "${1}:PORT")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
