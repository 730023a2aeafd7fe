package crash

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/field"
)

// MaxKills bounds Config.Kills: each kill starts a child again and recovers
// its database.
const MaxKills = 10_000

// Validate checks the parts of c a user sets, before anything runs; its
// errors are *field.Error.
func (c Config) Validate() error {
	if c.Kills < 1 {
		return field.Errorf("kills", "must be at least 1")
	}
	if err := field.AtMost("kills", c.Kills, MaxKills, "each kill starts a server again and recovers its database"); err != nil {
		return err
	}
	if c.MinLife < 0 || c.MaxLife < c.MinLife {
		return field.Errorf("life", "%v to %v is not a range", c.MinLife, c.MaxLife)
	}
	_, err := contract.SynchronousSettings.Parse(string(c.Synchronous))
	return field.Wrap("synchronous", err)
}

// RunVerdict is one synchronous setting's run, judged: what it went through
// and how many acknowledged writes the checks found missing — nil when the
// lost-updates check could not judge everything (it ran out of time).
type RunVerdict struct {
	Result
	LostAcknowledged *int `json:"lost_acknowledged"`
}

// Verdict is a crash test judged from its runs and the checks of its
// recorded history: every run's outcome, the problems that fail it — an
// acknowledged write missing, a failed integrity check, a violated check —
// and the checks that could not judge everything.
type Verdict struct {
	Runs     []RunVerdict
	Problems []string
	Unknown  []string
}

// Judge judges runs by the checks of their history, rep.
func Judge(runs []Result, rep *check.Report) Verdict {
	lost := map[string]int{}
	for _, r := range rep.Runs {
		lost[r.Run] = r.Lost
	}
	var v Verdict
	judged := true
	for _, c := range rep.Checks {
		if c.Verdict == check.Unknown {
			v.Unknown = append(v.Unknown, c.Check)
			judged = judged && c.Check != check.LostUpdates
		}
	}
	for _, res := range runs {
		rv := RunVerdict{Result: res}
		if n, ok := lost[res.Run]; ok && judged {
			rv.LostAcknowledged = &n
		}
		v.Runs = append(v.Runs, rv)
		if _, ok := lost[res.Run]; !ok {
			v.Problems = append(v.Problems, fmt.Sprintf("synchronous %s: the history holds no run %s", res.Synchronous, res.Run))
		}
		if n := lost[res.Run]; n > 0 {
			v.Problems = append(v.Problems, fmt.Sprintf("synchronous %s: %d acknowledged writes lost", res.Synchronous, n))
		}
		if res.Integrity != "ok" {
			v.Problems = append(v.Problems, fmt.Sprintf("synchronous %s: integrity check: %s", res.Synchronous, res.Integrity))
		}
	}
	for _, c := range rep.Checks {
		if c.Verdict == check.Violated && c.Check != check.LostUpdates {
			v.Problems = append(v.Problems, c.Check+" violated")
		}
	}
	return v
}

// Settings are a crash test's parameters, as its record holds them.
type Settings struct {
	Kills       int                    `json:"kills"`
	Synchronous []contract.Synchronous `json:"synchronous"`
	Seed        uint64                 `json:"seed"`
	LifeMinNS   time.Duration          `json:"life_min_ns"`
	LifeMaxNS   time.Duration          `json:"life_max_ns"`
}

// Test is a whole kill -9 test: a run per synchronous setting, their
// history checked, the runs judged.
type Test struct {
	// Settings are the test's parameters; Dir the folder of the databases.
	Settings Settings
	Dir      string
	// Command starts a child serving a ChildConfig (see Config.Command).
	Command func(cfg ChildConfig) *exec.Cmd
	// Timeout bounds each check of the history.
	Timeout time.Duration
	// History records every run; the caller writes it where it likes.
	History *history.Writer
}

// Tested is what a Test found: the checks of the history and the runs
// judged.
type Tested struct {
	Checks  *check.Report
	Verdict Verdict
}

// Run runs the test: a run per synchronous setting, then the checks of
// their history, and the runs judged by them.
func (t Test) Run(ctx context.Context) (Tested, error) {
	var runs []Result
	for _, s := range t.Settings.Synchronous {
		cfg := Config{Dir: t.Dir, Synchronous: s, Kills: t.Settings.Kills, Seed: t.Settings.Seed,
			MinLife: t.Settings.LifeMinNS, MaxLife: t.Settings.LifeMaxNS, Command: t.Command}
		res, err := Run(ctx, cfg, t.History)
		if err != nil {
			return Tested{}, fmt.Errorf("synchronous %s: %w", s, err)
		}
		runs = append(runs, res)
	}
	rep, err := Check(ctx, t.History, t.Timeout)
	if err != nil {
		return Tested{}, err
	}
	return Tested{Checks: rep, Verdict: Judge(runs, rep)}, nil
}

// Validate checks the settings, before anything runs; its errors are
// *field.Error.
func (s Settings) Validate() error {
	for _, sync := range s.Synchronous {
		c := Config{Kills: s.Kills, Seed: s.Seed, MinLife: s.LifeMinNS, MaxLife: s.LifeMaxNS, Synchronous: sync}
		if err := c.Validate(); err != nil {
			return err
		}
	}
	return nil
}
