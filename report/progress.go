package report

import (
	"fmt"
	"time"
)

// ProgressLine is the progress of what after elapsed: "race: 3/15 runs", and
// when the whole will take more than a minute, about how long is left, from
// the pace so far.
func ProgressLine(what string, done, total int, elapsed time.Duration) string {
	s := fmt.Sprintf("%s: %s/%s runs", what, Int(int64(done)), Int(int64(total)))
	if done == 0 || done >= total || elapsed < time.Second {
		return s
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	if elapsed+left <= time.Minute {
		return s
	}
	return s + ", about " + roughly(left) + " left"
}

// roughly writes a duration as a person says it: "40 s", "12 min", "3 h 20 min".
func roughly(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}
