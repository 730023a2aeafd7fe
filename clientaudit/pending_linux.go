//go:build linux

package clientaudit

import (
	"os"

	"golang.org/x/sys/unix"
)

// pending is how many bytes wait in the pipe f reads, unread.
func pending(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return int64(n)
}
