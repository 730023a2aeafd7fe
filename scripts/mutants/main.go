// Command mutants plants bugs in a copy of notesbench and requires the tests
// of the package that owns each broken rule to fail: one bug per clause of the
// contract (caught by the contract suite, contract/contracttest, as the SQLite
// store, PostgreSQL and serve run it) and one per count of the checker
// (caught by package check's tests). It is `make mutants`.
//
// Each mutant replaces one exact piece of source text, which must occur once:
// when the code moves, the table here fails loudly instead of planting
// nothing. Before any mutant, the tests it runs must pass on the unchanged
// copy; a mutant that does not compile is an error, not a catch.
//
// Usage:
//
//	go run ./scripts/mutants            # every mutant
//	go run ./scripts/mutants -run check # the mutants whose name matches
//	go run ./scripts/mutants -list
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// mutant is one planted bug.
type mutant struct {
	// name says which clause or count it breaks.
	name string
	file string
	// old is replaced by new; old must occur exactly once in file.
	old, new string
	// tests is what must fail: packages and a -run pattern.
	tests testRun
}

// testRun is one go test invocation.
type testRun struct {
	run  string
	pkgs []string
}

func (r testRun) String() string { return strings.Join(r.pkgs, " ") + " -run '" + r.run + "'" }

var (
	// suite is where the contract suite runs on the SQLite store (with and
	// without the write queue) and over MCP against serve as it is served.
	suite = testRun{run: "^TestContract", pkgs: []string{"./store", "./backend"}}
	// pgSuite is the suite on PostgreSQL.
	pgSuite = testRun{run: "^TestContract$", pkgs: []string{"./pgstore"}}
	// checker is package check's tests.
	checker = testRun{run: ".", pkgs: []string{"./check"}}
)

var mutants = []mutant{
	// The contract's clauses.
	{name: "contract: add_note_source skips the version check", file: "contract/write.go",
		old:   "if tool && v.Guard != GuardNone && f.Current != w.Expected {",
		new:   "if tool && w.Tool != ToolAddNoteSource && v.Guard != GuardNone && f.Current != w.Expected {",
		tests: suite},
	{name: "contract: create_note_tab skips the version check in key-first order", file: "contract/write.go",
		old:   "if tool && v.Guard != GuardNone && f.Current != w.Expected {",
		new:   "if tool && !(keyFirst && w.Tool == ToolCreateNoteTab) && v.Guard != GuardNone && f.Current != w.Expected {",
		tests: suite},
	{name: "contract: a conflict names the expected version, not the current one", file: "contract/write.go",
		old:   "return false, &ConflictError{Current: VersionOf(f.Current)}",
		new:   "return false, &ConflictError{Current: VersionOf(w.Expected)}",
		tests: suite},
	{name: "contract: under guard tab a tab's write is checked against the Note version", file: "contract/write.go",
		old:   "if v.TabScoped(tabID) {\n\t\treturn tabVersion",
		new:   "if v.TabScoped(tabID) && false {\n\t\treturn tabVersion",
		tests: suite},
	{name: "contract: version-first checks the key first", file: "contract/write.go",
		old:   "keyFirst := v.Order != OrderVersionFirst",
		new:   "keyFirst := true",
		tests: suite},
	{name: "contract: key-first replays a resend only while its version is current", file: "contract/write.go",
		old:   "if tool && keyFirst && f.KeyFound {",
		new:   "if tool && keyFirst && f.KeyFound && (v.Guard == GuardNone || f.Current == w.Expected) {",
		tests: suite},
	{name: "contract: a key first used by another tool is replayed, not refused", file: "contract/write.go",
		old:   "if f.FirstTool != w.Tool {",
		new:   "if f.FirstTool != w.Tool && false {",
		tests: suite},
	{name: "contract: under key-reuse refuse a key sent with other arguments is replayed", file: "contract/write.go",
		old:   "if v.RefusesKeyReuse() && f.FirstArgs != \"\" && f.FirstArgs != w.Args {",
		new:   "if v.RefusesKeyReuse() && f.FirstArgs != \"\" && f.FirstArgs != w.Args && false {",
		tests: suite},
	{name: "contract: under key-reuse refuse the expected version counts as an argument", file: "contract/write.go",
		old:   "r.ExpectedVersion, r.IdempotencyKey = \"\", \"\"\n\t\treq = r\n\tcase CreateRequest:",
		new:   "r.IdempotencyKey = \"\"\n\t\treq = r\n\tcase CreateRequest:",
		tests: suite},
	{name: "contract: a replayed create_note_tab is not marked replayed", file: "contract/write.go",
		old:   "case *CreateResult:\n\t\tr.Replayed = true",
		new:   "case *CreateResult:\n\t\tr.Replayed = false",
		tests: suite},
	{name: "contract: us-suffix versions in upper-case hex", file: "contract/rules.go",
		old:   `return fmt.Sprintf("%s-%06x", now.Truncate(time.Microsecond).Format(usLayout), suffix&0xffffff)`,
		new:   `return fmt.Sprintf("%s-%06X", now.Truncate(time.Microsecond).Format(usLayout), suffix&0xffffff)`,
		tests: suite},
	{name: "contract: ms versions without the time zone", file: "contract/rules.go",
		old:   `msLayout = "2006-01-02T15:04:05.000Z"`,
		new:   `msLayout = "2006-01-02T15:04:05.000"`,
		tests: suite},
	{name: "contract: counter versions step by two", file: "contract/rules.go",
		old:   "return n + 1",
		new:   "return n + 2",
		tests: suite},
	{name: "store: a queued write that fails is not undone", file: "store/queue.go",
		old:   "if rerr := q.sc.execHot(hotRollbackTo); rerr != nil {",
		new:   "if rerr := error(nil); rerr != nil {",
		tests: suite},
	{name: "pgstore: a Note-level write never finds its key", file: "pgstore/sql.go",
		old:   "LEFT JOIN idempotency i ON i.note_id = $1 AND i.key = $2`",
		new:   "LEFT JOIN idempotency i ON i.note_id = $1 AND i.key = $2 AND false`",
		tests: pgSuite},

	// The checker's counts.
	{name: "check: a line is a duplicate only from its third copy", file: "check/duplicates.go",
		old:   "if n := count[l]; n > 1 {",
		new:   "if n := count[l]; n > 2 {",
		tests: checker},
	{name: "check: duplicate tabs counted per intent, not per tab", file: "check/duplicates.go",
		old:   "rd.res.Duplicates += d.extra\n\t\t\t\tviolations(res, d.extra, rd, math.MinInt64, rd.end, \"note %s: %d tabs for %s\"",
		new:   "rd.res.Duplicates++\n\t\t\t\tviolations(res, 1, rd, math.MinInt64, rd.end, \"note %s: %d tabs for %s\"",
		tests: checker},
	{name: "check: duplicate sources not counted", file: "check/duplicates.go",
		old:   "range nc.sources.duplicates(sources) {",
		new:   "range nc.sources.duplicates(nil) {",
		tests: checker},
	{name: "check: an intent acknowledged twice is lost twice", file: "check/lost.go",
		old:   `if id == "" || seen[intent{c.Editor, c.Note, id}] {`,
		new:   `if id == "" {`,
		tests: checker},
	{name: "check: a lost line counted against the first editor", file: "check/lost.go",
		old:   "e := editors[c.Editor]",
		new:   "e := editors[order[0]]",
		tests: checker},
	{name: "check: an acknowledged tab missing from the tab bar is not lost", file: "check/lost.go",
		old:   `return "tab " + c.TabID, has, f != nil`,
		new:   `return "tab " + c.TabID, has || f != nil, f != nil`,
		tests: checker},
	{name: "check: an acknowledged source missing from the sources is not lost", file: "check/lost.go",
		old:   `return "source " + c.SourceID, has, f != nil`,
		new:   `return "source " + c.SourceID, has || f != nil, f != nil`,
		tests: checker},
	{name: "check: a cell holding another value is not lost", file: "check/lost.go",
		old:   "return id, v == c.Intent, true",
		new:   `return id, v != "", true`,
		tests: checker},
	{name: "check: a write with one write between it and its read is not stale", file: "check/stale.go",
		old:   "if at[i] == base.epoch {",
		new:   "if at[i] <= base.epoch+1 {",
		tests: checker},
	{name: "check: a committed write that kept its expected version is no collision", file: "check/versions.go",
		old:   "if guarded && c.Version == c.ExpectedVersion {",
		new:   "if guarded && c.Version == c.ExpectedVersion && false {",
		tests: checker},
}

func main() {
	runFlag := flag.String("run", "", "plant only the mutants whose name matches this regular expression")
	list := flag.Bool("list", false, "list the mutants and exit")
	verbose := flag.Bool("v", false, "print the test output of every mutant")
	flag.Parse()
	// A Ctrl-C stops the test running and leaves no copy behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, *runFlag, *list, *verbose, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, pattern string, list, verbose bool, stdout, stderr io.Writer) int {
	re, err := regexp.Compile(pattern)
	if err != nil {
		fmt.Fprintf(stderr, "mutants: -run: %v\n", err)
		return 2
	}
	var chosen []mutant
	for _, m := range mutants {
		if re.MatchString(m.name) {
			chosen = append(chosen, m)
		}
	}
	if list {
		for _, m := range chosen {
			fmt.Fprintf(stdout, "%-80s %s\n", m.name, m.tests)
		}
		return 0
	}
	if len(chosen) == 0 {
		fmt.Fprintf(stderr, "mutants: -run: no mutant matches %q\n", pattern)
		return 2
	}
	dir, err := copyRepo()
	if dir != "" {
		defer os.RemoveAll(filepath.Dir(dir))
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 2
	}
	// Every mutant's bug is planted in text that must be there once, and the
	// tests that must catch it must pass without it.
	for _, m := range chosen {
		src, err := os.ReadFile(filepath.Join(dir, m.file))
		if err != nil {
			fmt.Fprintf(stderr, "mutants: %s: %v\n", m.name, err)
			return 2
		}
		if n := strings.Count(string(src), m.old); n != 1 {
			fmt.Fprintf(stderr, "mutants: %s: the text to replace occurs %d times in %s, not once: update the table in scripts/mutants\n", m.name, n, m.file)
			return 2
		}
	}
	var runs []testRun
	for _, m := range chosen {
		if !slices.ContainsFunc(runs, func(r testRun) bool { return r.String() == m.tests.String() }) {
			runs = append(runs, m.tests)
		}
	}
	// The unchanged copy's runs go at once (they share no package), each
	// said in the table's order.
	type baseline struct {
		out    []byte
		failed bool
		err    error
		secs   float64
	}
	base := make([]baseline, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() {
			start := time.Now()
			out, failed, err := goTest(ctx, dir, r)
			base[i] = baseline{out, failed, err, time.Since(start).Seconds()}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "mutants: interrupted")
		return 130
	}
	for i, r := range runs {
		if b := base[i]; b.err != nil || b.failed {
			fmt.Fprintf(stderr, "mutants: go test %s fails without a mutant (%v):\n%s", r, b.err, b.out)
			return 2
		}
		fmt.Fprintf(stdout, "unchanged copy passes go test %s (%.0fs)\n", r, base[i].secs)
	}
	caught := 0
	for i, m := range chosen {
		start := time.Now()
		out, failed, err := plant(ctx, dir, m)
		secs := time.Since(start).Seconds()
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(stderr, "mutants: interrupted")
			return 130
		case err != nil:
			fmt.Fprintf(stderr, "mutants: %s: %v\n%s", m.name, err, out)
			return 2
		case failed:
			caught++
			fmt.Fprintf(stdout, "%2d caught   %s (%s, %.0fs)\n", i+1, m.name, m.tests, secs)
			if verbose {
				fmt.Fprintf(stdout, "%s\n", out)
			}
		default:
			fmt.Fprintf(stdout, "%2d ESCAPED  %s: go test %s passes with it (%.0fs)\n", i+1, m.name, m.tests, secs)
			if verbose {
				fmt.Fprintf(stdout, "%s\n", out)
			}
		}
	}
	fmt.Fprintf(stdout, "%d of %d mutants caught\n", caught, len(chosen))
	if caught != len(chosen) {
		return 1
	}
	return 0
}

// plant applies m in dir, runs its tests and restores the file.
func plant(ctx context.Context, dir string, m mutant) (out []byte, failed bool, err error) {
	path := filepath.Join(dir, m.file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if rerr := os.WriteFile(path, orig, 0o644); rerr != nil && err == nil {
			err = rerr
		}
	}()
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.old), []byte(m.new), 1), 0o644); err != nil {
		return nil, false, err
	}
	// One package at a time, in the table's order, up to the first whose
	// tests fail: a mutant is caught once, and the packages after it (the
	// suite as served, slower than the store's) need not build or run.
	for _, pkg := range m.tests.pkgs {
		out, failed, err = goTest(ctx, dir, testRun{run: m.tests.run, pkgs: []string{pkg}}, "-failfast")
		if failed || err != nil {
			return out, failed, err
		}
	}
	return out, false, nil
}

// goTest runs r in dir, with flags. It reports failed when a test failed; an error when go
// test failed otherwise (a build error: a mutant that does not compile
// catches nothing).
func goTest(ctx context.Context, dir string, r testRun, flags ...string) ([]byte, bool, error) {
	args := append(append([]string{"test", "-count=1", "-timeout", "10m", "-run", r.run}, flags...), r.pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	// A test that cannot reach PostgreSQL fails instead of skipping: a skip
	// would let every mutant of pgstore escape.
	cmd.Env = append(os.Environ(), "NOTESBENCH_REQUIRE_POSTGRES=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return out, false, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return out, false, err
	}
	if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) || !bytes.Contains(out, []byte("--- FAIL")) {
		return out, false, fmt.Errorf("go test %s did not run its tests to a failure", r)
	}
	return out, true, nil
}

// copyRepo copies the files git knows of (committed or not, ignored ones
// aside) into a temporary folder and returns its path.
func copyRepo() (string, error) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in a git checkout: %v", err)
	}
	root := strings.TrimSpace(string(top))
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("listing the files: %v", err)
	}
	tmp, err := os.MkdirTemp("", "notesbench-mutants-")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "notesbench")
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return dir, err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return dir, err
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
