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

	"golang.org/x/sys/unix"
)

// dialFunc is how the store connects to the server: dialWaiting on Linux.
var dialFunc = dialWaiting

// dialWaiting dials as pgconn's default dialer does, then takes the socket
// out of Go's network poller: the connection waits for the socket in poll(2)
// on a descriptor of its own (see waitingConn). A connection whose
// descriptor cannot be had is returned as it was dialed.
func dialWaiting(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
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
	if err := raw.Control(func(s uintptr) { fd, dupErr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || dupErr != nil {
		return c, nil
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		unix.Close(fd)
		return c, nil
	}
	local, remote := c.LocalAddr(), c.RemoteAddr()
	// The duplicate shares the socket, non-blocking as Go left it: closing
	// the poller's descriptor leaves the socket open.
	_ = c.Close()
	return &waitingConn{fd: fd, wakeR: wake[0], wakeW: wake[1], network: network, local: local, remote: remote}, nil
}

// waitingConn is a connection that waits for its socket in poll(2), a
// blocking system call, rather than in Go's network poller. A goroutine that
// waits for the server's reply blocks its thread in the kernel, which wakes
// that thread when the reply comes, as a C client's would. Through Go's
// network poller the goroutine parks, and the reply wakes the poller's
// thread, which hands the goroutine on to a thread to run it: about four
// context switches a round trip instead of one, which on this project's
// two-core virtual machine cost a write on PostgreSQL a sixth of its time
// (README, PostgreSQL). The price is a thread per connection while it waits.
//
// Deadlines behave as a net.Conn's: a deadline that passes fails the calls
// waiting and those that follow with os.ErrDeadlineExceeded, until it is
// moved or cleared, and the connection stays usable. poll waits on the
// socket and on a pipe of the connection's own, to which a passing deadline
// and Close write a byte.
type waitingConn struct {
	fd           int // the socket, non-blocking
	wakeR, wakeW int // the pipe that wakes calls waiting in poll
	network      string
	local        net.Addr
	remote       net.Addr

	// io is held shared by every read and write, and exclusively by Close to
	// release the descriptors, so that no call ever uses a descriptor number
	// the system has given to another file.
	io     sync.RWMutex
	closed atomic.Bool

	mu      sync.Mutex // guards timer, gen and the pipe's contents
	expired atomic.Bool
	timer   *time.Timer
	// gen counts the deadlines set, so that a timer that fired as its
	// deadline was replaced does nothing.
	gen uint64
}

func (c *waitingConn) Read(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	for {
		if err := c.check(); err != nil {
			return 0, c.opError("read", err)
		}
		if len(p) == 0 {
			return 0, nil
		}
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := c.wait(unix.POLLIN); err != nil {
				return 0, c.opError("read", err)
			}
			continue
		case err != nil:
			return 0, c.opError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *waitingConn) Write(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	written := 0
	for written < len(p) {
		if err := c.check(); err != nil {
			return written, c.opError("write", err)
		}
		n, err := unix.Write(c.fd, p[written:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := c.wait(unix.POLLOUT); err != nil {
				return written, c.opError("write", err)
			}
			continue
		case err != nil:
			return written, c.opError("write", err)
		}
		written += n
	}
	return written, nil
}

// check reports why no call may go on: the connection closed, or its
// deadline passed.
func (c *waitingConn) check() error {
	switch {
	case c.closed.Load():
		return net.ErrClosed
	case c.expired.Load():
		return os.ErrDeadlineExceeded
	}
	return nil
}

// wait blocks until the socket is ready for events, or the pipe wakes it;
// the caller then checks why.
func (c *waitingConn) wait(events int16) error {
	fds := []unix.PollFd{{Fd: int32(c.fd), Events: events}, {Fd: int32(c.wakeR), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		return err
	}
}

// wake wakes every call waiting in poll, until the pipe is drained.
func (c *waitingConn) wake() {
	_, _ = unix.Write(c.wakeW, []byte{0}) // a full pipe wakes them as well
}

// drain empties the pipe, once no call needs waking.
func (c *waitingConn) drain() {
	var buf [64]byte
	for {
		if n, err := unix.Read(c.wakeR, buf[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (c *waitingConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
}

// Close wakes the calls waiting, waits for them to return, and releases the
// descriptors.
func (c *waitingConn) Close() error {
	if c.closed.Swap(true) {
		return c.opError("close", net.ErrClosed)
	}
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.wake()
	c.mu.Unlock()
	c.io.Lock()
	defer c.io.Unlock()
	err := unix.Close(c.fd)
	unix.Close(c.wakeR)
	unix.Close(c.wakeW)
	if err != nil {
		return c.opError("close", err)
	}
	return nil
}

func (c *waitingConn) LocalAddr() net.Addr  { return c.local }
func (c *waitingConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets when the connection's calls fail: at once for a time past,
// never for the zero time.
func (c *waitingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return c.opError("set deadline", net.ErrClosed)
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.gen++
	if !t.IsZero() && !time.Now().Before(t) {
		c.expired.Store(true)
		c.wake()
		return nil
	}
	c.expired.Store(false)
	c.drain()
	if !t.IsZero() {
		gen := c.gen
		c.timer = time.AfterFunc(time.Until(t), func() { c.expire(gen) })
	}
	return nil
}

// expire is the deadline of generation gen passing.
func (c *waitingConn) expire(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen && !c.closed.Load() {
		c.expired.Store(true)
		c.wake()
	}
}

func (c *waitingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *waitingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
