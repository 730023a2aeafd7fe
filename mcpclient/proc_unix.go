//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that ending
// it ends whatever it spawned too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
