// Package bounded reads what a command is handed to read: a file, or standard
// input for "-", bounded before it is read, and given up on when the
// context ends, since a read of a pipe or a terminal that never ends must
// not hold up Ctrl-C (the read itself is left to end with the process).
//
// It knows files and standard input only: nothing of what the bytes mean.
package bounded

import (
	"context"
	"fmt"
	"io"
	"os"
)

// UnlessDone returns what read returns, or ctx's error when ctx ends first.
func UnlessDone[T any](ctx context.Context, read func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	case r := <-done:
		return r.v, r.err
	}
}

// TooLargeError is input larger than the limit Read was given. Size is the
// size of a regular file, found before anything was read; 0 when the input
// was found larger by reading past the limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%d bytes, more than %d", e.Size, e.Limit)
	}
	return fmt.Sprintf("more than %d bytes", e.Limit)
}

// Read reads file whole, or stdin when file is "-", and refuses input
// larger than limit bytes (a *TooLargeError): a regular file before it reads
// anything, other input once it has read past limit. A folder is an error.
// When ctx ends first, Read returns ctx's error.
func Read(ctx context.Context, stdin io.Reader, file string, limit int64) ([]byte, error) {
	if file != "-" {
		st, err := os.Stat(file)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a folder", file)
		}
		if st.Mode().IsRegular() && st.Size() > limit {
			return nil, &TooLargeError{Size: st.Size(), Limit: limit}
		}
	}
	data, err := UnlessDone(ctx, func() ([]byte, error) {
		r := stdin
		if file != "-" {
			f, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			r = f
		}
		return io.ReadAll(io.LimitReader(r, limit+1))
	})
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	case int64(len(data)) > limit:
		return nil, &TooLargeError{Limit: limit}
	}
	return data, nil
}
