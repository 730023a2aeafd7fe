package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesbench/notesbench/conform"
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/npmtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/serve"
	"github.com/notesbench/notesbench/store"
)

// installTS installs packages and the scripts of testdata/tspeers beside
// them, so that the scripts import them, and returns that folder.
func installTS(t *testing.T, packages ...string) string {
	t.Helper()
	dir := filepath.Dir(filepath.Dir(npmtest.Install(t, packages...)))
	for _, name := range []string{"client.mjs", "contract-server.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tspeers", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nodeT returns the command that runs a script of dir with node, its
// stderr on the test binary's.
func nodeT(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join(dir, args[0])}, args[1:]...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// contractServerT starts the TypeScript SDK's server of the contract, of
// SDK major version major, and returns its URL. Closing its stdin, when the
// test ends, stops it.
func contractServerT(t *testing.T, dir, major string) string {
	t.Helper()
	tools, err := filepath.Abs(filepath.Join("..", "contract", "tools_list.json"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := nodeT(t, dir, "contract-server.mjs", major, tools)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the TypeScript server: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the TypeScript server said %q: %v", line, err)
	}
	return url
}

// peerResult is what client.mjs saw.
type peerResult struct {
	Protocol string   `json:"protocol"`
	Tools    []string `json:"tools"`
	Read     struct {
		Data    string  `json:"data"`
		Version float64 `json:"version"`
	} `json:"read"`
	Written, Stale, Resent struct {
		IsError        bool    `json:"isError"`
		Error          string  `json:"error"`
		Version        float64 `json:"version"`
		CurrentVersion float64 `json:"current_version"`
		Replayed       bool    `json:"replayed"`
	}
	After struct {
		Data    string  `json:"data"`
		Version float64 `json:"version"`
	} `json:"after"`
}

// The TypeScript SDK's second major version against notesbench, both ways:
// its client talks to serve --http over 2026-07-28, pinned and negotiated
// (mode "auto", which runs the 2025-11-25 handshake instead when it cannot
// read serve's server/discover as a 2026-07-28 server's), and over
// 2025-11-25, its default (the tools listed, a read, a write, a stale write
// refused with a conflict, a resend replayed); conform passes against a
// server of the contract written with it (2026-07-28, stateless) and with
// the first major version (2025-11-25, sessions), and says which protocol
// each ran on.
func TestTypeScriptPeers(t *testing.T) {
	// Node processes: the race detector watches only the client, which
	// the other tests run under it. make test-large, in CI, runs this.
	testpass.Large(t, "installs and runs the TypeScript SDKs")
	t.Parallel()
	v2 := installTS(t, npmtest.TSClient, npmtest.TSServer)

	t.Run("client", func(t *testing.T) {
		st, err := store.Open(store.InMemory, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateNote(ctx, "note-1"); err != nil {
			t.Fatal(err)
		}
		srv, err := serve.New(ctx, st, serve.Options{})
		if err != nil {
			t.Fatal(err)
		}
		closeAtEnd(t, "server", srv)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- srv.ServeListener(sctx, ln) }()
		t.Cleanup(func() {
			stop()
			<-done
		})
		url := "http://" + ln.Addr().String() + serve.HTTPPath
		for _, tc := range []struct{ mode, want string }{{"2026-07-28", "2026-07-28"}, {"auto", "2026-07-28"}, {"default", "2025-11-25"}} {
			out, err := nodeT(t, v2, "client.mjs", url, tc.mode, "note-1", "ts-"+tc.mode).Output()
			if err != nil {
				t.Fatalf("%s: %v", tc.mode, err)
			}
			var r peerResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%s: %v: %s", tc.mode, err, out)
			}
			line := "ts peer ts-" + tc.mode
			switch {
			case r.Protocol != tc.want || len(r.Tools) != 7:
				t.Errorf("%s: protocol %s, tools %v", tc.mode, r.Protocol, r.Tools)
			case r.Written.IsError || r.Written.Version != r.Read.Version+1:
				t.Errorf("%s: the write: %+v after a read at %v", tc.mode, r.Written, r.Read.Version)
			case !r.Stale.IsError || r.Stale.Error != contract.ErrVersionConflict || r.Stale.CurrentVersion != r.Written.Version:
				t.Errorf("%s: the stale write: %+v", tc.mode, r.Stale)
			case r.Resent.IsError || !r.Resent.Replayed || r.Resent.Version != r.Written.Version:
				t.Errorf("%s: the resend: %+v", tc.mode, r.Resent)
			case strings.Count(r.After.Data, line) != 1 || r.After.Version != r.Written.Version:
				t.Errorf("%s: written once? %+v", tc.mode, r.After)
			}
		}
	})

	servers := []struct{ name, dir, major, protocol string }{
		{"server 2.x", v2, "2", "2026-07-28"},
		{"server 1.x", installTS(t, npmtest.TSSDK1), "1", "2025-11-25"},
	}
	for _, tc := range servers {
		t.Run(tc.name, func(t *testing.T) {
			tg := dialT(t, specT(t, contractServerT(t, tc.dir, tc.major)), Options{LenientSchemas: true})
			rep, err := conform.Run(ctx, tg, conform.Options{Writers: 4})
			if err != nil {
				t.Fatal(err)
			}
			got := outcomes(rep)
			if rep.Protocol != tc.protocol || rep.Failed != 0 || got["stale version"] != results.ConformPass || got["same-key resend"] != results.ConformPass ||
				got["concurrent writers"] != results.ConformPass || got["no expected_version"] != results.ConformPass {
				t.Errorf("protocol %s, %d passed, %d failed: %+v", rep.Protocol, rep.Passed, rep.Failed, rep.Checks)
			}
		})
	}
}
