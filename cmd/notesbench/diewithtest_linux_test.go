package main

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel kill cmd's process when the test binary dies,
// so that a test killed by its timeout leaves no server running.
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
