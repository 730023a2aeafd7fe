package clientaudit

import (
	"bytes"
	"os"
	"sync"
	"time"
)

// output reads a driver's standard output through a pipe of its own, and
// keeps the order of what the driver said and what the server got: the
// proxy calls sync before it records a request, which waits until every
// byte the driver had written by then is read. A driver writes the line of
// a call before it makes the next one, so a call's line is always taken
// before the requests that follow it.
type output struct {
	r, w *os.File
	line func(string) // called for each line, in order, by one goroutine

	mu   sync.Mutex
	cond *sync.Cond
	read int64 // the bytes taken so far
	done bool  // the pipe reached its end, or was closed
	part []byte
	end  chan struct{}
}

func newOutput(line func(string)) (*output, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	o := &output{r: r, w: w, line: line, end: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	go o.take()
	return o, nil
}

// take reads the pipe to its end.
func (o *output) take() {
	defer close(o.end)
	buf := make([]byte, 32<<10)
	for {
		n, err := o.r.Read(buf)
		o.mu.Lock()
		o.part = append(o.part, buf[:n]...)
		for {
			i := bytes.IndexByte(o.part, '\n')
			if i < 0 {
				break
			}
			o.line(string(o.part[:i]))
			o.part = o.part[i+1:]
		}
		if len(o.part) > 1<<20 { // a line this long is no line of the protocol
			o.line(string(o.part))
			o.part = nil
		}
		o.read += int64(n)
		if err != nil {
			if len(o.part) > 0 {
				o.line(string(o.part))
				o.part = nil
			}
			o.done = true
		}
		o.cond.Broadcast()
		o.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// sync waits until what the driver has written so far is taken.
func (o *output) sync() {
	avail := pending(o.r)
	o.mu.Lock()
	defer o.mu.Unlock()
	for target := o.read + avail; o.read < target && !o.done; {
		o.cond.Wait()
	}
}

// started closes the parent's copy of the pipe's write end, once the
// driver holds its own.
func (o *output) started() { o.w.Close() }

// finish waits for the pipe's end, at most wait after the driver exited (a
// process it left behind may hold the pipe open), then closes it.
func (o *output) finish(wait time.Duration) {
	o.w.Close()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-o.end:
	case <-t.C:
		o.r.Close()
		<-o.end
	}
	o.r.Close()
}
