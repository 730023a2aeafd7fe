package bounded

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	os.WriteFile(small, []byte("12345"), 0o644)
	os.WriteFile(big, []byte("123456"), 0o644)
	ctx := context.Background()
	if data, err := Read(ctx, nil, small, 5); err != nil || string(data) != "12345" {
		t.Errorf("a file at the limit: %q, %v", data, err)
	}
	var large *TooLargeError
	if _, err := Read(ctx, nil, big, 5); !errors.As(err, &large) || *large != (TooLargeError{Size: 6, Limit: 5}) || err.Error() != "6 bytes, more than 5" {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := Read(ctx, strings.NewReader("123456"), "-", 5); !errors.As(err, &large) || *large != (TooLargeError{Limit: 5}) || err.Error() != "more than 5 bytes" {
		t.Errorf("standard input over the limit: %v", err)
	}
	if data, err := Read(ctx, strings.NewReader("123"), "-", 5); err != nil || string(data) != "123" {
		t.Errorf("standard input: %q, %v", data, err)
	}
	if _, err := Read(ctx, nil, dir, 5); err == nil || err.Error() != dir+" is a folder" {
		t.Errorf("a folder: %v", err)
	}
	if _, err := Read(ctx, nil, filepath.Join(dir, "none"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// A read of standard input that never ends is given up on when the context
// ends.
func TestReadGivesUpWhenDone(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, r, "-", 5); !errors.Is(err, context.Canceled) {
		t.Errorf("a read of a pipe after the context ended: %v", err)
	}
	r.Close() // ends the read left behind
}
