package store

import (
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

// bindVersion turns an expected version into the value kept in the version
// column.
func (s *Store) bindVersion(v contract.Version) (any, error) {
	return contract.ExpectedValue(s.opts.VersionFormat, v)
}

// toVersion turns a stored version into a Version.
func toVersion(v any) contract.Version { return contract.VersionOf(v) }

// sameVersion reports whether a stored version equals the expected one.
func sameVersion(stored, expected any) bool {
	return stored == expected
}
