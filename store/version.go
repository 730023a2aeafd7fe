package store

import (
	"fmt"
	"strconv"

	"github.com/notesbench/notesbench/contract"
)

// firstVersion is the version of a new Note or tab.
func (s *Store) firstVersion() any {
	if s.opts.VersionFormat == contract.FormatCounter {
		return int64(1)
	}
	return s.stamp()
}

// nextVersion is the version a write commits, given the current one. A counter
// increments; a timestamp is the commit time, whatever the current one was.
func (s *Store) nextVersion(cur any) any {
	if s.opts.VersionFormat == contract.FormatCounter {
		n, _ := cur.(int64)
		return n + 1
	}
	return s.stamp()
}

func (s *Store) stamp() string {
	var suffix uint32
	if s.opts.VersionFormat == contract.FormatUSSuffix {
		s.randMu.Lock()
		suffix = s.rand.Uint32()
		s.randMu.Unlock()
	}
	return contract.Stamp(s.opts.VersionFormat, s.opts.Clock.Now(), suffix)
}

// bindVersion turns an expected version into the value stored in SQLite.
func (s *Store) bindVersion(v contract.Version) (any, error) {
	if v == "" {
		return nil, contract.Invalid("expected_version", "required")
	}
	if s.opts.VersionFormat != contract.FormatCounter {
		return string(v), nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return nil, contract.Invalid("expected_version", "%q is not a version of this Note (want an integer)", v)
	}
	return n, nil
}

// toVersion turns a stored version into a Version.
func toVersion(v any) contract.Version {
	switch v := v.(type) {
	case int64:
		return contract.Version(strconv.FormatInt(v, 10))
	case string:
		return contract.Version(v)
	case []byte:
		return contract.Version(v)
	}
	return contract.Version(fmt.Sprint(v))
}

// sameVersion reports whether a stored version equals the expected one.
func sameVersion(stored, expected any) bool {
	return stored == expected
}
