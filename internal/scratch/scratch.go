// Package scratch is the scratch folder of one run of notesbench: every
// temporary folder of the run goes in it, and the end of the run — or a
// second Ctrl-C — removes it whole.
package scratch

import (
	"os"
	"sync"
)

// Dir is a run's scratch folder: every temporary folder of the run goes
// in it, and the end of the run — or a second Ctrl-C — removes it whole. It
// is made only when a run needs one, so that a process that needs none (a
// server, a crash test's child, both killed with SIGKILL) leaves none.
type Dir struct {
	mu  sync.Mutex
	dir string
	err error
}

// Path returns the folder, made on first use; a nil Dir is the
// system's temporary folder ("").
func (s *Dir) Path() (string, error) {
	if s == nil {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" && s.err == nil {
		s.dir, s.err = os.MkdirTemp("", "notesbench-")
	}
	return s.dir, s.err
}

// Remove removes the folder, if one was made.
func (s *Dir) Remove() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
