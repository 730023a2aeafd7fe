//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownGroup starts the command in a process group of its own, so that ending
// it ends whatever it spawned too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's process group. The caller makes
// sure the group's leader has not been reaped: until then its process ID,
// which is the group's, cannot belong to anyone else.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// awaitExit blocks until the command's process has exited, without reaping
// it: a zombie still holds its process ID, and so its group's, until
// cmd.Wait reaps it.
func awaitExit(cmd *exec.Cmd) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}
