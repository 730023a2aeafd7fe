//go:build unix

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/internal/shell"
)

// workflowPath is the reusable workflow, where GitHub looks for one:
// notesbench/notesbench/.github/workflows/notesbench-shards.yml@REF.
const workflowPath = repoRoot + "/.github/workflows/notesbench-shards.yml"

// ghStep is the part of a workflow step the workflow sets.
type ghStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

// ghDefaults is a workflow's or a job's defaults.
type ghDefaults struct {
	Run struct {
		Shell string `yaml:"shell"`
	} `yaml:"run"`
}

// ghJob is the part of a workflow job the workflow sets.
type ghJob struct {
	Needs    any               `yaml:"needs"`
	RunsOn   string            `yaml:"runs-on"`
	Outputs  map[string]string `yaml:"outputs"`
	Defaults ghDefaults        `yaml:"defaults"`
	Strategy struct {
		FailFast bool              `yaml:"fail-fast"`
		Matrix   map[string]string `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
}

// workflow is the part of a GitHub Actions workflow the file sets.
type workflow struct {
	Name string `yaml:"name"`
	On   struct {
		WorkflowCall struct {
			Inputs map[string]struct {
				Description string `yaml:"description"`
				Type        string `yaml:"type"`
				Required    bool   `yaml:"required"`
				Default     any    `yaml:"default"`
			} `yaml:"inputs"`
		} `yaml:"workflow_call"`
	} `yaml:"on"`
	Defaults ghDefaults       `yaml:"defaults"`
	Jobs     map[string]ghJob `yaml:"jobs"`
}

// ghShells is how a GitHub-hosted Linux runner runs a step's script for
// the shell it declares, "" when it declares none.
var ghShells = map[string][]string{
	"":     {"bash", "-e", "{0}"},
	"bash": {"bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"},
	"sh":   {"sh", "-e", "{0}"},
}

// ghExpr matches a GitHub expression in a value.
var ghExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// ghEval evaluates the expressions of s as GitHub would, on the contexts
// in ctx (by their dotted names): a name, a 'string', or a || b, the first
// of them that is not empty.
func ghEval(t *testing.T, s string, ctx map[string]string) string {
	t.Helper()
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		expr := ghExpr.FindStringSubmatch(m)[1]
		v := ""
		for _, operand := range strings.Split(expr, "||") {
			operand = strings.TrimSpace(operand)
			if lit, ok := strings.CutPrefix(operand, "'"); ok {
				v = strings.TrimSuffix(lit, "'")
			} else if x, ok := ctx[operand]; ok {
				v = x
			} else {
				t.Fatalf("%q: the test knows no %s", s, operand)
			}
			if v != "" {
				break
			}
		}
		return v
	})
}

// ghRunner runs the jobs of a workflow here as a GitHub-hosted runner runs
// them: each job in a workspace of its own (a copy of the caller's
// repository), each step's script as a file under the shell it declares,
// its env evaluated, $GITHUB_OUTPUT, $GITHUB_PATH and $GITHUB_STEP_SUMMARY
// as files, later steps skipped after one fails but for those whose if
// holds !cancelled(); and the actions it uses replaced by what they do.
type ghRunner struct {
	t  *testing.T
	wf workflow
	// caller is the caller's repository, which actions/checkout copies.
	caller string
	// ctx holds the contexts: inputs.*, job.*, needs.*.
	ctx map[string]string
	// goBin is a folder with a go whose one command is the go install of
	// notesbench at the version the test expects: it copies bin to $GOBIN.
	goBin string
	// artifacts holds each artifact uploaded, by name: its folder.
	artifacts map[string]string
}

// ghStepResult is what one step did.
type ghStepResult struct {
	step           ghStep
	ran            bool
	err            error
	stdout, stderr string
	// summary and output are what the step wrote to $GITHUB_STEP_SUMMARY
	// and $GITHUB_OUTPUT.
	summary, output string
}

// outputs returns the outputs a step set, NAME=VALUE lines in $GITHUB_OUTPUT.
func (res ghStepResult) outputs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(res.output), "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("step %q: %q in $GITHUB_OUTPUT is not NAME=VALUE", res.step.Name, line)
		}
		out[k] = v
	}
	return out
}

// newGHRunner returns a runner of wf for a caller with the repository
// caller, the inputs given, and a go that installs bin when asked for
// notesbench at wantVersion.
func newGHRunner(t *testing.T, wf workflow, caller string, inputs map[string]string, bin, wantVersion string) *ghRunner {
	t.Helper()
	ctx := map[string]string{"job.workflow_sha": "0123456789abcdef0123456789abcdef01234567"}
	for name, in := range wf.On.WorkflowCall.Inputs {
		v, ok := inputs[name]
		if !ok {
			if in.Required {
				t.Fatalf("input %s is required", name)
			}
			v = fmt.Sprint(in.Default)
		}
		ctx["inputs."+name] = v
	}
	for name := range inputs {
		if _, ok := ctx["inputs."+name]; !ok {
			t.Fatalf("the workflow has no input %s", name)
		}
	}
	mod, err := os.ReadFile(repoRoot + "/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.Fields(strings.SplitN(string(mod), "\n", 2)[0])[1]
	goBin := t.TempDir()
	shim := fmt.Sprintf(`#!/bin/sh
if [ $# = 2 ] && [ "$1" = install ] && [ "$2" = %s ]; then
	mkdir -p "${GOBIN:?go install without GOBIN}" && exec cp %s "$GOBIN/notesbench"
fi
echo "go $*: not the go install of %s" >&2
exit 1
`, shell.Quote(module+"/cmd/notesbench@"+wantVersion), shell.Quote(bin), module+"/cmd/notesbench@"+wantVersion)
	if err := os.WriteFile(filepath.Join(goBin, "go"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return &ghRunner{t: t, wf: wf, caller: caller, ctx: ctx, goBin: goBin, artifacts: map[string]string{}}
}

// copyTree copies the regular files and folders under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// job runs the job called name with matrix values, and returns what each
// of its steps did and the workspace it ran in. The job's outputs go into
// the context as needs.NAME.outputs.*.
func (r *ghRunner) job(name string, matrix map[string]string) ([]ghStepResult, string) {
	t := r.t
	t.Helper()
	job, ok := r.wf.Jobs[name]
	if !ok {
		t.Fatalf("no job %s", name)
	}
	ws, temp := t.TempDir(), t.TempDir()
	ctx := maps.Clone(r.ctx)
	ctx["runner.temp"] = temp
	for k, v := range matrix {
		ctx["matrix."+k] = v
	}
	var added []string // what $GITHUB_PATH added, latest first
	var results []ghStepResult
	failed := false
	for i, st := range job.Steps {
		res := ghStepResult{step: st}
		if failed && !strings.Contains(st.If, "!cancelled()") && !strings.Contains(st.If, "always()") {
			results = append(results, res)
			continue
		}
		if st.If != "" && !strings.Contains(st.If, "!cancelled()") && !strings.Contains(st.If, "always()") {
			t.Fatalf("job %s, step %d: the test does not evaluate if: %s", name, i, st.If)
		}
		res.ran = true
		with := map[string]string{}
		for k, v := range st.With {
			with[k] = ghEval(t, v, ctx)
		}
		switch action, _, _ := strings.Cut(st.Uses, "@"); action {
		case "":
			res = r.run(job, st, ws, temp, ctx, &added, i)
			if st.ID != "" {
				for k, v := range res.outputs(t) {
					ctx["steps."+st.ID+".outputs."+k] = v
				}
			}
		case "actions/checkout":
			copyTree(t, r.caller, ws)
		case "actions/setup-go":
			// The Go the workflow sets up is the one notesbench builds with.
			mod, _ := os.ReadFile(repoRoot + "/go.mod")
			want := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(mod))[1]
			if with["go-version"] != want || with["cache"] != "false" {
				t.Errorf("job %s: setup-go with %v: want go-version %s (go.mod's), and cache false (the caller's repository has no go.sum of notesbench)", name, with, want)
			}
			added = append([]string{r.goBin}, added...)
		case "actions/upload-artifact":
			p := filepath.Join(ws, with["path"])
			if _, err := os.Stat(p); err != nil {
				if with["if-no-files-found"] != "ignore" {
					res.err = err
				}
				break
			}
			dir := t.TempDir()
			copyTree(t, filepath.Dir(p), dir)
			r.artifacts[with["name"]] = filepath.Join(dir, filepath.Base(p))
		case "actions/download-artifact":
			if with["merge-multiple"] != "true" {
				t.Fatalf("job %s: download-artifact without merge-multiple", name)
			}
			dst := with["path"]
			if !filepath.IsAbs(dst) {
				dst = filepath.Join(ws, dst)
			}
			os.MkdirAll(dst, 0o755)
			for _, art := range slices.Sorted(maps.Keys(r.artifacts)) {
				if ok, _ := path.Match(with["pattern"], art); ok {
					b, _ := os.ReadFile(r.artifacts[art])
					os.WriteFile(filepath.Join(dst, filepath.Base(r.artifacts[art])), b, 0o644)
				}
			}
		default:
			t.Fatalf("job %s: the test does not know what %s does", name, st.Uses)
		}
		failed = failed || res.err != nil
		results = append(results, res)
	}
	if !failed {
		for k, v := range job.Outputs {
			r.ctx["needs."+name+".outputs."+k] = ghEval(t, v, ctx)
		}
	}
	return results, ws
}

// run runs the script of step st as the runner does: written to a file,
// run by its shell's command line in the workspace, with the step's env.
func (r *ghRunner) run(job ghJob, st ghStep, ws, temp string, ctx map[string]string, added *[]string, i int) ghStepResult {
	t := r.t
	t.Helper()
	if strings.Contains(st.Run, "${{") {
		t.Fatalf("step %q: an expression in run: is pasted into the script (pass it through env:):\n%s", st.Name, st.Run)
	}
	shell := st.Shell
	if shell == "" {
		shell = cmp.Or(job.Defaults.Run.Shell, r.wf.Defaults.Run.Shell)
	}
	line, ok := ghShells[shell]
	if !ok {
		t.Fatalf("step %q: the test does not know how GitHub runs shell %q", st.Name, shell)
	}
	script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i))
	files := map[string]string{}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		files[f] = filepath.Join(temp, fmt.Sprintf("%s-%d", strings.ToLower(f), i))
		os.WriteFile(files[f], nil, 0o644)
	}
	if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := slices.Clone(line)
	argv[len(argv)-1] = script
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "RUNNER_TEMP="+temp, "GITHUB_WORKSPACE="+ws,
		"PATH="+strings.Join(append(slices.Clone(*added), os.Getenv("PATH")), string(os.PathListSeparator)))
	for f, p := range files {
		cmd.Env = append(cmd.Env, f+"="+p)
	}
	for k, v := range st.Env {
		cmd.Env = append(cmd.Env, k+"="+ghEval(t, v, ctx))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	res := ghStepResult{step: st, ran: true, err: cmd.Run(), stdout: stdout.String(), stderr: stderr.String()}
	b, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	res.summary = string(b)
	b, _ = os.ReadFile(files["GITHUB_OUTPUT"])
	res.output = string(b)
	b, _ = os.ReadFile(files["GITHUB_PATH"])
	for _, p := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if p != "" {
			*added = append([]string{p}, *added...)
		}
	}
	return res
}

// The reusable workflow, run here job by job as GitHub runs it: the plan
// lists the shards, each shard job installs notesbench at the workflow's
// commit and runs its shard of the command (split into words as xargs does:
// quotes hold, nothing is expanded), the merge job merges the artifacts
// into the run's result and puts its table in the step summary; and a
// merge against a baseline that differs fails its step, as a regression
// must fail the caller's run.
func TestGitHubActionsWorkflow(t *testing.T) {
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	var wf workflow
	readYAML(t, workflowPath, &wf)
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			if strings.Contains(st.Run, "${{") {
				t.Errorf("job %s, step %q: an expression in run: is pasted into the script as text (pass it through env:):\n%s", name, st.Name, st.Run)
			}
		}
	}
	inputs := wf.On.WorkflowCall.Inputs
	if !inputs["command"].Required || inputs["shards"].Type != "number" || inputs["version"].Default != "" {
		t.Fatalf("workflow inputs: %+v", inputs)
	}
	endToEnd(t)
	if testing.Short() {
		t.Skip("runs the workflow's steps with the binary")
	}
	bin := buildNotesbench(t)
	// The command quotes a word with a space and a $( ): --db makes the
	// folder it names.
	const dbs = "dbs $(touch pwned)"
	command := "race --clock virtual --seeds 1-5 --edits 8 --replications 0 --db '" + dbs + "'"
	words := []string{"race", "--clock", "virtual", "--seeds", "1-5", "--edits", "8", "--replications", "0"}
	caller := t.TempDir()
	os.Mkdir(filepath.Join(caller, "ci"), 0o755)
	record := exec.Command(bin, append(slices.Clone(words), "--update-baseline", filepath.Join(caller, "ci", "race.json"))...)
	if out, err := record.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want, err := exec.Command(bin, append(slices.Clone(words), "--format", "markdown")...).Output()
	if err != nil {
		t.Fatal(err)
	}

	r := newGHRunner(t, wf, caller, map[string]string{"command": command, "shards": "3", "baseline": "ci/race.json"}, bin, "0123456789abcdef0123456789abcdef01234567")
	plan, _ := r.job("plan", nil)
	if plan[0].err != nil || r.ctx["needs.plan.outputs.shards"] != "[1,2,3]" {
		t.Fatalf("plan: %v %s, shards %q", plan[0].err, plan[0].stderr, r.ctx["needs.plan.outputs.shards"])
	}
	if m := wf.Jobs["shard"].Strategy.Matrix["shard"]; m != "${{ fromJSON(needs.plan.outputs.shards) }}" {
		t.Fatalf("the shard matrix is %q", m)
	}
	var shards []int
	json.Unmarshal([]byte(r.ctx["needs.plan.outputs.shards"]), &shards)
	for _, k := range shards {
		steps, ws := r.job("shard", map[string]string{"shard": fmt.Sprint(k)})
		for _, res := range steps {
			if res.err != nil {
				t.Fatalf("shard %d, step %q: %v\n%s", k, res.step.Name, res.err, res.stderr)
			}
		}
		if entries, err := os.ReadDir(filepath.Join(ws, dbs)); err != nil || len(entries) == 0 {
			t.Errorf("shard %d: no databases in %q: the command's quoted word was split (%v)", k, dbs, err)
		}
		if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
			t.Errorf("shard %d: the command's $( ) ran", k)
		}
	}
	merge := func() ghStepResult {
		t.Helper()
		steps, _ := r.job("merge", nil)
		var res ghStepResult
		for _, s := range steps {
			if s.step.Name == "merge" {
				res = s
			} else if s.err != nil {
				t.Fatalf("merge job, step %q: %v\n%s", s.step.Name, s.err, s.stderr)
			}
		}
		if !res.ran {
			t.Fatal("the merge step did not run")
		}
		return res
	}
	res := merge()
	if res.err != nil {
		t.Fatalf("merge: %v\n%s", res.err, res.stderr)
	}
	if res.stdout != string(want) || res.summary != string(want) {
		t.Errorf("the merged result\n%s\nand the step summary\n%s\nare not the run's\n%s", res.stdout, res.summary, want)
	}
	if _, ok := r.artifacts["notesbench-merged"]; !ok {
		t.Error("no notesbench-merged artifact")
	}

	// A baseline that differs: the merge step fails, its table still in the
	// summary, the merged result still uploaded.
	// (Edited as text: the baseline's parameters are compared as written.)
	b, _ := os.ReadFile(filepath.Join(caller, "ci", "race.json"))
	reapply := regexp.MustCompile(`("policy": "reapply",\s*"lost": )0,`)
	if !reapply.Match(b) {
		t.Fatalf("no note/reapply row with 0 lost in the baseline:\n%s", b)
	}
	os.WriteFile(filepath.Join(caller, "ci", "race.json"), reapply.ReplaceAll(b, []byte("${1}3,")), 0o644)
	delete(r.artifacts, "notesbench-merged")
	res = merge()
	if res.err == nil || !strings.Contains(res.stderr, "rows[1].lost: baseline 3, now 0") {
		t.Errorf("a merge against a baseline that differs: the step exits with %v, stderr %q", res.err, res.stderr)
	}
	if res.summary != string(want) {
		t.Errorf("the step summary of the regression:\n%s", res.summary)
	}
	if _, ok := r.artifacts["notesbench-merged"]; !ok {
		t.Error("no notesbench-merged artifact after the regression")
	}

	// The version input, when given, is the version installed; where GitHub
	// sets no job.workflow_sha (Enterprise Server) and none is given, the
	// install says so.
	install := func(r *ghRunner, job string) ghStepResult {
		t.Helper()
		steps := wf.Jobs[job].Steps
		i := slices.IndexFunc(steps, func(st ghStep) bool { return strings.Contains(st.Run, "go install") })
		if i < 0 {
			t.Fatalf("job %s installs no notesbench", job)
		}
		r.wf.Jobs = map[string]ghJob{job: {Steps: steps[:i+1]}} // the job up to the install
		ran, _ := r.job(job, map[string]string{"shard": "1"})
		return ran[i]
	}
	for _, job := range []string{"shard", "merge"} {
		r = newGHRunner(t, wf, caller, map[string]string{"command": command, "version": "v1.2.3"}, bin, "v1.2.3")
		if res := install(r, job); res.err != nil {
			t.Errorf("job %s: with version v1.2.3: %v\n%s", job, res.err, res.stderr)
		}
		r = newGHRunner(t, wf, caller, map[string]string{"command": command}, bin, "")
		r.ctx["job.workflow_sha"] = ""
		if res := install(r, job); res.err == nil || !strings.Contains(res.stderr, "NOTESBENCH_VERSION: give the version input: this GitHub sets no job.workflow_sha") {
			t.Errorf("job %s: with no version: %v\n%s", job, res.err, res.stderr)
		}
	}
}
