package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/internal/cli"
)

// envelope are the keys every JSON result of notesbench holds, whatever the
// command and its flags: one envelope.
var envelope = []string{"experiment", "config", "rows", "warnings", "notesbench_version"}

// keysOf returns the keys of a JSON object, and of its config, sorted.
func keysOf(t *testing.T, what string, data []byte) (top, config []string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, data)
	}
	for k := range obj {
		top = append(top, k)
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(obj["config"], &cfg); err == nil {
		for k := range cfg {
			config = append(config, k)
		}
	}
	slices.Sort(top)
	slices.Sort(config)
	return top, config
}

// Every command's JSON holds the one envelope, with the command's name as
// its experiment; and a command's keys, its config's included, are the same
// whatever its flags: no key comes and goes with a default.
func TestOneEnvelope(t *testing.T) {
	h := recordHistory(t)
	runs := map[string][][]string{}
	for _, args := range smallRuns {
		other := append(slices.Clone(args), "--seeds", "2")
		switch args[0] {
		case "race", "tabs":
			other = append(slices.Clone(args), "--timing", "published-fit", "--db", t.TempDir())
		case "fast":
			other = append(slices.Clone(args), "--pause", "1ms", "--oversleep", "1ms")
		case "create":
			other = append(slices.Clone(args), "--order", "key-first")
		case "validate", "bench":
			other = args
		}
		runs[args[0]] = [][]string{args, other}
	}
	runs["validate payload"] = [][]string{{"validate", "list_note_tabs", "-"}}
	runs["check"] = [][]string{{"check", h}, {"check", "--timeout", "1ns", h}}
	runs["conform"] = [][]string{{"conform", "--target", "embedded"}}
	runs["reproduce"] = [][]string{{"reproduce", "--only", "validate", "--replications", "1"}, {"reproduce", "--only", "outline,validate", "--replications", "1"}}
	for name, variants := range runs {
		var first, firstConfig []string
		for i, args := range variants {
			var stdout, stderr bytes.Buffer
			stdin := strings.NewReader(`{"note_id":"n"}`)
			code := run(append(slices.Clone(args), "--format", "json"), stdin, &stdout, &stderr)
			if code != 0 && code != cli.ExitUnknown {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			top, config := keysOf(t, name, stdout.Bytes())
			for _, k := range envelope {
				if !slices.Contains(top, k) {
					t.Errorf("%s: no %q in %q", name, k, top)
				}
			}
			var head struct {
				Experiment string `json:"experiment"`
			}
			json.Unmarshal(stdout.Bytes(), &head)
			if want := strings.Fields(name)[0]; head.Experiment != want {
				t.Errorf("%s: experiment %q, want %q", name, head.Experiment, want)
			}
			if i == 0 {
				first, firstConfig = top, config
				continue
			}
			if !slices.Equal(top, first) || !slices.Equal(config, firstConfig) {
				t.Errorf("%s: the keys differ with other flags:\n%v %v\n%v %v", name, first, firstConfig, top, config)
			}
		}
	}

	// crash's too: in-process, its children this test binary.
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	o := &crashOptions{app: a, kills: 1, synchronous: "normal", seed: 1, life: "5ms-10ms", timeout: time.Minute,
		format: formatFlag{"json", withCSV}, db: t.TempDir(), childEnv: childEnv}
	if err := runCrash(context.Background(), o); err != nil {
		t.Fatalf("crash: %v\n%s", err, stderr.String())
	}
	top, _ := keysOf(t, "crash", stdout.Bytes())
	for _, k := range envelope {
		if !slices.Contains(top, k) {
			t.Errorf("crash: no %q in %q", k, top)
		}
	}
}
