package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

func TestURLReachesAServer(t *testing.T) {
	conn, err := pgx.Connect(context.Background(), URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d %v", one, err)
	}
}

// A cluster's Stop stops the server and removes its folder.
func TestStopRemovesTheCluster(t *testing.T) {
	c := NewCluster(t)
	if _, err := os.Stat(c.Dir); err != nil {
		t.Fatalf("cluster folder: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Fatalf("folder %s after Stop: %v", c.Dir, err)
	}
	if conn, err := pgx.Connect(context.Background(), c.URL); err == nil {
		conn.Close(context.Background())
		t.Fatal("the server still takes connections after Stop")
	}
}

// A test binary that dies without stopping its cluster (a panic, a kill)
// leaves nothing behind: the watchdog stops the server and removes its folder.
func TestClusterDiesWithItsStarter(t *testing.T) {
	if os.Getenv("PGTEST_CRASH_CHILD") == "1" {
		c, err := Start(context.Background())
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println(c.Dir)
		fmt.Println(c.URL)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if testing.Short() {
		t.Skip("its child starts a PostgreSQL cluster of its own: make test runs it")
	}
	if _, err := BinDir(); err != nil {
		unavailable(t, err.Error())
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestClusterDiesWithItsStarter$")
	cmd.Env = append(os.Environ(), "PGTEST_CRASH_CHILD=1")
	out, _ := cmd.Output() // killed on purpose
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || strings.HasPrefix(lines[0], "error") {
		t.Fatalf("child: %q", out)
	}
	dir, url := lines[0], lines[1]
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := os.Stat(dir)
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still there 30 s after its starter died", dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if conn, err := pgx.Connect(context.Background(), url); err == nil {
		conn.Close(context.Background())
		t.Fatal("the server outlived its starter")
	}
}

// Without a server the test skips with one line saying why, and fails instead
// under NOTESBENCH_REQUIRE_POSTGRES=1.
func TestNoServerSkipsOrFails(t *testing.T) {
	if os.Getenv("PGTEST_NO_SERVER_CHILD") == "1" {
		URL(t)
		t.Log("URL returned without a server")
		return
	}
	for _, tc := range []struct {
		require string
		want    string
	}{
		{"", "--- SKIP: TestNoServerSkipsOrFails"},
		{"1", "--- FAIL: TestNoServerSkipsOrFails"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestNoServerSkipsOrFails$", "-test.v")
		cmd.Env = append(os.Environ(), "PGTEST_NO_SERVER_CHILD=1", EnvURL+"=", EnvBin+"=/nonexistent", EnvRequire+"="+tc.require)
		out, _ := cmd.CombinedOutput()
		reason := "NOTESBENCH_POSTGRES_URL is not set and no throwaway cluster could be started: no initdb and postgres in /nonexistent"
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), reason) {
			t.Errorf("require %q:\n%s", tc.require, out)
		}
	}
}
