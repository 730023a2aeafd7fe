//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

// actionPath is the composite action, where GitHub looks for one:
// uses: notesbench/notesbench@REF.
const actionPath = repoRoot + "/action.yml"

// ghAction is the part of a composite action the file sets.
type ghAction struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"runs"`
}

// actionWorkflow is a workflow of one job that checks the caller's
// repository out and runs the action's steps with inputs, as a runner
// runs a composite action: its inputs as the workflow's, its steps in the
// caller's workspace.
func actionWorkflow(t *testing.T, act ghAction) workflow {
	t.Helper()
	var wf workflow
	wf.On.WorkflowCall.Inputs = map[string]struct {
		Description string `yaml:"description"`
		Type        string `yaml:"type"`
		Required    bool   `yaml:"required"`
		Default     any    `yaml:"default"`
	}{}
	for name, in := range act.Inputs {
		wf.On.WorkflowCall.Inputs[name] = struct {
			Description string `yaml:"description"`
			Type        string `yaml:"type"`
			Required    bool   `yaml:"required"`
			Default     any    `yaml:"default"`
		}{in.Description, "string", in.Required, in.Default}
	}
	steps := append([]ghStep{{Uses: "actions/checkout@v5"}}, act.Runs.Steps...)
	wf.Jobs = map[string]ghJob{"audit": {Steps: steps}}
	return wf
}

// The composite action, its steps run here as a runner runs them against
// notesbench serve: notesbench installed with go install at the action's
// ref, the inputs passed through env and quoted (a target with a space and
// a $( ) runs as written, nothing expanded), the matrix in the job
// summary and the report folder as an output; found anomalies allowed
// pass; and a count worse than the baseline's fails the step, the matrix
// still in the summary.
func TestGitHubAction(t *testing.T) {
	endToEnd(t)
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	var act ghAction
	readYAML(t, actionPath, &act)
	if act.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q", act.Runs.Using)
	}
	for _, st := range act.Runs.Steps {
		if st.Run != "" && st.Shell != "bash" {
			t.Errorf("step %q runs under shell %q: a composite action's steps must say bash (pipefail)", st.Name, st.Shell)
		}
		if strings.Contains(st.Run, "${{") {
			t.Errorf("step %q: an expression in run: is pasted into the script as text (pass it through env:):\n%s", st.Name, st.Run)
		}
	}
	for _, name := range []string{"target", "profile", "baseline", "allow", "version"} {
		if _, ok := act.Inputs[name]; !ok {
			t.Errorf("no input %s", name)
		}
	}
	if !act.Inputs["target"].Required || act.Inputs["version"].Default != "" || act.Inputs["budget"].Default != "quick" {
		t.Errorf("inputs %+v", act.Inputs)
	}
	if testing.Short() {
		t.Skip("runs the action's steps with the binary")
	}
	bin := buildNotesbench(t)
	caller := t.TempDir()
	os.Mkdir(filepath.Join(caller, "ci"), 0o755)
	const db = "audit $(touch pwned).db"
	inputs := map[string]string{
		"target": "stdio:notesbench serve --guard none --db '" + db + "'",
		"allow":  "lost-update,stale-write",
		"budget": "smoke",
	}
	const ref = "v9.9.9"
	audit := func(inputs map[string]string) (ghStepResult, string) {
		t.Helper()
		r := newGHRunner(t, actionWorkflow(t, act), caller, inputs, bin, ref)
		r.ctx["github.action_ref"] = ref
		steps, ws := r.job("audit", nil)
		var res ghStepResult
		for _, s := range steps {
			if s.step.Name == "audit" {
				res = s
			} else if s.err != nil {
				t.Fatalf("step %q: %v\n%s", s.step.Name, s.err, s.stderr)
			}
		}
		if !res.ran {
			t.Fatal("the audit step did not run")
		}
		return res, ws
	}

	res, ws := audit(inputs)
	if res.err != nil {
		t.Fatalf("audit: %v\n%s", res.err, res.stderr)
	}
	if !strings.Contains(res.summary, "### Anomalies found (budget smoke)") || !strings.Contains(res.summary, "| lost update |") ||
		!strings.Contains(res.summary, "- verdict: passed: no anomaly found that --allow does not name (allowed: lost-update, stale-write)") {
		t.Errorf("the step summary holds no matrix:\n%s", res.summary)
	}
	if res.stdout != res.summary {
		t.Error("the summary is not what the audit printed")
	}
	if _, err := os.Stat(filepath.Join(ws, db)); err != nil {
		t.Errorf("no database %q: the target's quoted word was split (%v)", db, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Error("the target's $( ) ran")
	}
	dir := res.outputs(t)["report"]
	b, err := os.ReadFile(filepath.Join(dir, report.AuditJSON))
	if err != nil {
		t.Fatalf("the report output %q: %v", dir, err)
	}
	var a results.Audit
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	row, _ := a.Row(results.AnomalyLostUpdate)
	if c, ok := row.Cell("race none"); row.Mark != results.MarkAllowed || !ok || c.Count == nil || *c.Count == 0 {
		t.Fatalf("lost update without a version check: %+v", row)
	}

	// The same audit against a baseline that lost no line: a regression,
	// the step fails, the matrix is in the summary all the same.
	for i := range a.Matrix {
		if a.Matrix[i].Anomaly == results.AnomalyLostUpdate {
			zero := 0
			a.Matrix[i].Cells[0].Count = &zero
		}
	}
	b, _ = json.Marshal(a)
	os.WriteFile(filepath.Join(caller, "ci", "audit.json"), b, 0o644)
	inputs["baseline"] = "ci/audit.json"
	res, _ = audit(inputs)
	if res.err == nil || !strings.Contains(res.stderr, "lost update, race none: baseline 0, now ") {
		t.Errorf("an audit worse than its baseline: the step exits with %v, stderr %q", res.err, res.stderr)
	}
	if !strings.Contains(res.summary, "### Against the baseline ci/audit.json") || !strings.Contains(res.summary, "| lost update |") {
		t.Errorf("the step summary of the regression:\n%s", res.summary)
	}

	// The version input, when given, is the version installed; without it
	// and without an action ref (a local action), the install says so.
	install := func(inputs map[string]string, actionRef, want string) ghStepResult {
		t.Helper()
		steps := act.Runs.Steps
		i := slices.IndexFunc(steps, func(st ghStep) bool { return strings.Contains(st.Run, "go install") })
		if i < 0 {
			t.Fatal("the action installs no notesbench")
		}
		one := act
		one.Runs.Steps = steps[:i+1]
		r := newGHRunner(t, actionWorkflow(t, one), caller, inputs, bin, want)
		r.ctx["github.action_ref"] = actionRef
		ran, _ := r.job("audit", nil)
		return ran[len(ran)-1]
	}
	if res := install(map[string]string{"target": "x", "version": "v1.2.3"}, ref, "v1.2.3"); res.err != nil {
		t.Errorf("with version v1.2.3: %v\n%s", res.err, res.stderr)
	}
	if res := install(map[string]string{"target": "x"}, "", ""); res.err == nil || !strings.Contains(res.stderr, "NOTESBENCH_VERSION: give the version input: this runner sets no github.action_ref") {
		t.Errorf("with no version and no ref: %v\n%s", res.err, res.stderr)
	}
}
