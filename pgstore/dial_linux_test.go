package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/testpass"
)

// dialLoopback dials a listener on loopback with dialWaiting and returns
// both ends.
func dialLoopback(t *testing.T) (*waitingConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := dialWaiting(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { server.Close() })
	bc, ok := c.(*waitingConn)
	if !ok {
		t.Fatalf("dialWaiting returned a %T", c)
	}
	return bc, server
}

// readBlocked starts a read on c that blocks, and returns its outcome.
func readBlocked(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	return done
}

// waitInPoll waits until a thread of the process is blocked in poll(2) on c:
// a system call whose first two arguments are a pollfd array of two entries
// that names c's socket and the wake-up pipe of c's reads. The kernel shows each thread's
// system call and its arguments in /proc/self/task/*/syscall, and the array
// is read from /proc/self/mem. It fails the test after 30 s.
func waitInPoll(t *testing.T, c *waitingConn) {
	t.Helper()
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatalf("cannot see whether a read blocks: %v", err)
	}
	defer mem.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if blockedInPoll(t, mem, c) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no thread blocked in poll(2) on the connection within 30 s")
		}
	}
}

// blockedInPoll reports whether a thread is in a system call on c's pollfd
// array.
func blockedInPoll(t *testing.T, mem *os.File, c *waitingConn) bool {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/syscall")
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b)) // "running", or the number and the arguments in hex
		if len(f) < 3 || f[0] == "running" {
			continue
		}
		fds, err1 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
		n, err2 := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
		if err1 != nil || err2 != nil || n != 2 || fds == 0 || fds > math.MaxInt64 {
			continue
		}
		var pfd [16]byte // two struct pollfd: int fd, short events, short revents
		if _, err := mem.ReadAt(pfd[:], int64(fds)); err != nil {
			continue
		}
		if int32(binary.NativeEndian.Uint32(pfd[0:])) == int32(c.fd) && int32(binary.NativeEndian.Uint32(pfd[8:])) == int32(c.rd.wakeR) {
			return true
		}
	}
	return false
}

func waitErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("a blocked read did not return")
		return nil
	}
}

// roundTrip sends a ping from c to server and a pong back.
func roundTrip(t *testing.T, c, server net.Conn) {
	t.Helper()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q %v", buf, err)
	}
	if _, err := server.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("client read %q %v", buf, err)
	}
}

func TestWaitingConnRoundTrip(t *testing.T) {
	c, server := dialLoopback(t)
	defer c.Close()
	roundTrip(t, c, server)
	server.Close()
	if _, err := c.Read(make([]byte, 4)); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want EOF", err)
	}
}

// A deadline set in the past wakes a read waiting in the kernel with a
// timeout, as a poller's connection does; one in the future does when it
// passes; the zero time sets none; and once cleared, a deadline that passed
// leaves the connection as usable as before.
func TestWaitingConnDeadlines(t *testing.T) {
	t.Run("past", func(t *testing.T) {
		c, _ := dialLoopback(t)
		defer c.Close()
		done := readBlocked(c)
		waitInPoll(t, c)
		c.SetDeadline(time.Now())
		err := waitErr(t, done)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err %v, want a timeout", err)
		}
	})
	t.Run("future", func(t *testing.T) {
		c, _ := dialLoopback(t)
		defer c.Close()
		c.SetDeadline(time.Now().Add(50 * time.Millisecond))
		if err := waitErr(t, readBlocked(c)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err %v, want a timeout", err)
		}
	})
	t.Run("passed, then cleared", func(t *testing.T) {
		c, server := dialLoopback(t)
		defer c.Close()
		c.SetDeadline(time.Now())
		if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("write after the deadline: %v", err)
		}
		c.SetDeadline(time.Time{})
		roundTrip(t, c, server)
	})
	t.Run("cleared", func(t *testing.T) {
		c, server := dialLoopback(t)
		defer c.Close()
		was := time.Now().Add(50 * time.Millisecond)
		c.SetDeadline(was)
		c.SetDeadline(time.Time{})
		c.mu.Lock()
		armed := c.rd.timer != nil || c.wd.timer != nil
		c.mu.Unlock()
		if armed {
			t.Fatal("clearing the deadline left its timer armed")
		}
		done := readBlocked(c)
		waitInPoll(t, c)
		time.Sleep(time.Until(was.Add(100 * time.Millisecond))) // past the deadline that was cleared
		if _, err := server.Write([]byte("late")); err != nil {
			t.Fatal(err)
		}
		if err := waitErr(t, done); err != nil {
			t.Fatalf("a cleared deadline still fired: %v", err)
		}
	})
}

// Reads and writes have deadlines of their own, as net.Conn promises: a read
// deadline that passed fails reads and leaves writes alone, and the reverse;
// a read waiting in the kernel is not woken by a write deadline passing, and
// reads the reply that comes after it.
func TestWaitingConnDeadlinesOfEachDirection(t *testing.T) {
	t.Run("read", func(t *testing.T) {
		c, server := dialLoopback(t)
		defer c.Close()
		c.SetReadDeadline(time.Now())
		if _, err := c.Read(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read after the read deadline: %v, want a timeout", err)
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatalf("write after the read deadline passed: %v", err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("server read %q %v", buf, err)
		}
	})
	t.Run("write", func(t *testing.T) {
		c, server := dialLoopback(t)
		defer c.Close()
		done := make(chan []byte, 1)
		go func() {
			buf := make([]byte, 4)
			if _, err := io.ReadFull(c, buf); err != nil {
				buf = []byte(err.Error())
			}
			done <- buf
		}()
		waitInPoll(t, c)
		c.SetWriteDeadline(time.Now())
		if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("write after the write deadline: %v, want a timeout", err)
		}
		if _, err := server.Write([]byte("pong")); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-done:
			if string(got) != "pong" {
				t.Fatalf("the read waiting as the write deadline passed got %q, want pong", got)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a blocked read did not return")
		}
	})
}

// Close wakes a waiting read, which reports the connection closed, and a
// second Close says so.
func TestWaitingConnClose(t *testing.T) {
	c, _ := dialLoopback(t)
	done := readBlocked(c)
	waitInPoll(t, c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, done); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("blocked read after Close: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

// A write waiting for the Note's lock, which another transaction holds, ends
// when its context does: the deadline interrupts the read blocked in the
// kernel. The run goes on with the next session.
func TestContextEndsAWriteWaitingForTheServer(t *testing.T) {
	s, c := openNote(t, newTarget(t), contract.RunSpec{})
	holder := mustConn(t, s)
	tx, err := holder.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM notes WHERE id = $1 FOR UPDATE`, note); err != nil {
		t.Fatal(err)
	}
	// Should the deadline not interrupt the call, the lock is released after
	// a long while, so that the test fails instead of hanging.
	release := sync.OnceValue(func() error { return tx.Rollback(ctx) })
	watchdog := time.AfterFunc(20*time.Second, func() { release() })
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.EditNoteTab(wctx, contract.EditRequest{NoteID: note, TabID: "markdown", ExpectedVersion: "1",
		IdempotencyKey: "k", Operation: contract.OpReplaceText, Text: "waits"})
	d := time.Since(start)
	watchdog.Stop()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || d > 15*time.Second {
		t.Fatalf("after %v: err %v, want context.DeadlineExceeded at once", d, err)
	}
	if r, err := replaceText(mustConn(t, s), "1", "k", "after"); err != nil || r.Version != "2" {
		t.Fatalf("write after the interrupted one: %+v %v", r, err)
	}
}

// A call whose context ends just as the call completes leaves its session
// usable: pgconn reports no error and keeps the connection, so the next
// call, with a live context, succeeds. (A deadline that shut the socket down
// for good failed this within a few hundred calls.) The timeouts spread
// evenly on a log scale from a sixteenth of the time a read takes here,
// measured first, to 54 times it, so that on a loaded machine too some reads
// are interrupted and some finish as their context ends; the calls go on, up
// to 4,000, until both have happened. Under the race detector the first 100
// calls are enough (each interrupted one costs the server a new connection):
// make test-large makes at least the 400 that caught that deadline.
func TestLateCancelLeavesTheSessionUsable(t *testing.T) {
	if testing.Short() {
		t.Skip("up to 4,000 reads until some are interrupted and some finish")
	}
	s, c := openNote(t, newTarget(t), contract.RunSpec{})
	took := make([]time.Duration, 21)
	for i := range took {
		start := time.Now()
		if _, err := c.ReadNoteTab(ctx, note, "markdown"); err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(start)
	}
	slices.Sort(took)
	read := took[len(took)/2]
	v := contract.Version("1")
	minCalls := 400
	if testpass.Race {
		minCalls = 100
	}
	reads, interrupted, calls := 0, 0, 0
	for ; calls < 4000 && (calls < minCalls || reads == 0 || interrupted == 0); calls++ {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(float64(read)*math.Exp2(float64(calls%40)/4-4)))
		_, err := c.ReadNoteTab(cctx, note, "markdown")
		cancel()
		if err != nil { // interrupted: pgconn closed the connection
			interrupted++
			c.Close()
			c = mustConn(t, s)
			// The first call of a connection connects and prepares: not the
			// call a timeout is meant for.
			if _, err := c.ReadNoteTab(ctx, note, "markdown"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		reads++
		r, err := replaceText(c, v, fmt.Sprint("k", calls), "x")
		if err != nil {
			t.Fatalf("call %d: the read succeeded, the next write failed: %v", calls, err)
		}
		v = r.Version
	}
	t.Logf("a read takes %v here; of %d reads with timeouts %d finished, %d were interrupted", read, calls, reads, interrupted)
	if reads == 0 || interrupted == 0 {
		t.Fatal("the reads did not both finish and get interrupted: the test proved nothing")
	}
}
