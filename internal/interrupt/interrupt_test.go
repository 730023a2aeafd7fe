package interrupt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notesbench/notesbench/internal/scratch"
)

// A second Ctrl-C ends the process at once, and removes the run's scratch
// folder first: the run's databases are not left behind. (The signals are
// handed to the watcher as signal.Notify would, not sent to the test
// process, whose other tests watch for them too.)
func TestSecondSignalCleansUp(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := &scratch.Dir{}
	dir, err := s.Path()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "notesbench-1", "race-note-reapply-seed1.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte("a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Watch(s.Remove)
	exited := make(chan int, 1)
	in.exit = func(code int) { exited <- code }
	in.ch <- os.Interrupt
	<-in.Context().Done() // the first cancels the run
	in.ch <- os.Interrupt
	if code := <-exited; code != ExitInterrupt {
		t.Errorf("exit %d, want %d", code, ExitInterrupt)
	}
	in.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the scratch folder is still there: %v", err)
	}
}
