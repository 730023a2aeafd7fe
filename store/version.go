package store

import (
	"fmt"
	"strconv"
	"time"
)

const (
	msLayout = "2006-01-02T15:04:05.000Z"
	usLayout = "2006-01-02T15:04:05.000000Z"
)

// firstVersion is the version of a new Note or tab.
func (s *Store) firstVersion() any {
	if s.opts.VersionFormat == FormatCounter {
		return int64(1)
	}
	return s.stamp()
}

// nextVersion is the version a write commits, given the current one. A counter
// increments; a timestamp is the commit time, whatever the current one was.
func (s *Store) nextVersion(cur any) any {
	if s.opts.VersionFormat == FormatCounter {
		n, _ := cur.(int64)
		return n + 1
	}
	return s.stamp()
}

func (s *Store) stamp() string {
	now := s.opts.Clock.Now().UTC()
	if s.opts.VersionFormat == FormatMS {
		return now.Truncate(time.Millisecond).Format(msLayout)
	}
	s.randMu.Lock()
	suffix := s.rand.Uint32() & 0xffffff
	s.randMu.Unlock()
	return fmt.Sprintf("%s-%06x", now.Truncate(time.Microsecond).Format(usLayout), suffix)
}

// bindVersion turns an expected version into the value stored in SQLite.
func (s *Store) bindVersion(v Version) (any, error) {
	if v == "" {
		return nil, invalid("expected_version", "required")
	}
	if s.opts.VersionFormat != FormatCounter {
		return string(v), nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return nil, invalid("expected_version", "%q is not a version of this Note (want an integer)", v)
	}
	return n, nil
}

// toVersion turns a stored version into a Version.
func toVersion(v any) Version {
	switch v := v.(type) {
	case int64:
		return Version(strconv.FormatInt(v, 10))
	case string:
		return Version(v)
	case []byte:
		return Version(v)
	}
	return Version(fmt.Sprint(v))
}

// sameVersion reports whether a stored version equals the expected one.
func sameVersion(stored, expected any) bool {
	return stored == expected
}
