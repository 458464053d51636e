//go:build !linux

package process

import "syscall"

// signalProc sends sig to the process k names, if it is still that
// process (checked just before).
func signalProc(k procKey, sig syscall.Signal) {
	if procAlive(k.PID, k.StartTime) {
		_ = syscall.Kill(k.PID, sig)
	}
}
