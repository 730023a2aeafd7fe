//go:build unix

package pgstore

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// dialFunc is how the store connects to the server: dialBlocking on Unix.
var dialFunc = dialBlocking

// dialBlocking dials as pgconn's default dialer does, then takes the socket
// out of Go's network poller: the connection reads and writes with blocking
// system calls on a descriptor of its own (see blockingConn). A connection
// whose descriptor cannot be had is returned as it was dialed.
func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{KeepAlive: 5 * time.Minute}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c, nil
	}
	fd, dupErr := -1, error(nil)
	if err := raw.Control(func(s uintptr) { fd, dupErr = dupCloexec(int(s)) }); err != nil || dupErr != nil {
		return c, nil
	}
	local, remote := c.LocalAddr(), c.RemoteAddr()
	// The duplicate shares the socket: closing the poller's descriptor leaves
	// the socket open.
	_ = c.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = syscall.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: err}
	}
	return &blockingConn{fd: fd, network: network, local: local, remote: remote}, nil
}

// dupCloexec duplicates fd, close-on-exec, so that a process notesbench
// starts (a server over stdio, pgbench) does not inherit the connection.
func dupCloexec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(nfd)
	return nfd, nil
}

// blockingConn is a connection whose reads and writes are blocking system
// calls. A goroutine that waits for the server's reply blocks its thread in
// the kernel, which wakes that thread when the reply comes, as a C client's
// would. Through Go's network poller the goroutine parks, and the reply wakes
// the poller's thread, which hands the goroutine on to a thread to run it:
// about four context switches a round trip instead of one, which on this
// project's two-core virtual machine cost a write on PostgreSQL a sixth of
// its time (README, PostgreSQL).
//
// The price: a thread per connection while it waits, and deadlines kept by
// shutting the socket down, so that a deadline ends the connection. pgconn
// sets deadlines only to interrupt a call (a cancelled context) or to bound
// its closing, and closes a connection whose call was interrupted.
type blockingConn struct {
	fd            int
	network       string
	local, remote net.Addr

	// io is held shared by every read and write in its system call, and
	// exclusively by Close to release the descriptor, so that no call ever
	// uses a descriptor number the system has given to another file.
	io     sync.RWMutex
	closed atomic.Bool

	mu    sync.Mutex // guards shut and timer
	shut  bool       // the socket was shut down: a deadline passed, or Close
	timer *time.Timer
}

func (c *blockingConn) Read(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	if c.closed.Load() {
		return 0, c.opError("read", net.ErrClosed)
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, c.opError("read", c.cause(err))
		case n == 0:
			if c.isShut() {
				return 0, c.opError("read", c.cause(nil))
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	if c.closed.Load() {
		return 0, c.opError("write", net.ErrClosed)
	}
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, c.opError("write", c.cause(err))
		}
		written += n
	}
	return written, nil
}

// cause is what a failed call reports: net.ErrClosed once Close ran,
// os.ErrDeadlineExceeded once a deadline shut the socket down, else err.
func (c *blockingConn) cause(err error) error {
	switch {
	case c.closed.Load():
		return net.ErrClosed
	case c.isShut():
		return os.ErrDeadlineExceeded
	}
	return err
}

func (c *blockingConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
}

func (c *blockingConn) isShut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shut
}

// shutdown ends the socket's reads and writes, waking any that block.
func (c *blockingConn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.shut {
		c.shut = true
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

// Close shuts the socket down, waking any call blocked on it, waits for the
// calls to return, and releases the descriptor.
func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return c.opError("close", net.ErrClosed)
	}
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	c.shutdown()
	c.io.Lock()
	defer c.io.Unlock()
	if err := syscall.Close(c.fd); err != nil {
		return c.opError("close", err)
	}
	return nil
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline shuts the connection down at t: at once for a time past, never
// for the zero time. A deadline cannot be moved once it has passed.
func (c *blockingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() || c.shut {
		return nil
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, c.shutdown)
		return nil
	}
	c.shut = true
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return nil
}

func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
