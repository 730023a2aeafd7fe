package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/notesbench/notesbench/contract"
)

// Isolation is how the write path keeps concurrent writes to one Note apart.
type Isolation string

const (
	// ReadCommitted, the default, runs every write under READ COMMITTED and
	// locks its Note's row first: writes to one Note wait for each other, and
	// serialization failures cannot arise.
	ReadCommitted Isolation = "read_committed"
	// Serializable runs every write under SERIALIZABLE and takes no lock, as
	// CockroachDB and YugabyteDB run transactions: the server refuses a write
	// that raced another with a serialization failure (SQLSTATE 40001), and
	// the write runs again.
	Serializable Isolation = "serializable"
)

// Isolations is the enum of the isolation modes.
var Isolations = contract.NewEnum("isolation", ReadCommitted, Serializable)

// IsolationParam is the parameter of the store's URL (or keyword of its
// connection string) that names the isolation mode. notesbench takes it out
// before the URL reaches the driver, which would send it to the server as a
// setting.
const IsolationParam = "notesbench_isolation"

// statements returns the first two statements of every write in mode i: the
// BEGIN, which names the isolation level whatever the server's default, and
// the read of the Note's row (version, next_tab, next_item), under READ
// COMMITTED with the row's lock.
func (i Isolation) statements() (begin, note string) {
	if i == Serializable {
		return sqlBeginSerializable, sqlReadNote
	}
	return sqlBegin, sqlLockNote
}

// isolationKeyword finds the parameter in a keyword/value connection string:
// the keyword, an equals sign (spaces around it allowed, as libpq allows
// them) and a value, quoted or not.
var isolationKeyword = regexp.MustCompile(`(?:^|\s+)` + IsolationParam + `\s*=\s*('(?:[^'\\]|\\.)*'|\S*)`)

// splitIsolation takes the isolation parameter out of a connection string and
// returns the string without it and the mode it names (ReadCommitted when it
// names none). A value that is not a mode, or the parameter given twice, is
// an error naming the parameter. A URL that does not parse is returned as it
// is, for the driver to report.
func splitIsolation(raw string) (string, Isolation, error) {
	var values []string
	rest := raw
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return raw, ReadCommitted, nil
		}
		var kept []string
		for part := range strings.SplitSeq(u.RawQuery, "&") {
			key, value, _ := strings.Cut(part, "=")
			if k, err := url.QueryUnescape(key); err == nil && k == IsolationParam {
				v, err := url.QueryUnescape(value)
				if err != nil {
					v = value
				}
				values = append(values, v)
				continue
			}
			if part != "" {
				kept = append(kept, part)
			}
		}
		if len(values) > 0 {
			u.RawQuery = strings.Join(kept, "&")
			u.ForceQuery = false
			rest = u.String()
		}
	} else {
		for _, m := range isolationKeyword.FindAllStringSubmatch(raw, -1) {
			v := m[1]
			if len(v) >= 2 && v[0] == '\'' {
				v = strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v[1 : len(v)-1])
			}
			values = append(values, v)
		}
		rest = strings.TrimSpace(isolationKeyword.ReplaceAllString(raw, ""))
	}
	switch len(values) {
	case 0:
		return raw, ReadCommitted, nil
	case 1:
	default:
		return raw, "", fmt.Errorf("%s is given %d times (give it once: %s)", IsolationParam, len(values), Isolations.Want())
	}
	iso, err := Isolations.Parse(values[0])
	if err != nil {
		return raw, "", fmt.Errorf("%s: %w", IsolationParam, err)
	}
	return rest, iso, nil
}

// The SQLSTATEs the write path retries, and the one that tells a second first
// use of an idempotency key.
const (
	sqlstateSerialization = "40001"
	sqlstateDeadlock      = "40P01"
	sqlstateUnique        = "23505"
)

// maxRetries is how many times a transaction runs again after a retryable
// error before the error is given up on: a write then reports a conflict with
// the current version.
const maxRetries = 10

// The pause before a retry: drawn at random from [c/2, c), where c doubles
// with each retry from retryBase up to retryCap ("equal jitter"). The jitter
// keeps writers that failed together from trying again together; the half
// that is not random keeps a retry from coming back at once to a contention
// that has not cleared.
const (
	retryBase = time.Millisecond
	retryCap  = 50 * time.Millisecond
)

// retryable reports an error after which the whole transaction can run again:
// a serialization failure, a deadlock, or a second first use of one
// idempotency key (the retry finds the key and replays it).
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case sqlstateSerialization, sqlstateDeadlock:
		return true
	case sqlstateUnique:
		return pe.ConstraintName == "idempotency_pkey"
	}
	return false
}

// errRetriesExhausted wraps the last retryable error once maxRetries have
// passed.
var errRetriesExhausted = errors.New("still failing after retries")

// backoff paces the retries of one session (or of one set-up call): its
// jitter comes from a stream of its own, seeded by the run's seed and the
// stream's number, so that no global source is drawn from.
//
// The pause is real time, on every clock. Under the virtual clock one editor
// runs at a time, so the transactions of a run never overlap and none fails
// for a serialization failure; should one fail all the same, its pause costs
// wall time only, never virtual time (the store cannot advance the run's
// clock), and the version the write commits is the one its first try drew
// (see nextVersion), so the run's counts, versions and history do not change.
type backoff struct {
	rng *rand.Rand
}

func newBackoff(seed, stream uint64) *backoff {
	return &backoff{rng: rand.New(rand.NewPCG(seed, 0x7265747279^stream))}
}

// pause is how long to wait before retry number attempt+1 (attempt counts
// from 0).
func (b *backoff) pause(attempt int) time.Duration {
	c := retryCap
	if attempt < 16 {
		c = min(retryBase<<attempt, retryCap)
	}
	return c/2 + time.Duration(b.rng.Int64N(int64(c/2)))
}

// retry runs tx until it returns no retryable error, at most maxRetries times
// more, pausing before each retry (see backoff), and returns how many times
// tx ran again. After the last retry the error wraps errRetriesExhausted; a
// context that ends during a pause ends the retries with its error.
func retry(ctx context.Context, b *backoff, tx func() error) (int, error) {
	for attempt := 0; ; attempt++ {
		err := tx()
		if !retryable(err) {
			return attempt, err
		}
		if attempt == maxRetries {
			return attempt, fmt.Errorf("%w (%d tries): %w", errRetriesExhausted, attempt+1, err)
		}
		t := time.NewTimer(b.pause(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, ctx.Err()
		case <-t.C:
		}
	}
}

func isUnique(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == sqlstateUnique && pe.ConstraintName == constraint
}

// nextVersion is the version one write commits, made once per try from the
// version it found and the time of the write. A try that runs again with the
// same two gets the version the try before it drew, so a retry draws no
// second random suffix: retried or not, a run's writes draw the same stream.
type nextVersion struct {
	made bool
	cur  any
	now  time.Time
	v    any
}

// next returns the version of a try that found cur at now.
func (n *nextVersion) next(vs *contract.Versions, cur any, now time.Time) any {
	if n.made && n.cur == cur && n.now.Equal(now) {
		return n.v
	}
	n.made, n.cur, n.now, n.v = true, cur, now, vs.Next(cur, now)
	return n.v
}
