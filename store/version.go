package store

import (
	"github.com/notesbench/notesbench/contract"
)

// firstVersion is the version of a new Note or tab.
func (s *Store) firstVersion() any { return s.versions.First(s.opts.Clock.Now()) }

// nextVersion is the version a write commits, given the current one.
func (s *Store) nextVersion(cur any) any { return s.versions.Next(cur, s.opts.Clock.Now()) }

// toVersion turns a stored version into a Version.
func toVersion(v any) contract.Version { return contract.VersionOf(v) }
