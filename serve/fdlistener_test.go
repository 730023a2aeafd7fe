package serve

import (
	"net"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"
)

// acceptStep is one Accept of a scriptedListener: when it happens, and
// whether it fails for want of descriptors.
type acceptStep struct {
	at   time.Duration
	full bool
}

// scriptedListener is a listener whose Accepts go as its script says; now
// is the time of the step being taken.
type scriptedListener struct {
	net.Listener
	script []acceptStep
	start  time.Time
	i      int
}

func (l *scriptedListener) now() time.Time { return l.start.Add(l.script[l.i].at) }

func (l *scriptedListener) Accept() (net.Conn, error) {
	step := l.script[l.i]
	if step.full {
		l.i++
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	if l.i < len(l.script)-1 {
		l.i++
	}
	c, _ := net.Pipe()
	return c, nil
}

// Running out of descriptors is told when it starts, not again while
// connections trickle in a minute or less after, and again once a minute
// has passed since it was last told.
func TestOutOfDescriptorsToldOnceAMinute(t *testing.T) {
	inner := &scriptedListener{start: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), script: []acceptStep{
		{0, true}, {0, false}, {30 * time.Second, true}, {30 * time.Second, false}, {61 * time.Second, true}, {61 * time.Second, false}}}
	var told []time.Duration
	l := &fdListener{Listener: inner, now: inner.now, closed: make(chan struct{}),
		warn: func(string, ...any) { told = append(told, inner.now().Sub(inner.start)) }}
	for range 3 {
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if want := []time.Duration{0, 61 * time.Second}; !slices.Equal(told, want) {
		t.Fatalf("told at %v, want %v", told, want)
	}
}
