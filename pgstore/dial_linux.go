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
	wc := &waitingConn{fd: fd, network: network, local: c.LocalAddr(), remote: c.RemoteAddr()}
	if err := wc.rd.open(); err != nil {
		unix.Close(fd)
		return c, nil
	}
	if err := wc.wd.open(); err != nil {
		wc.rd.close()
		unix.Close(fd)
		return c, nil
	}
	// The duplicate shares the socket, non-blocking as Go left it: closing
	// the poller's descriptor leaves the socket open.
	_ = c.Close()
	return wc, nil
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
// Deadlines behave as a net.Conn's: reads and writes each have their own
// (SetReadDeadline leaves the write deadline as it was, and the reverse); a
// deadline that passes fails the calls of its direction waiting and those
// that follow with os.ErrDeadlineExceeded, until it is moved or cleared, and
// the connection stays usable. A read waits in poll on the socket and on the
// read deadline's pipe, a write on the socket and on the write deadline's:
// a deadline that passes writes a byte to its own pipe, and Close to both.
type waitingConn struct {
	fd      int // the socket, non-blocking
	network string
	local   net.Addr
	remote  net.Addr

	// io is held shared by every read and write, and exclusively by Close to
	// release the descriptors, so that no call ever uses a descriptor number
	// the system has given to another file.
	io     sync.RWMutex
	closed atomic.Bool

	mu sync.Mutex // guards the deadlines' timers and generations, and their pipes' contents
	rd deadline   // of reads
	wd deadline   // of writes
}

// deadline is one direction's deadline: whether it passed, the timer that
// makes it pass, and the pipe that wakes the calls of that direction waiting
// in poll.
type deadline struct {
	wakeR, wakeW int
	expired      atomic.Bool
	timer        *time.Timer
	// gen counts the deadlines set, so that a timer that fired as its
	// deadline was replaced does nothing.
	gen uint64
}

// open makes the deadline's pipe.
func (d *deadline) open() error {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return err
	}
	d.wakeR, d.wakeW = p[0], p[1]
	return nil
}

// close releases the deadline's pipe.
func (d *deadline) close() {
	unix.Close(d.wakeR)
	unix.Close(d.wakeW)
}

// stop disarms the deadline's timer.
func (d *deadline) stop() {
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
}

// wake wakes every call waiting on the deadline's pipe, until it is drained.
func (d *deadline) wake() {
	_, _ = unix.Write(d.wakeW, []byte{0}) // a full pipe wakes them as well
}

// drain empties the pipe, once no call needs waking.
func (d *deadline) drain() {
	var buf [64]byte
	for {
		if n, err := unix.Read(d.wakeR, buf[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (c *waitingConn) Read(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	for {
		if err := c.check(&c.rd); err != nil {
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
			if err := c.wait(unix.POLLIN, &c.rd); err != nil {
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
		if err := c.check(&c.wd); err != nil {
			return written, c.opError("write", err)
		}
		n, err := unix.Write(c.fd, p[written:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := c.wait(unix.POLLOUT, &c.wd); err != nil {
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

// check reports why no call of d's direction may go on: the connection
// closed, or d passed.
func (c *waitingConn) check(d *deadline) error {
	switch {
	case c.closed.Load():
		return net.ErrClosed
	case d.expired.Load():
		return os.ErrDeadlineExceeded
	}
	return nil
}

// wait blocks until the socket is ready for events, or d's pipe wakes it;
// the caller then checks why.
func (c *waitingConn) wait(events int16, d *deadline) error {
	fds := []unix.PollFd{{Fd: int32(c.fd), Events: events}, {Fd: int32(d.wakeR), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		return err
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
	for _, d := range []*deadline{&c.rd, &c.wd} {
		d.stop()
		d.wake()
	}
	c.mu.Unlock()
	c.io.Lock()
	defer c.io.Unlock()
	err := unix.Close(c.fd)
	c.rd.close()
	c.wd.close()
	if err != nil {
		return c.opError("close", err)
	}
	return nil
}

func (c *waitingConn) LocalAddr() net.Addr  { return c.local }
func (c *waitingConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets when the connection's reads and writes fail: at once for
// a time past, never for the zero time.
func (c *waitingConn) SetDeadline(t time.Time) error {
	return c.setDeadline("set deadline", t, &c.rd, &c.wd)
}

// SetReadDeadline sets when reads fail, leaving the write deadline as it is.
func (c *waitingConn) SetReadDeadline(t time.Time) error {
	return c.setDeadline("set read deadline", t, &c.rd)
}

// SetWriteDeadline sets when writes fail, leaving the read deadline as it is.
func (c *waitingConn) SetWriteDeadline(t time.Time) error {
	return c.setDeadline("set write deadline", t, &c.wd)
}

// setDeadline sets each of ds to t.
func (c *waitingConn) setDeadline(op string, t time.Time, ds ...*deadline) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return c.opError(op, net.ErrClosed)
	}
	for _, d := range ds {
		d.stop()
		d.gen++
		if !t.IsZero() && !time.Now().Before(t) {
			d.expired.Store(true)
			d.wake()
			continue
		}
		d.expired.Store(false)
		d.drain()
		if !t.IsZero() {
			d, gen := d, d.gen
			d.timer = time.AfterFunc(time.Until(t), func() { c.expire(d, gen) })
		}
	}
	return nil
}

// expire is the deadline d of generation gen passing.
func (c *waitingConn) expire(d *deadline, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == d.gen && !c.closed.Load() {
		d.expired.Store(true)
		d.wake()
	}
}
