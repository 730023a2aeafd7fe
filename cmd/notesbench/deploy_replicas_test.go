//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/notesbench/notesbench/internal/pgtest"
)

// k8sDeployment is the part of a Kubernetes Deployment the deploy files set.
type k8sDeployment struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec k8sPod `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// k8sService is the part of a Kubernetes Service the deploy files set.
type k8sService struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

// argAfter returns the argument after flag in args, failing t without one.
func argAfter(t *testing.T, args []string, flag string) string {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 == len(args) {
		t.Fatalf("no %s in %q", flag, args)
	}
	return args[i+1]
}

// withArg returns args with the value after flag replaced by value.
func withArg(t *testing.T, args []string, flag, value string) []string {
	t.Helper()
	argAfter(t, args, flag)
	out := slices.Clone(args)
	out[slices.Index(out, flag)+1] = value
	return out
}

// The replicas of deploy/kubernetes: a Deployment of notesbench serve on one
// PostgreSQL schema behind a Service, and an Indexed Job of race shards
// pointed at it. The files fit together (the Service selects the
// Deployment's pods and reaches their port, the shards' target is the
// Service, its name a Host the replicas answer to, the token and the
// database come from the Secrets named), the containers can start in the
// image, and their commands, run here as the kubelet would run them (no
// shell, $(VAR) expanded, each volume a folder), give a run that loses
// nothing under note/reapply, merged by merge.yaml, on the stateless
// protocol, across every replica.
func TestKubernetesReplicas(t *testing.T) {
	endToEnd(t)
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	var dep k8sDeployment
	var svc k8sService
	var shards, merge k8sJob
	readYAML(t, repoRoot+"/deploy/kubernetes/serve-replicas.yaml", &dep)
	readYAML(t, repoRoot+"/deploy/kubernetes/serve-service.yaml", &svc)
	readYAML(t, repoRoot+"/deploy/kubernetes/shards-replicas.yaml", &shards)
	readYAML(t, repoRoot+"/deploy/kubernetes/merge.yaml", &merge)
	img := readDockerfile(t, repoRoot+"/deploy/Dockerfile")

	pod := dep.Spec.Template.Spec
	if dep.Kind != "Deployment" || dep.Spec.Replicas < 2 || len(pod.Containers) != 1 {
		t.Fatalf("serve-replicas.yaml: %+v", dep)
	}
	serveC := pod.Containers[0]
	if why := checkPod(dep.Metadata.Name, pod, serveC, img); why != "" {
		t.Error(why)
	}
	for k, v := range dep.Spec.Selector.MatchLabels {
		if dep.Spec.Template.Metadata.Labels[k] != v || svc.Spec.Selector[k] != v {
			t.Errorf("label %s=%s: the Deployment's pods %v, the Service's selector %v", k, v, dep.Spec.Template.Metadata.Labels, svc.Spec.Selector)
		}
	}
	if svc.Kind != "Service" || len(svc.Spec.Ports) != 1 || len(serveC.Ports) != 1 || svc.Spec.Ports[0].TargetPort != serveC.Ports[0].Name ||
		serveC.ReadinessProbe.TCPSocket.Port != serveC.Ports[0].Name {
		t.Fatalf("serve-service.yaml does not reach the replicas' port: %+v, %+v", svc, serveC.Ports)
	}
	serveArgs := kubeArgs(t, serveC, img, t.TempDir(), map[string]string{"POSTGRES_URL": "postgres://x"})
	if _, port, _ := strings.Cut(argAfter(t, serveArgs, "--http"), ":"); port != strconv.Itoa(serveC.Ports[0].ContainerPort) {
		t.Errorf("serve listens on %s, its container port is %d", argAfter(t, serveArgs, "--http"), serveC.Ports[0].ContainerPort)
	}
	sh := shards.Spec.Template.Spec.Containers[0]
	if why := checkRuns(shards, sh, img); why != "" {
		t.Error(why)
	}
	target, err := url.Parse(argAfter(t, sh.Args, "--target"))
	if err != nil || target.Host != fmt.Sprintf("%s:%d", svc.Metadata.Name, svc.Spec.Ports[0].Port) {
		t.Errorf("the shards' target %v is not the Service %s:%d", target, svc.Metadata.Name, svc.Spec.Ports[0].Port)
	}
	if argAfter(t, serveArgs, "--allow-host") != svc.Metadata.Name {
		t.Errorf("the replicas answer to --allow-host %s, the clients name the Service %s", argAfter(t, serveArgs, "--allow-host"), svc.Metadata.Name)
	}
	if argAfter(t, serveC.Args, "--token-file") != argAfter(t, sh.Args, "--token-file") {
		t.Errorf("the replicas read the token from %s, the shards from %s", argAfter(t, serveC.Args, "--token-file"), argAfter(t, sh.Args, "--token-file"))
	}
	if shards.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != merge.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName {
		t.Error("the shards and the merge do not share the volume")
	}
	if testing.Short() {
		t.Skip("runs the replicas, the shards and the merge with the binary, on PostgreSQL")
	}

	pgURL := pgtest.URL(t)
	schema := argAfter(t, serveArgs, "--schema")
	t.Cleanup(func() {
		if conn, err := pgx.Connect(context.Background(), pgURL); err == nil {
			conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			conn.Close(context.Background())
		}
	})
	bin := buildNotesbench(t)
	volumes := t.TempDir()
	// The Secret of the token, mounted as the kubelet mounts it: a file per key.
	if err := os.MkdirAll(filepath.Join(volumes, "token"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(volumes, "token", "token"), []byte("a-token-of-the-cluster\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(volumes, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range serveC.Env {
		if e.ValueFrom.SecretKeyRef.Name != "notesbench-postgres" || e.ValueFrom.SecretKeyRef.Key != "url" {
			t.Fatalf("env %s: %+v", e.Name, e)
		}
		env[e.Name] = pgURL
	}
	var urls []string
	for range dep.Spec.Replicas {
		// An ephemeral loopback port in place of the pod's own address.
		args := withArg(t, kubeArgs(t, serveC, img, volumes, env), "--http", "127.0.0.1:0")
		u, _ := startServe(t, bin, args[1:]...)
		urls = append(urls, u)
	}
	// The Service balances over the replicas: here notesbench does, given
	// their URLs.
	for i := range shards.Spec.Completions {
		shardEnv := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)}
		for _, e := range sh.Env {
			shardEnv[e.Name] = e.Value
		}
		kubeRun(t, sh, img, bin, volumes, shardEnv, func(args []string) []string {
			args = withArg(t, withArg(t, args, "--target", strings.Join(urls, ",")), "--seeds", "1-4")
			return append(args, "--edits", "6", "--claude-think", "0-4ms", "--human-think", "0-4ms", "--pause", "0")
		})
	}
	out := kubeRun(t, merge.Spec.Template.Spec.Containers[0], img, bin, volumes, nil, func(args []string) []string {
		return withArg(t, args, "--format", "json")
	})
	var rec struct {
		Config struct {
			Protocol string `json:"protocol"`
			Replicas int    `json:"replicas"`
		} `json:"config"`
		Rows []struct {
			Guard    string `json:"guard"`
			Policy   string `json:"policy"`
			Lost     int    `json:"lost"`
			Intended int    `json:"intended"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec.Config.Protocol != "2026-07-28" || rec.Config.Replicas != dep.Spec.Replicas || len(rec.Rows) != 2 {
		t.Fatalf("merged: %s", out)
	}
	for _, r := range rec.Rows {
		if r.Intended != 4*2*6 || r.Policy == "reapply" && r.Lost != 0 {
			t.Errorf("merged row %+v", r)
		}
	}
}
