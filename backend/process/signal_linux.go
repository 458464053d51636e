package process

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalProc sends sig to the process k names, if it is still that
// process: through a pidfd opened before its start time is checked, so a
// pid reused meanwhile is never signalled (kill(2) after the check where
// pidfds are unavailable).
func signalProc(k procKey, sig syscall.Signal) {
	fd, err := unix.PidfdOpen(k.PID, 0)
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if procAlive(k.PID, k.StartTime) {
			_ = syscall.Kill(k.PID, sig)
		}
		return
	}
	defer unix.Close(fd)
	if !procAlive(k.PID, k.StartTime) {
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
}
