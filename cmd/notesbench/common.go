package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/atomicfile"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// targetFlags choose what serves the contract: the embedded store, or any MCP
// server.
type targetFlags struct {
	store  string
	keep   bool
	target string
	note   string

	opened    contract.Target // made by open; close releases it
	storeName string          // the PostgreSQL store, without its password
	flags     *pflag.FlagSet
}

func (t *targetFlags) register(fs *pflag.FlagSet) {
	t.flags = fs
	fs.StringVar(&t.store, "store", defaultStore(), "the embedded store: sqlite, or a postgres:// URL (each run in a schema of its own; default $NOTESBENCH_POSTGRES_URL when set)")
	fs.BoolVar(&t.keep, "keep", false, "with a PostgreSQL store: leave each run's schema for inspection, and print its name")
	fs.StringVar(&t.target, "target", "embedded", "what serves the contract: embedded, stdio:COMMAND [ARGS] (spawn an MCP server) or http://HOST:PORT/PATH (streamable HTTP)")
	fs.StringVar(&t.note, "note", "", "with --target: an existing, fresh Note to run on, for a server that cannot create Notes")
}

// defaultStore is the store when --store is not given: the PostgreSQL server
// NOTESBENCH_POSTGRES_URL names, when it is set, else SQLite.
func defaultStore() string {
	if u := os.Getenv("NOTESBENCH_POSTGRES_URL"); u != "" {
		return u
	}
	return "sqlite"
}

// remote reports whether the flags name a server.
func (t *targetFlags) remote() bool { return t.target != "" && t.target != "embedded" }

// open returns the Target the flags name, with spec's embedded settings; a
// server is connected to at once. Close it with close.
func (t *targetFlags) open(ctx context.Context, spec backend.Spec) (contract.Target, error) {
	if t.note != "" && !t.remote() {
		return nil, usagef("--note", "names a Note on a server: give --target too")
	}
	spec.Store, spec.Keep = t.store, t.keep
	spec.Target, spec.Note, spec.ClientVersion = t.target, t.note, notesbenchVersion()
	t.storeName = spec.StoreName()
	target, err := backend.Open(ctx, spec)
	if err != nil {
		if ferr := flagError(t.flags, err); ferr != err {
			return nil, ferr
		}
		return nil, reachError{err}
	}
	t.opened = target
	return target, nil
}

// openMemory is open for an experiment whose embedded runs go to in-memory
// databases.
func (t *targetFlags) openMemory(ctx context.Context) (contract.Target, error) {
	if !t.remote() && !(backend.Spec{Store: t.store}).Postgres() && !t.keep {
		t.opened = backend.Memory()
		return t.opened, nil
	}
	return t.open(ctx, backend.Spec{})
}

// close releases the target open made, if any, and tells a of the schemas
// it kept.
func (t *targetFlags) close(a *app) error {
	if t.opened == nil {
		return nil
	}
	for _, schema := range backend.Kept(t.opened) {
		fmt.Fprintf(a.stderr, "notesbench: kept schema %s on %s\n", schema, t.storeName)
	}
	return t.opened.Close()
}

// served returns the contract variant the target serves: known is false for
// the embedded store, which serves any, and for a server that does not say.
func served(t contract.Target) (v contract.Variant, server, known bool) {
	s, ok := t.(contract.Served)
	if !ok {
		return v, false, false
	}
	v, known = s.Served()
	return v, true, known
}

// servedDefault returns value, or, when the flag was left at its default and
// the target is a server, what derive makes of the variant it serves; a server
// that does not say what it serves needs the flag.
func servedDefault(fs *pflag.FlagSet, t contract.Target, flag, value string, derive func(contract.Variant) string) (string, error) {
	v, server, known := served(t)
	if !server || fs.Changed(flag) {
		return value, nil
	}
	if !known {
		return "", usagef("--"+flag, "%s does not say what it serves: name it (the rows are labelled as you name them)", t.Describe())
	}
	return derive(v), nil
}

// historyFlags record every call of a run in a history, for notesbench check.
type historyFlags struct {
	path   string
	writer *history.Writer
}

func (h *historyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&h.path, "history", "", "record every call of every run, with its times and outcome, in this JSON Lines file for notesbench check (written whole or not at all)")
}

// start checks the history file can be written, before anything runs, and
// returns the Writer the experiment records into (nil without --history).
func (h *historyFlags) start(a *app, experiment string) (*history.Writer, error) {
	if h.path == "" {
		return nil, nil
	}
	if err := checkHistoryWritable(h.path); err != nil {
		return nil, usageErr("--history", err)
	}
	h.writer = history.NewWriter(history.Header{Experiment: experiment,
		Command: redactPasswords(strings.Join(append([]string{"notesbench"}, a.args...), " "))})
	return h.writer, nil
}

// finish writes the history, when one was recorded.
func (h *historyFlags) finish() error {
	if h.writer == nil {
		return nil
	}
	if err := h.writer.WriteFile(h.path); err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	return nil
}

// envFlags are the flags of every simulation: clock, seeds, parallelism and
// what serves the contract.
type envFlags struct {
	targetFlags
	history     historyFlags
	clock       string
	seeds       string
	parallel    int
	db          string
	memory      bool
	synchronous string
	serviceTime time.Duration
}

func (f *envFlags) register(fs *pflag.FlagSet, seeds, clock string) {
	f.targetFlags.register(fs)
	f.history.register(fs)
	fs.StringVar(&f.clock, "clock", clock, "clock: real (wall clock, the published setup) or virtual (deterministic, no sleeping)")
	fs.StringVar(&f.seeds, "seeds", seeds, "seeds, as ranges and lists: 1-5,7,10-12")
	fs.IntVar(&f.parallel, "parallel", 0, "runs at once (0: every run under the real clock, one per CPU under the virtual clock)")
	fs.StringVar(&f.db, "db", "", "keep each run's SQLite database in this folder (default: a temporary folder, removed)")
	fs.BoolVar(&f.memory, "memory", false, "keep the databases in memory instead of WAL files")
	fs.StringVar(&f.synchronous, "synchronous", "normal", "SQLite synchronous setting: normal or full")
	fs.DurationVar(&f.serviceTime, "service-time", sim.DefaultServiceTime, "virtual time one store operation takes (virtual clock only)")
}

// env turns the flags into a sim.Env for the experiment called name, with
// usage errors naming the flag; a server named by --target is connected to.
func (f *envFlags) env(ctx context.Context, a *app, name string) (sim.Env, error) {
	clock, err := sim.ParseClock(f.clock)
	if err != nil {
		return sim.Env{}, usageErr("--clock", err)
	}
	seeds, err := sim.ParseSeeds(f.seeds)
	if err != nil {
		return sim.Env{}, usageErr("--seeds", err)
	}
	if f.parallel < 0 {
		return sim.Env{}, usagef("--parallel", "must be 0 or more")
	}
	if f.serviceTime < 0 {
		return sim.Env{}, usagef("--service-time", "must be 0 or more")
	}
	if f.memory && f.db != "" {
		return sim.Env{}, usagef("--db", "cannot keep databases with --memory")
	}
	if f.remote() && clock == sim.ClockVirtual {
		return sim.Env{}, usagef("--clock", "the virtual clock cannot drive %s: a server commits on its own clock (use --clock real)", f.target)
	}
	if f.db != "" {
		if err := checkDBFolder(f.db); err != nil {
			return sim.Env{}, usageErr("--db", err)
		}
	}
	target, err := f.open(ctx, backend.Spec{DBDir: f.db, InMemory: f.memory, Synchronous: f.synchronous})
	if err != nil {
		return sim.Env{}, err
	}
	env := sim.Env{Clock: clock, ServiceTime: f.serviceTime, Seeds: seeds, Parallel: f.parallel, DBDir: f.db,
		InMemory: f.memory, Synchronous: f.synchronous, Store: f.storeName, Target: target, Progress: progress(a, name)}
	if f.remote() {
		env.TargetName = f.target
	}
	if env.History, err = f.history.start(a, name); err != nil {
		return env, err
	}
	return env, nil
}

// outFlags are the output flags of every experiment.
type outFlags struct {
	format         string
	out            string
	replications   int
	baseline       string
	updateBaseline string

	// history, when the command records one, is written after the run and
	// before the output, so that a regression still leaves it.
	history *historyFlags

	baselineJSON []byte         // the baseline, read by check
	realClock    bool           // the run is on the real clock: check invariants and ranges
	flags        *pflag.FlagSet // the command's flags, to name the flag of a config field
}

// noReplications registers no --replications flag, for experiments whose
// verdicts need none.
const noReplications = -1

func (o *outFlags) register(fs *pflag.FlagSet, replications int) {
	o.flags = fs
	fs.StringVar(&o.format, "format", "", "output format: table, markdown, csv or json (default table on a terminal, markdown otherwise)")
	fs.StringVar(&o.out, "out", "", "also write the JSON result to this file (written whole or not at all)")
	if replications != noReplications {
		fs.IntVar(&o.replications, "replications", replications,
			"replications of the published setup behind each verdict (0: no verdicts)")
	}
	fs.StringVar(&o.baseline, "baseline", "", "compare with a stored JSON result and exit 1 on any difference (virtual clock: exact counts; real clock: invariants and prediction intervals from the recorded replications, false-alarm rate ≤ 1 % per run)")
	fs.StringVar(&o.updateBaseline, "update-baseline", "", "write this run's JSON result as the new baseline file")
}

// check validates the output flags before anything runs, so that bad input
// never costs a run and never leaves a partial file.
func (o *outFlags) check(a *app, experiment string) (report.Format, error) {
	f, err := outputFormat(a, o.format, false)
	if err != nil {
		return "", err
	}
	if o.replications < 0 {
		return "", usagef("--replications", "must be 0 or more")
	}
	if err := checkResultFile("--out", o.out); err != nil {
		return "", err
	}
	if err := checkResultFile("--update-baseline", o.updateBaseline); err != nil {
		return "", err
	}
	if o.baseline != "" {
		b, err := readResult(o.baseline)
		if err != nil {
			return "", usageErr("--baseline", err)
		}
		var head struct {
			Experiment string `json:"experiment"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return "", usagef("--baseline", "%s is not a notesbench JSON result: %v", o.baseline, err)
		}
		if head.Experiment != experiment {
			return "", usagef("--baseline", "%s holds a %q result, not %s", o.baseline, head.Experiment, experiment)
		}
		o.baselineJSON = b
	}
	return f, nil
}

// outputFormat returns the format --format names or, when it names none,
// table on a terminal and markdown otherwise. gobench is for the commands
// that print Go benchmark lines; the others refuse it.
func outputFormat(a *app, name string, gobench bool) (report.Format, error) {
	if name == "" {
		name = "markdown"
		if a.stdoutTTY {
			name = "table"
		}
	}
	f, err := report.ParseFormat(name)
	if err == nil && f == report.FormatGoBench && !gobench {
		err = errors.New(`unknown format "gobench" for this command (want table, markdown, csv or json)`)
	}
	if err != nil {
		return "", usageErr("--format", err)
	}
	return f, nil
}

// checkResultFile makes sure the JSON result the flag names, if any, can be
// written (see checkWritable), as a usage error naming the flag.
func checkResultFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := checkWritable(path); err != nil {
		return usageErr(flag, err)
	}
	return nil
}

// writeResult writes result as JSON to path, whole or not at all; no path,
// no file.
func writeResult(path string, result any) error {
	if path == "" {
		return nil
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.WriteJSON(w, result) })
}

// maxResultBytes bounds a JSON result notesbench reads (a baseline, or a file
// it is asked to overwrite): far above any result of the bounded parameters,
// far below what would strain a laptop's memory.
const maxResultBytes = 256 << 20

// checkWritable makes sure a result file can be written at path: its folder
// exists and takes a new file, and path is either new or a notesbench result
// already — never a folder, a device, a pipe or a socket (which a check that
// reads the file would wait on for ever), nor any other file, which a run must
// not clobber.
func checkWritable(path string) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		if err := regular(path, st); err != nil {
			return err
		}
		if !isResultFile(path) {
			return fmt.Errorf("%s exists and is not a notesbench result; remove it or name another file", path)
		}
	}
	return probeFolder(filepath.Dir(path))
}

// probeFolder makes sure a new file can be created in dir, by creating one and
// removing it.
func probeFolder(dir string) error {
	tmp, err := os.CreateTemp(dir, ".notesbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// regular returns an error when st, the file at path, is not a regular file.
func regular(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is not a regular file (%s); name a file", path, fileKind(st.Mode()))
}

// fileKind names what a file that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// readResult reads a JSON result file: a regular file of at most
// maxResultBytes.
func readResult(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	if st.Size() > maxResultBytes {
		return nil, fmt.Errorf("%s is %s bytes, more than a notesbench result may be (%s)", path, report.Int(st.Size()), report.Int(maxResultBytes))
	}
	return os.ReadFile(path)
}

// isResultFile reports whether path holds a JSON result notesbench wrote.
func isResultFile(path string) bool {
	b, err := readResult(path)
	if err != nil {
		return false
	}
	var head struct {
		Version *string `json:"notesbench_version"`
	}
	return json.Unmarshal(b, &head) == nil && head.Version != nil
}

// checkDBFolder makes sure the databases can go into dir before anything runs:
// dir is a folder that takes a new file or, when it does not exist yet, its
// nearest existing parent is one (the store creates the rest).
func checkDBFolder(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a folder", d)
		case err == nil:
			return probeFolder(d)
		case !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR):
			return err
		case filepath.Dir(d) == d:
			return err
		}
	}
}

// emit prints the report in the chosen format, writes the JSON files and
// checks the baseline. rows are the report's rows, typed, for the real-clock
// checks.
func emit[R results.Row](a *app, o *outFlags, f report.Format, rep results.Report, rows []R, section report.Section) error {
	rep.Version = notesbenchVersion()
	if err := printResult(a, f, rep, section); err != nil {
		return err
	}
	if err := writeResult(o.out, rep); err != nil {
		return err
	}
	if err := writeResult(o.updateBaseline, rep); err != nil {
		return err
	}
	if o.baselineJSON == nil {
		return nil
	}
	if o.realClock {
		return checkRealBaseline(a.stderr, o.baseline, o.baselineJSON, rep, rows)
	}
	return compareBaseline(o.baseline, o.baselineJSON, rep)
}

// printResult writes a result to stdout in format f: the JSON result, the CSV
// records of its section, or its tables fitted to the terminal.
func printResult(a *app, f report.Format, result any, section report.Section) error {
	switch f {
	case report.FormatJSON:
		return report.WriteJSON(a.stdout, result)
	case report.FormatCSV:
		return report.WriteCSV(a.stdout, section.Records)
	}
	return report.RenderWidth(a.stdout, f, a.width, section.Tables()...)
}

// regressionError is a run that differs from its baseline: exit code 1.
type regressionError struct {
	path  string
	diffs []results.Diff
	// note, when set, says what the check was (the real-clock gate's
	// intervals and false-alarm rate).
	note string
}

func (e *regressionError) Error() string {
	var b strings.Builder
	verb := "differ"
	if len(e.diffs) == 1 {
		verb = "differs"
	}
	fmt.Fprintf(&b, "regression: %s %s from %s", report.Count(len(e.diffs), "figure"), verb, e.path)
	for _, d := range e.diffs {
		b.WriteString("\n  " + d.String())
	}
	if e.note != "" {
		b.WriteString("\n  (" + e.note + ")")
	}
	return b.String()
}

// compareBaseline compares the deterministic part of a result (rows and runs,
// timing fields left out) with a stored baseline recorded with the same
// parameters.
func compareBaseline(path string, baseline []byte, rep results.Report) error {
	var stored struct {
		Config json.RawMessage `json:"config"`
		Rows   json.RawMessage `json:"rows"`
		Runs   json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	want, err := json.Marshal(struct {
		Rows json.RawMessage `json:"rows"`
		Runs json.RawMessage `json:"runs"`
	}{stored.Rows, stored.Runs})
	if err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	got, err := json.Marshal(struct {
		Rows any `json:"rows"`
		Runs any `json:"runs"`
	}{rep.Rows, rep.Runs})
	if err != nil {
		return err
	}
	diffs, err := results.CompareJSON(want, got, results.TimingKey)
	if err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	if len(diffs) > 0 {
		return &regressionError{path: path, diffs: diffs}
	}
	return nil
}

// checkParameters returns a usage error when the baseline, if any, was
// recorded with other parameters than config: its figures cannot be compared.
// It runs before the experiment, so a mismatch costs nothing. How runs execute
// (results.RunSetting) never counts; neither does the clock on the real clock,
// where a run is checked against invariants and recorded ranges whatever
// clock the baseline ran on.
func (o *outFlags) checkParameters(config any) error {
	if o.baselineJSON == nil {
		return nil
	}
	var stored struct {
		Config map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(o.baselineJSON, &stored); err != nil {
		return usagef("--baseline", "%s: %v", o.baseline, err)
	}
	b, err := json.Marshal(config)
	if err != nil {
		return err
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(b, &ours); err != nil {
		return err
	}
	var diffs []string
	for _, key := range slices.Sorted(maps.Keys(mergeKeys(stored.Config, ours))) {
		if results.RunSetting(key) || results.TimingKey(key) || (o.realClock && results.ClockSetting(key)) {
			continue
		}
		if a, b := compact(stored.Config[key]), compact(ours[key]); a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", key, a, b))
		}
	}
	if len(diffs) > 0 {
		return usagef("--baseline", "%s was recorded with other parameters: %s", o.baseline, strings.Join(diffs, "; "))
	}
	return nil
}

// mergeKeys returns a set of the keys of a and b.
func mergeKeys(a, b map[string]json.RawMessage) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// compact writes a JSON value without spaces, or "absent".
func compact(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// checkRealBaseline checks a real-clock run against a baseline: the invariants
// that hold on any clock, and every figure within the prediction interval the
// baseline's verdicts give it (when it was written with replications), at a
// false-alarm rate of results.GateFalseAlarm per run, which it prints on
// stderr.
func checkRealBaseline[R results.Row](stderr io.Writer, path string, baseline []byte, rep results.Report, rows []R) error {
	var stored struct {
		Config   json.RawMessage   `json:"config"`
		Verdicts []results.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(baseline, &stored); err != nil {
		return usagef("--baseline", "%s: %v", path, err)
	}
	diffs := results.CheckInvariants(rep.Experiment, rows)
	var note string
	if exp, ok := results.Lookup(rep.Experiment); ok {
		ranges := results.CheckRanges(exp, stored.Verdicts, rows)
		diffs = append(diffs, ranges.Diffs...)
		note = "real clock against " + path + ": invariants, and " + ranges.Summary()
	}
	if len(diffs) > 0 {
		return &regressionError{path: path, diffs: diffs, note: note}
	}
	if note != "" {
		fmt.Fprintln(stderr, "notesbench: baseline: "+note)
	}
	return nil
}

// progress returns a progress callback that redraws one line on stderr when it
// is a terminal, and nil otherwise.
func progress(a *app, what string) func(done, total int) {
	if !a.stderrTTY {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(a.stderr, "\r%s: %d/%d runs", what, done, total)
		if done == total {
			fmt.Fprint(a.stderr, "\r\033[K")
		}
	}
}

// editingFlags are the flags of the editing loop shared by race and tabs: the
// edits, the think ranges, and the timing model — a named profile (--timing)
// or a pause rule and an oversleep rule of one's own.
type editingFlags struct {
	edits       int
	claudeThink string
	humanThink  string
	sleep       sleepFlags
	timing      string
}

func (f *editingFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.IntVar(&f.edits, "edits", 100, "edits per editor per run")
	fs.StringVar(&f.claudeThink, "claude-think", "20ms-80ms", "claude's think time between read and write: a uniform range or one duration")
	fs.StringVar(&f.humanThink, "human-think", "5ms-40ms", "the person's think time between read and write")
	f.sleep.register(cmd, sim.PauseThink, `pause before each read: "think" (each editor draws from its own think range), "uniform0" (U(0, the editor's think maximum)), or a range such as 0 or 10ms-70ms`)
	fs.StringVar(&f.timing, "timing", "default", `timing model: "default" (pause think, no oversleep: the reading of the write-up) or "published-fit" (pause uniform0, oversleep slack:d/4,max=5ms: inferred from the published figures, not stated in the write-up); not with --pause or --oversleep`)
	var names []string
	for _, p := range sim.Profiles() {
		names = append(names, p[0]+"\t"+p[1])
	}
	cmd.RegisterFlagCompletionFunc("timing", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
}

// parse returns the editing loop the flags set, with usage errors naming the
// flag. --timing names a whole model, so it refuses --pause and --oversleep
// beside it rather than pick one of them silently.
func (f *editingFlags) parse() (sim.Editing, error) {
	e := sim.Editing{Edits: f.edits}
	var err error
	if e.ClaudeThink, err = sim.ParseDist(f.claudeThink); err != nil {
		return e, usageErr("--claude-think", err)
	}
	if e.HumanThink, err = sim.ParseDist(f.humanThink); err != nil {
		return e, usageErr("--human-think", err)
	}
	if f.sleep.flags.Changed("timing") {
		if f.sleep.flags.Changed("pause") || f.sleep.flags.Changed("oversleep") {
			return e, usagef("--timing", "cannot be combined with --pause or --oversleep: a timing model sets both (published-fit: pause uniform0, oversleep slack:d/4,max=5ms)")
		}
		p, err := sim.ParseProfile(f.timing)
		if err != nil {
			return e, usageErr("--timing", err)
		}
		return e.WithProfile(p), nil
	}
	over, err := f.sleep.oversleepRule()
	if err != nil {
		return e, err
	}
	return e.WithRules(f.sleep.pause, over), nil
}

// sleepFlags are the flags of how an editor sleeps: its pause before each
// read and the oversleep of every sleep. race, tabs and fast share them.
type sleepFlags struct {
	pause     string
	oversleep string
	flags     *pflag.FlagSet
}

func (f *sleepFlags) register(cmd *cobra.Command, pause, pauseHelp string) {
	f.flags = cmd.Flags()
	f.flags.StringVar(&f.pause, "pause", pause, pauseHelp)
	f.flags.StringVar(&f.oversleep, "oversleep", "none", `how much longer than drawn every pause and think lasts: "none", a duration added to each (5ms), or a slack such as slack:d/4,max=5ms (min(d/4, 5ms)); on the real clock on top of what the operating system adds`)
	pauses := []string{"0\tno pause"}
	if pause == sim.PauseThink {
		pauses = []string{"think\teach editor's own think range", "uniform0\tU(0, the editor's think maximum)", "0\tno pause"}
	}
	cmd.RegisterFlagCompletionFunc("pause", cobra.FixedCompletions(pauses, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("oversleep", cobra.FixedCompletions([]string{
		"none\tsleeps last as drawn", "slack:d/4,max=5ms\tmin(d/4, 5ms), the published-fit rule", "slack:d/8,max=1ms\tmin(d/8, 1ms)",
	}, cobra.ShellCompDirectiveNoFileComp))
}

// oversleepRule parses --oversleep.
func (f *sleepFlags) oversleepRule() (sim.Oversleep, error) {
	o, err := sim.ParseOversleep(f.oversleep)
	if err != nil {
		return o, usageErr("--oversleep", err)
	}
	return o, nil
}

// parseList parses a comma-separated flag value item by item, refusing an item
// listed twice; errors name the flag.
func parseList[T comparable](flag, value string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, item := range strings.Split(value, ",") {
		v, err := parse(strings.TrimSpace(item))
		if err != nil {
			return nil, usageErr(flag, err)
		}
		if slices.Contains(out, v) {
			return nil, usagef(flag, "%v is listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}
