//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// readYAML parses a deploy file into v, failing on a field v does not know.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// k8sJob is the part of a Kubernetes Job the deploy files set.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		BackoffLimit   int    `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
					Resources map[string]map[string]string `yaml:"resources"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// workflow is the part of a GitHub Actions workflow the deploy file sets.
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
	Jobs map[string]struct {
		Needs    any               `yaml:"needs"`
		RunsOn   string            `yaml:"runs-on"`
		Outputs  map[string]string `yaml:"outputs"`
		Strategy struct {
			FailFast bool           `yaml:"fail-fast"`
			Matrix   map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			ID   string         `yaml:"id"`
			Name string         `yaml:"name"`
			Uses string         `yaml:"uses"`
			With map[string]any `yaml:"with"`
			Run  string         `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// shell runs script with sh in dir, with env added, and fails the test on
// an error.
func shell(t *testing.T, dir, script string, env ...string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// The Kubernetes Indexed Job and its merge step parse, fit together, and
// their commands, run here as local processes — one per completion index,
// then the merge — give the run's result.
func TestKubernetesDeploy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	var shards, merge k8sJob
	readYAML(t, "../../deploy/kubernetes/shards.yaml", &shards)
	readYAML(t, "../../deploy/kubernetes/merge.yaml", &merge)
	var pvc map[string]any
	readYAML(t, "../../deploy/kubernetes/results-pvc.yaml", &pvc)
	spec := shards.Spec
	c := spec.Template.Spec.Containers[0]
	if shards.Kind != "Job" || spec.CompletionMode != "Indexed" || spec.Completions != spec.Parallelism || len(c.Env) != 1 ||
		c.Env[0].Name != "SHARDS" || c.Env[0].Value != fmt.Sprint(spec.Completions) || spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("shards.yaml: %+v", shards)
	}
	claim := pvc["metadata"].(map[string]any)["name"]
	if spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != claim || merge.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != claim {
		t.Errorf("the shards and the merge do not share the volume %v", claim)
	}

	dir := t.TempDir()
	bin := buildNotesbench(t)
	results := filepath.Join(dir, "results")
	os.Mkdir(results, 0o755)
	// The pods' commands, on a few seeds so that the test stays short.
	local := func(script string) string {
		script = strings.ReplaceAll(script, "exec notesbench ", "exec '"+bin+"' ")
		script = strings.ReplaceAll(script, "--seeds 1-200", "--seeds 1-6 --edits 8")
		return strings.ReplaceAll(script, "/results", results)
	}
	for i := range spec.Completions {
		shell(t, dir, local(c.Args[0]), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "SHARDS="+c.Env[0].Value)
	}
	got := shell(t, dir, local(merge.Spec.Template.Spec.Containers[0].Args[0]))
	want := shell(t, dir, "'"+bin+"' race --clock virtual --seeds 1-6 --edits 8 --format markdown")
	if got != want {
		t.Errorf("the merged result\n%s\nis not the run's\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(results, "merged.json")); err != nil {
		t.Error(err)
	}
}

// The GitHub Actions workflow parses, its matrix and steps fit together, and
// the commands of its steps, run here as local processes with its inputs,
// give the run's result and check it against the baseline.
func TestGitHubActionsDeploy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	var wf workflow
	readYAML(t, "../../deploy/github-actions/notesbench-shards.yml", &wf)
	for _, name := range []string{"plan", "shard", "merge"} {
		if _, ok := wf.Jobs[name]; !ok {
			t.Fatalf("no job %s", name)
		}
	}
	inputs := wf.On.WorkflowCall.Inputs
	if !inputs["command"].Required || inputs["shards"].Type != "number" || wf.Jobs["shard"].Strategy.Matrix["shard"] == nil {
		t.Fatalf("workflow: %+v", wf)
	}
	dir := t.TempDir()
	bin := buildNotesbench(t)
	command := "race --clock virtual --seeds 1-5 --edits 8 --replications 0"
	shards := "3"
	baseline := filepath.Join(dir, "baseline.json")
	shell(t, dir, "'"+bin+"' "+command+" --update-baseline '"+baseline+"' > /dev/null")
	expand := func(script, shard string) string {
		var keep []string
		for _, line := range strings.Split(script, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "go build") {
				continue // the binary is built already
			}
			keep = append(keep, line)
		}
		script = strings.Join(keep, "\n")
		for k, v := range map[string]string{
			"${{ inputs.command }}": command, "${{ inputs.shards }}": shards, "${{ matrix.shard }}": shard,
			"${{ inputs.baseline }}": baseline, "./notesbench": "'" + bin + "'",
		} {
			script = strings.ReplaceAll(script, k, v)
		}
		return script
	}
	plan := wf.Jobs["plan"].Steps[0].Run
	out := filepath.Join(dir, "github_output")
	shell(t, dir, expand(plan, ""), "GITHUB_OUTPUT="+out)
	if b, _ := os.ReadFile(out); strings.TrimSpace(string(b)) != "shards=[1,2,3]" {
		t.Fatalf("plan's output %q", b)
	}
	var run string
	for _, st := range wf.Jobs["shard"].Steps {
		if st.Run != "" {
			run = st.Run
		}
	}
	for k := 1; k <= 3; k++ {
		shell(t, dir, expand(run, fmt.Sprint(k)))
	}
	var mergeRun string
	for _, st := range wf.Jobs["merge"].Steps {
		if st.Run != "" {
			mergeRun = st.Run
		}
	}
	summary := filepath.Join(dir, "summary.md")
	got := shell(t, dir, expand(mergeRun, ""), "GITHUB_STEP_SUMMARY="+summary)
	want := shell(t, dir, "'"+bin+"' "+command+" --format markdown")
	if got != want {
		t.Errorf("the merged result\n%s\nis not the run's\n%s", got, want)
	}
	if b, _ := os.ReadFile(summary); string(b) != want {
		t.Error("the step summary does not hold the merged table")
	}
}

// gitFiles returns the files git tracks in the repository, or skips the test
// where there is no git or no repository.
func gitFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("no git repository to list: %v", err)
	}
	return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
}

// No build output is committed, and .gitignore covers every go build the
// README and the Makefile run: a clone carries sources only.
func TestNoBuildOutputsCommitted(t *testing.T) {
	for _, f := range gitFiles(t) {
		b := make([]byte, 4)
		fd, err := os.Open(filepath.Join("../..", f))
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		n, _ := fd.Read(b)
		fd.Close()
		if magic := string(b[:n]); magic == "\x7fELF" || magic == "\xcf\xfa\xed\xfe" || strings.HasPrefix(magic, "MZ") {
			t.Errorf("%s is a committed binary", f)
		}
	}
	// go build -o notesbench ./cmd/notesbench and go build ./cmd/notesbench at
	// the root, go build in cmd/notesbench, make build, go test -c.
	outputs := []string{"notesbench", "cmd/notesbench/notesbench", "bin/notesbench", "cmd/notesbench/notesbench.test", "cpu.prof"}
	out, err := exec.Command("git", append([]string{"-C", "../..", "check-ignore", "--no-index", "-v", "-n"}, outputs...)...).Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("git check-ignore: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// -n prints "::<tab>path" for a path no pattern ignores.
		if rule, path, _ := strings.Cut(line, "\t"); rule == "::" {
			t.Errorf(".gitignore does not cover %s", path)
		}
	}
}
