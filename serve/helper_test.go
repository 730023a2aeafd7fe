package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/store"
)

// The test binary doubles as a server in a process of its own: started with
// helperDBEnv naming a database file, it serves that file over streamable
// HTTP on an ephemeral loopback port, prints the URL on stdout, and serves
// until its stdin closes. helperFDEnv lowers its limit of open files first;
// helperConnsEnv sets Options.MaxConns. Its warnings go to stderr.
const (
	helperDBEnv    = "NOTESBENCH_SERVE_TEST_DB"
	helperFDEnv    = "NOTESBENCH_SERVE_TEST_NOFILE"
	helperConnsEnv = "NOTESBENCH_SERVE_TEST_CONNS"
)

func helperServer() int {
	if n, err := strconv.ParseUint(os.Getenv(helperFDEnv), 10, 64); err == nil {
		if err := setNoFile(n); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
	}
	st, err := store.Open(os.Getenv(helperDBEnv), store.Options{QueueWrites: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	ctx := context.Background()
	if err := st.CreateNote(ctx, "note-1"); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	conns, _ := strconv.Atoi(os.Getenv(helperConnsEnv))
	srv, err := New(ctx, st, Options{MaxConns: conns, Warn: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	fmt.Println("http://" + ln.Addr().String() + HTTPPath)
	sctx, stop := context.WithCancel(ctx)
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n') // EOF when the parent goes
		stop()
	}()
	if err := srv.ServeListener(sctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// recordLog records the served run of variant v, on the clock of the time
// since start, into a new history at path.
func recordLog(t *testing.T, path string, v contract.Variant, start time.Time) *history.Recorder {
	t.Helper()
	log, err := history.CreateLog(path, history.Header{Experiment: history.ExperimentServe})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := history.Record(log, history.RunHeader{Run: "serve", Variant: v}, func() int64 { return int64(time.Since(start)) })
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
