//go:build !unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

func ownGroup(*exec.Cmd) {}

// signalGroup ends the command itself: without process groups, what it
// spawned is its own to end.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// awaitExit returns at once: without process groups there is no group ID to
// keep from being reused, and cmd.Wait waits.
func awaitExit(*exec.Cmd) {}
