package serve

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// scriptedListener is a listener whose Accepts fail for want of
// descriptors as its script says (true: fail), and then accept.
type scriptedListener struct {
	net.Listener
	script []bool
	before func(i int) // called before the i-th Accept of the script
	i      int
}

func (l *scriptedListener) Accept() (net.Conn, error) {
	if l.i >= len(l.script) {
		return nil, net.ErrClosed
	}
	i := l.i
	l.i++
	if l.before != nil {
		l.before(i)
	}
	if l.script[i] {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	c, _ := net.Pipe()
	return c, nil
}

// Running out of descriptors is told when it starts, not again while
// connections trickle in a minute or less after, and again once a minute
// has passed since it was last told.
func TestOutOfDescriptorsToldOnceAMinute(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// Three episodes, each a failure then a connection: at 0 s, at 30 s and
	// at 61 s.
	at := []time.Duration{0, 0, 30 * time.Second, 30 * time.Second, 61 * time.Second, 61 * time.Second}
	inner := &scriptedListener{script: []bool{true, false, true, false, true, false}}
	inner.before = func(i int) { clock = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).Add(at[i]) }
	var told []string
	l := &fdListener{Listener: inner, now: func() time.Time { return clock }, closed: make(chan struct{}),
		warn: func(format string, args ...any) {
			told = append(told, fmt.Sprintf("%s: "+format, append([]any{clock.Format("15:04:05")}, args...)...))
		}}
	for range 3 {
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if len(told) != 2 || told[0][:8] != "12:00:00" || told[1][:8] != "12:01:01" {
		t.Fatalf("told %d times, want at 12:00:00 and 12:01:01 only:\n%q", len(told), told)
	}
}
