package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/internal/testpass"
)

// tsSDK is the MCP TypeScript SDK the TypeScript test clients are written
// with, at the version the tests install.
const tsSDK = "@modelcontextprotocol/sdk@1.32.2"

// The three clients, written with the MCP TypeScript SDK
// (testdata/agents/agent.mjs), each against serve --person --history over
// HTTP, judged by check.
func TestAgentsTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs the TypeScript SDK")
	}
	// The clients are node processes and serve is a child built
	// without the detector, which would watch none of their work
	// (serve's person beside a client runs under it in serve's own
	// tests). make test-large, in CI, runs this.
	testpass.Large(t, "installs and runs the TypeScript SDK")
	t.Parallel() // most of its time is waiting on child processes: it runs beside the other large tests
	bin := buildNotesbench(t)
	root := filepath.Dir(filepath.Dir(npmtest.Install(t, tsSDK)))
	script, err := os.ReadFile(filepath.Join("testdata", "agents", "agent.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(root, "agent.mjs") // beside node_modules, where node finds the SDK
	if err := os.WriteFile(agent, script, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []agentPolicy{reapply, refresh, newKey} {
		t.Run(string(p), func(t *testing.T) {
			name := "ts-" + string(p)
			run, out := runAgent(t, bin, func(url string) agentRun { return tsAgent(t, agent, url, name, p) })
			expectVerdict(t, name+" 1.0.0", run, out)
		})
	}
}

// tsAgent runs the TypeScript client until it is done.
func tsAgent(t *testing.T, script, url, name string, policy agentPolicy) agentRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, url, name, string(policy), strconv.Itoa(agentEdits))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s%s", name, err, out, stderr)
	}
	var r struct {
		Drops int `json:"drops"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
	return agentRun{name: name, policy: policy, drops: r.Drops}
}
