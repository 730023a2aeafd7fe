//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository's root, from this package's folder, where its
// tests run.
const repoRoot = "../.."

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

// k8sContainer is the part of a container the deploy files set.
type k8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom struct {
			SecretKeyRef struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe struct {
		TCPSocket struct {
			Port string `yaml:"port"`
		} `yaml:"tcpSocket"`
	} `yaml:"readinessProbe"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
	Resources map[string]map[string]string `yaml:"resources"`
}

// k8sPod is the part of a pod's spec the deploy files set.
type k8sPod struct {
	RestartPolicy   string `yaml:"restartPolicy"`
	SecurityContext struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
		RunAsUser    *int `yaml:"runAsUser"`
		RunAsGroup   *int `yaml:"runAsGroup"`
		FSGroup      *int `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	Containers []k8sContainer `yaml:"containers"`
	Volumes    []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
		Secret struct {
			SecretName string `yaml:"secretName"`
		} `yaml:"secret"`
	} `yaml:"volumes"`
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
			Spec k8sPod `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// baseImage is what the test knows of a base image: the executables in it
// and the user it runs as. A base image it does not know fails the test:
// add it here with what it holds.
type baseImage struct {
	executables []string
	uid         int
}

var baseImages = map[string]baseImage{
	// Certificates, time zones, /etc/passwd: nothing to run.
	"gcr.io/distroless/static-debian12:nonroot": {uid: 65532},
	// The same with a busybox: its shell and applets under /busybox.
	"gcr.io/distroless/static-debian12:debug-nonroot": {executables: []string{"/busybox/sh", "/busybox/busybox"}, uid: 65532},
}

// image is the final stage of a Dockerfile, as far as a container started
// from it is concerned.
type image struct {
	base        string
	executables []string // what the base holds and what the stage copies in
	entrypoint  []string
	uid         int
}

// readDockerfile reads the final stage of the Dockerfile at path: its base
// image, the files it copies in and its entrypoint (exec form).
func readDockerfile(t *testing.T, path string) image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var img image
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			img = image{base: f[1]} // each stage starts anew: the last one is the image
		case "COPY", "ADD":
			var paths []string
			for _, a := range f[1:] {
				if !strings.HasPrefix(a, "--") {
					paths = append(paths, a)
				}
			}
			if len(paths) == 2 && !strings.HasSuffix(paths[1], "/") {
				img.executables = append(img.executables, paths[1])
			} else if len(paths) >= 2 {
				for _, src := range paths[:len(paths)-1] {
					img.executables = append(img.executables, filepath.Join(paths[len(paths)-1], filepath.Base(src)))
				}
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(strings.TrimSpace(line[len(f[0]):])), &img.entrypoint); err != nil {
				t.Fatalf("%s: ENTRYPOINT is not in exec form: %s", path, line)
			}
		case "USER":
			t.Fatalf("%s: USER %s: the test knows the base image's user only", path, f[1])
		}
	}
	base, ok := baseImages[img.base]
	if !ok {
		t.Fatalf("%s: the final stage is FROM %s, an image whose executables the test does not know", path, img.base)
	}
	img.executables = append(img.executables, base.executables...)
	img.uid = base.uid
	return img
}

// checkRuns says why a container of job cannot start in img, or "" when it
// can: what it calls exists there, and it runs as the image's user with the
// volume writable to it.
func checkRuns(job k8sJob, c k8sContainer, img image) string {
	return checkPod(job.Metadata.Name, job.Spec.Template.Spec, c, img)
}

// checkPod is checkRuns for a container c of pod, named name.
func checkPod(name string, pod k8sPod, c k8sContainer, img image) string {
	exe := img.entrypoint
	if len(c.Command) > 0 {
		exe = c.Command
	}
	if len(exe) == 0 || !slices.Contains(img.executables, exe[0]) {
		return fmt.Sprintf("container %s calls %q, which %s does not hold (it holds %q)", c.Name, exe, img.base, img.executables)
	}
	sc := pod.SecurityContext
	if !sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != img.uid {
		return fmt.Sprintf("job %s does not run as the image's user %d (runAsNonRoot, runAsUser)", name, img.uid)
	}
	writable := false
	for _, m := range c.VolumeMounts {
		writable = writable || !m.ReadOnly
	}
	if writable && (sc.FSGroup == nil || sc.RunAsGroup != nil && *sc.FSGroup != *sc.RunAsGroup) {
		return fmt.Sprintf("job %s mounts a volume its user cannot write: no fsGroup of its group", name)
	}
	return ""
}

// kubeExpand expands $(VAR) in s from env as the kubelet expands a
// container's command and args: $$ is $, and a reference to a variable not
// in env stays as written.
func kubeExpand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// The kubelet's expansion, on the cases its own tests name.
func TestKubeExpand(t *testing.T) {
	env := map[string]string{"A": "1", "B": "two"}
	for in, want := range map[string]string{
		"$(A)/$(B)": "1/two", "x$(A)y": "x1y", "$$(A)": "$(A)", "$(C)": "$(C)", "$(A": "$(A", "$A": "$A", "a$": "a$", "$$": "$",
	} {
		if got := kubeExpand(in, env); got != want {
			t.Errorf("kubeExpand(%q) = %q, want %q", in, got, want)
		}
	}
}

// kubeRun runs container c of a pod as the kubelet would, without a shell:
// its command (or the image's entrypoint) with its args, $(VAR) expanded
// from env, with the executable img holds replaced by bin and each volume
// mount path by a folder under volumes. edit changes the args before they
// run. It returns stdout, and fails the test on an error.
func kubeRun(t *testing.T, c k8sContainer, img image, bin, volumes string, env map[string]string, edit func([]string) []string) string {
	t.Helper()
	argv := edit(kubeArgs(t, c, img, volumes, env))
	cmd := exec.Command(bin, argv...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("container %s: notesbench %q: %v\n%s", c.Name, argv, err, stderr.String())
	}
	return stdout.String()
}

// kubeArgs returns the arguments container c of a pod runs its executable
// with, as the kubelet makes them (see kubeRun), without the executable.
func kubeArgs(t *testing.T, c k8sContainer, img image, volumes string, env map[string]string) []string {
	t.Helper()
	argv := img.entrypoint
	if len(c.Command) > 0 {
		argv = c.Command
	}
	argv = append(slices.Clone(argv), c.Args...)
	for i, a := range argv {
		argv[i] = kubeExpand(a, env)
		if strings.Contains(argv[i], "$(") {
			t.Fatalf("container %s: %q is not expanded: no such variable in the pod", c.Name, a)
		}
		for _, m := range c.VolumeMounts {
			if argv[i] == m.MountPath || strings.HasPrefix(argv[i], m.MountPath+"/") {
				argv[i] = filepath.Join(volumes, m.Name) + argv[i][len(m.MountPath):]
			}
		}
	}
	return argv[1:]
}

// The image deploy/Dockerfile builds holds what the Kubernetes Jobs call and
// runs as the user their securityContext names; the Indexed Job and its
// merge step fit together; and their containers, run here as the kubelet
// would run them (no shell, $(VAR) expanded from the pod's environment) —
// one per completion index, then the merge — give the run's result.
func TestKubernetesDeploy(t *testing.T) {
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	var shards, merge k8sJob
	readYAML(t, repoRoot+"/deploy/kubernetes/shards.yaml", &shards)
	readYAML(t, repoRoot+"/deploy/kubernetes/merge.yaml", &merge)
	var pvc map[string]any
	readYAML(t, repoRoot+"/deploy/kubernetes/results-pvc.yaml", &pvc)
	img := readDockerfile(t, repoRoot+"/deploy/Dockerfile")
	for _, job := range []k8sJob{shards, merge} {
		for _, c := range job.Spec.Template.Spec.Containers {
			if why := checkRuns(job, c, img); why != "" {
				t.Error(why)
			}
		}
	}
	// The check can fail: a shell on this image, as the Jobs had.
	sh := shards.Spec.Template.Spec.Containers[0]
	sh.Command = []string{"/bin/sh", "-c"}
	if checkRuns(shards, sh, img) == "" {
		t.Errorf("a container calling /bin/sh passes on %s", img.base)
	}

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
	endToEnd(t)
	if testing.Short() {
		t.Skip("runs the Jobs' commands with the binary")
	}

	bin := buildNotesbench(t)
	volumes := t.TempDir()
	// A fresh ext4 volume holds lost+found.
	if err := os.MkdirAll(filepath.Join(volumes, "results", "lost+found"), 0o755); err != nil {
		t.Fatal(err)
	}
	// On a few seeds, so that the test stays short.
	const seeds = "1-6"
	fewer := func(args []string) []string {
		i := slices.Index(args, "--seeds")
		if i < 0 || args[i+1] != "1-200" {
			t.Fatalf("the run is not on --seeds 1-200: %q", args)
		}
		return append(slices.Concat(args[:i+1], []string{seeds}, args[i+2:]), "--edits", "8")
	}
	for i := range spec.Completions {
		// The Job controller adds the pod's index to its environment.
		env := map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i)}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		kubeRun(t, c, img, bin, volumes, env, fewer)
	}
	got := kubeRun(t, merge.Spec.Template.Spec.Containers[0], img, bin, volumes, nil, slices.Clone[[]string])
	want := kubeRun(t, k8sContainer{Name: "whole", Args: []string{"race", "--clock", "virtual", "--seeds", seeds, "--edits", "8", "--format", "markdown"}},
		img, bin, volumes, nil, slices.Clone[[]string])
	if got != want {
		t.Errorf("the merged result\n%s\nis not the run's\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(volumes, "results", "merged.json")); err != nil {
		t.Error(err)
	}
	// The merge Job run again (backoffLimit, or by hand) merges the same.
	if again := kubeRun(t, merge.Spec.Template.Spec.Containers[0], img, bin, volumes, nil, slices.Clone[[]string]); again != want {
		t.Errorf("the merge run again gives\n%s", again)
	}
}

// dockerignored reports whether the .dockerignore patterns exclude path (a
// slash-separated path from the build context's root), as docker matches
// them: a pattern excludes a path when it matches the path or one of its
// parent folders; * is any run of characters but /, ** any run of folders.
func dockerignored(t *testing.T, patterns []string, path string) bool {
	t.Helper()
	ignored := false
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") {
			t.Fatalf(".dockerignore: the test does not match exceptions (%s)", p)
		}
		p = strings.TrimPrefix(filepath.Clean(p), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(p); i++ {
			switch {
			case strings.HasPrefix(p[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(p[i:], "**"):
				re.WriteString(".*")
				i++
			case p[i] == '*':
				re.WriteString("[^/]*")
			case p[i] == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		re.WriteString("$")
		rx := regexp.MustCompile(re.String())
		for q := path; q != "." && q != "/"; q = filepath.Dir(q) {
			if rx.MatchString(q) {
				ignored = true
			}
		}
	}
	return ignored
}

// The build context of deploy/Dockerfile is the repository's root, and its
// .dockerignore keeps the history and every build output out of it, and
// nothing the build reads: the sources and embedded files of every package
// of the module notesbench is built from, go.mod and go.sum.
func TestDockerignore(t *testing.T) {
	b, err := os.ReadFile(repoRoot + "/deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "docker build -f deploy/Dockerfile") || !strings.Contains(string(b), " .\n") {
		t.Fatal("deploy/Dockerfile does not say its build context is the repository's root")
	}
	if _, err := os.Stat(repoRoot + "/deploy/Dockerfile.dockerignore"); err == nil {
		t.Fatal("deploy/Dockerfile.dockerignore would replace the root .dockerignore")
	}
	b, err = os.ReadFile(repoRoot + "/.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	for _, out := range []string{".git", ".git/objects/pack/x.pack", "notesbench", "cmd/notesbench/notesbench", "bin/notesbench", "cmd/notesbench/notesbench.test", "cpu.prof", "notesbench.db"} {
		if !dockerignored(t, patterns, out) {
			t.Errorf(".dockerignore sends %s into the build", out)
		}
	}
	out, err := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`,
		".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, _ := filepath.Abs(repoRoot)
	needed := []string{"go.mod", "go.sum"}
	for _, f := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		needed = append(needed, filepath.ToSlash(rel))
	}
	if len(needed) < 50 {
		t.Fatalf("the build reads only %q", needed)
	}
	for _, f := range needed {
		if dockerignored(t, patterns, f) {
			t.Errorf(".dockerignore leaves out %s, which the build reads", f)
		}
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
