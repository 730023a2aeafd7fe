// Command stress runs notesbench's tests again and again beside a CPU hog,
// to find the tests whose verdict depends on the machine's speed: a flaky
// test is a bug, fixed at its cause, never retried. It is make stress.
//
// Each round runs the test command it is given (make stress gives it make
// test's, under the race detector; make stress PASS=large make
// test-large's), with -json -artifacts -outputdir added, while busy loops
// (-hog, two by default, as many as this machine's cores here) keep the
// CPUs busy. A test that fails keeps what it
// put in its artifact folder (t.ArtifactDir: a crash test its history, for
// notesbench check) under -out, round by round. At the end every failure is
// listed, with its round, its last lines of output and its artifacts; the
// exit code is 1 if any round failed. A round during which the tree changed
// (a commit, a merge, an edit: its packages may have been built half before
// and half after) is void, said so, and run again, up to -rounds times.
//
// Usage:
//
//	go run ./scripts/stress [-rounds 10] [-hog 2] [-out stress-out] -- go test -race -count=1 ./...
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 10, "how many times to run the tests")
	hogs := flag.Int("hog", 2, "busy loops beside the tests")
	out := flag.String("out", "stress-out", "where failed tests' artifacts and output are kept")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, options{rounds: *rounds, hogs: *hogs, out: *out, command: flag.Args()}, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	rounds, hogs int
	out          string
	// command is the test command, to which each round adds -json
	// -artifacts -outputdir.
	command []string
}

// failure is one failed test of one round.
type failure struct {
	round     int
	pkg, test string
	output    []string
	// artifacts are the folders go test -artifacts kept for the test and
	// the tests it is in.
	artifacts []string
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.rounds < 1 || o.hogs < 0 {
		fmt.Fprintln(stderr, "stress: -rounds must be at least 1 and -hog at least 0")
		return 2
	}
	if len(o.command) == 0 {
		fmt.Fprintln(stderr, "stress: no test command (e.g. -- go test -race -count=1 ./...)")
		return 2
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "stress:", err)
		return 2
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		fmt.Fprintln(stderr, "stress:", err)
		return 2
	}
	stopHog := hog(o.hogs)
	defer stopHog()
	fmt.Fprintf(stdout, "stress: %d rounds of %s beside %d busy loops (%d CPUs)\n", o.rounds, strings.Join(o.command, " "), o.hogs, runtime.NumCPU())
	var failures []failure
	void := 0 // rounds run again: the tree changed under them
	for round := 1; round <= o.rounds+void; round++ {
		dir := filepath.Join(out, fmt.Sprintf("round-%02d", round))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(stderr, "stress:", err)
			return 2
		}
		start := time.Now()
		before := treeState(out)
		failed, err := runRound(ctx, o, round, dir)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "stress: interrupted")
			return 130
		}
		if err != nil {
			fmt.Fprintf(stderr, "stress: round %d: %v\n", round, err)
			return 1
		}
		verdict := "ok"
		if after := treeState(out); after != before && void < o.rounds {
			// A commit, a merge or an edit during the round: what failed
			// may have been built half before it and half after.
			fmt.Fprintf(stdout, "round %2d: void, the tree changed during it (%s); run again (%.0f s)\n", round, after, time.Since(start).Seconds())
			void++
			continue
		}
		if len(failed) > 0 {
			var names []string
			for _, f := range failed {
				names = append(names, f.pkg+"."+f.test)
			}
			verdict = "FAILED " + strings.Join(names, ", ")
		} else {
			os.RemoveAll(dir) // nothing to keep
		}
		fmt.Fprintf(stdout, "round %2d: %s (%.0f s)\n", round, verdict, time.Since(start).Seconds())
		failures = append(failures, failed...)
	}
	if len(failures) == 0 {
		fmt.Fprintf(stdout, "stress: %d of %d rounds passed", o.rounds, o.rounds)
		if void > 0 {
			fmt.Fprintf(stdout, " (and %d void, run again)", void)
		}
		fmt.Fprintln(stdout)
		return 0
	}
	fmt.Fprintf(stdout, "\nstress: %d failures\n", len(failures))
	for _, f := range failures {
		fmt.Fprintf(stdout, "\n--- round %d: %s %s\n", f.round, f.pkg, f.test)
		for _, l := range f.output[max(0, len(f.output)-30):] {
			fmt.Fprint(stdout, "    ", l)
		}
		for _, dir := range f.artifacts {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				fmt.Fprintf(stdout, "    kept: %s\n", filepath.Join(dir, e.Name()))
			}
		}
	}
	return 1
}

// treeState names the state of the tree the tests are built from: the
// commit checked out and a digest of the changes git sees in the work tree
// (the diff of its tracked files and the names of the new ones, but those
// under out, which the rounds write); "" outside a git tree, where it cannot
// tell.
func treeState(out string) string {
	head, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	diff, _ := exec.Command("git", "diff", "HEAD").Output()
	args := []string{"ls-files", "--others", "--exclude-standard"}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, out); err == nil && !strings.HasPrefix(rel, "..") {
			args = append(args, "--", ".", ":(exclude)"+rel)
		}
	}
	untracked, _ := exec.Command("git", args...).Output()
	sum := sha256.Sum256(append(diff, untracked...))
	return fmt.Sprintf("HEAD %s, work tree %x", strings.TrimSpace(string(head)), sum[:6])
}

// runRound runs the pass once with its output and artifacts under dir, and
// returns its failed tests (top-level and subtests).
func runRound(ctx context.Context, o options, round int, dir string) ([]failure, error) {
	args := slices.Concat(o.command[1:], []string{"-json", "-artifacts", "-outputdir", dir})
	cmd := exec.CommandContext(ctx, o.command[0], args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	log, err := os.Create(filepath.Join(dir, "test.json"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(log, pw)
	cmd.Stderr = log
	var failed []failure
	done := make(chan struct{})
	go func() {
		defer close(done)
		output := map[string][]string{}
		kept := map[string][]string{} // package -> "test\tpath"
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var e struct {
				Action, Package, Test, Output, Path string
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			key := e.Package + " " + e.Test
			switch e.Action {
			case "output":
				output[key] = append(output[key], e.Output)
			case "artifacts":
				kept[e.Package] = append(kept[e.Package], e.Test+"\t"+e.Path)
			case "fail":
				name := e.Test
				if name == "" {
					name = "(package)"
				}
				f := failure{round: round, pkg: strings.TrimPrefix(e.Package, "github.com/notesbench/notesbench/"), test: name, output: output[key]}
				for _, k := range kept[e.Package] {
					test, path, _ := strings.Cut(k, "\t")
					if test == e.Test || strings.HasPrefix(e.Test, test+"/") || strings.HasPrefix(test, e.Test+"/") {
						f.artifacts = append(f.artifacts, path)
					}
				}
				failed = append(failed, f)
			case "pass", "skip":
				delete(output, key)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	err = cmd.Run()
	pw.Close()
	<-done
	if err != nil && len(failed) == 0 && ctx.Err() == nil {
		return nil, fmt.Errorf("go test failed without a failing test (see %s): %v", filepath.Join(dir, "test.json"), err)
	}
	// A failed subtest fails its parents: keep the innermost ones, and the
	// package lines only where no test failed in the package.
	var keep []failure
	for _, f := range failed {
		inner := slices.ContainsFunc(failed, func(g failure) bool {
			return g.pkg == f.pkg && g.test != f.test && (f.test == "(package)" || strings.HasPrefix(g.test, f.test+"/"))
		})
		if !inner {
			keep = append(keep, f)
		}
	}
	return keep, nil
}

// hog starts n busy loops and returns what stops them.
func hog(n int) func() {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			runtime.LockOSThread()
			for x := 0; !stop.Load(); x++ {
				_ = x * x
			}
		})
	}
	return func() {
		stop.Store(true)
		wg.Wait()
	}
}
