package pgbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/pgstore"
)

// Peer is a pgbench peer run: what it writes, and with which pgbench.
type Peer struct {
	// Writes is the number of timed transactions; Warmup the untimed ones
	// before them, in the same pgbench run.
	Writes int
	Warmup int
	// TextSize is the length in bytes of the text each write sets.
	TextSize int
	// Guard is the variant's guard whose write the script repeats; "" is note.
	Guard contract.Guard
	// Pgbench is the pgbench binary; "" looks in /usr/lib/postgresql/*/bin,
	// then on PATH.
	Pgbench string
}

// Run runs pgbench at one client against a fresh run of t (a schema of its
// own, one Note, dropped at the end) with a script whose transaction is one
// edit_note_tab replace_text write as pgstore makes it: the same
// statements, texts included, in the same two pipelined round trips, with
// the same parameters and prepared statements. It returns the latency of each
// timed transaction in microseconds, from pgbench's per-transaction log, in
// the order they ran.
//
// What the script leaves out is exactly what pgbench cannot do and
// notesbench must: the checks between the round trips (pgbench's pipelines
// cannot look at a result), which a benchmark never trips, since nothing
// else writes to its Note. The difference in latency is what notesbench's Go
// side costs: the driver, the contract's rules and the JSON of the stored
// result.
func (opts Peer) Run(ctx context.Context, t *pgstore.Target) ([]float64, error) {
	if opts.Writes < 1 {
		return nil, errors.New("pgbench: writes must be at least 1")
	}
	bin, err := Binary(opts.Pgbench)
	if err != nil {
		return nil, err
	}
	guard := opts.Guard
	if guard == "" {
		guard = contract.GuardNote
	}
	s, err := t.OpenStore(ctx, contract.RunSpec{Name: "pgbench-" + string(guard), Variant: contract.Variant{Guard: guard}})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	const noteID = "bench-1"
	if err := s.CreateNote(ctx, noteID); err != nil {
		return nil, err
	}

	dir, err := os.MkdirTemp("", "notesbench-pgbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "edit_note_tab.sql")
	if err := os.WriteFile(script, []byte(writeScript(t, guard)), 0o644); err != nil {
		return nil, err
	}
	text := strings.Repeat("x", opts.TextSize)
	// The stored result as a write of this text stores it, at a version of
	// the same width as the timed writes'.
	result, _ := json.Marshal(contract.EditResult{NoteID: noteID, TabID: "markdown",
		Version: contract.Version(strconv.Itoa(opts.Warmup + opts.Writes)), Changed: "text: " + strconv.Itoa(len(text)) + " characters"})
	conn, env := t.LibpqConn(s.Schema())
	args := []string{"-n", "-c", "1", "-j", "1", "-M", "prepared", "-t", strconv.Itoa(opts.Warmup + opts.Writes),
		"-f", script, "-l", "--log-prefix", filepath.Join(dir, "log"),
		"-D", "note=" + noteID, "-D", "tab=markdown", "-D", "ver=1", "-D", "tool=" + contract.ToolEditNoteTab,
		"-D", "text=" + text, "-D", "result=" + string(result), conn}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, t.Fail("running pgbench", fmt.Errorf("%v: %s", err, lastLines(out.String(), 3)))
	}
	samples, err := readLogs(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	if len(samples) != opts.Warmup+opts.Writes {
		return nil, fmt.Errorf("pgbench logged %s, want %d: %s", plural.Count(len(samples), "transaction"), opts.Warmup+opts.Writes, lastLines(out.String(), 3))
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	return samples[opts.Warmup:], nil
}

// writeScript is the pgbench script of one write under guard on t: the statements
// of pgstore's replace_text write on the markdown tab, in its two batches.
// Each $n of a statement becomes the pgbench variable its parameter names.
// (pgbench retries no failed transaction: a peer of the Serializable mode
// runs alone on its Note, where none fails.)
func writeScript(t *pgstore.Target, guard contract.Guard) string {
	batches := t.WriteStatements(guard)
	var b strings.Builder
	b.WriteString("\\set k random(1, 9000000000000000000)\n\\set ver :ver + 1\n")
	for _, batch := range batches {
		b.WriteString("\\startpipeline\n")
		for _, st := range batch {
			b.WriteString(statement(st.SQL, st.Params))
		}
		b.WriteString("\\endpipeline\n")
	}
	return b.String()
}

var placeholder = regexp.MustCompile(`\$(\d+)`)

// statement writes sql on one line with its placeholders named.
func statement(sql string, vars []string) string {
	sql = placeholder.ReplaceAllStringFunc(sql, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		return ":" + vars[n-1]
	})
	return strings.Join(strings.Fields(sql), " ") + ";\n"
}

// readLogs reads the per-transaction logs pgbench wrote under prefix
// (one file per thread) and returns each transaction's latency in
// microseconds, in the order of their start.
func readLogs(prefix string) ([]float64, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("pgbench wrote no log under %s", prefix)
	}
	type tx struct {
		start   float64
		latency float64
	}
	var all []tx
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			// client_id transaction_no time script_no time_epoch time_us
			fields := strings.Fields(sc.Text())
			if len(fields) < 6 {
				return nil, fmt.Errorf("pgbench log line %q: want 6 fields", sc.Text())
			}
			lat, err1 := strconv.ParseFloat(fields[2], 64)
			sec, err2 := strconv.ParseFloat(fields[4], 64)
			us, err3 := strconv.ParseFloat(fields[5], 64)
			if err := errors.Join(err1, err2, err3); err != nil {
				return nil, fmt.Errorf("pgbench log line %q: %w", sc.Text(), err)
			}
			// time_epoch/time_us is when the transaction ended.
			all = append(all, tx{start: sec*1e6 + us - lat, latency: lat})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].start < all[j].start })
	out := make([]float64, len(all))
	for i, x := range all {
		out[i] = x.latency
	}
	return out, nil
}

// Binary finds the pgbench binary: path when it is set, else the newest in
// /usr/lib/postgresql/*/bin, else the one on PATH.
func Binary(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if p := filepath.Join(d, "pgbench"); fileExists(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	return "", errors.New("pgbench not found in /usr/lib/postgresql/*/bin or on PATH (it ships with the PostgreSQL server)")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}
