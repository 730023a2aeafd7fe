//go:build unix

package clientaudit

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the driver in a process group of its own, so that ending
// it ends whatever it spawned (a node process, an npx child) too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup kills the driver's process group.
func signalGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
