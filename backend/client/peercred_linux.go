package client

import (
	"net"
	"syscall"
)

// peerUID returns the uid of the process that listens at the other end of
// nc, from SO_PEERCRED (as it was when the socket was bound).
func peerUID(nc net.Conn) (uid int, ok bool, err error) {
	uc, isUnix := nc.(*net.UnixConn)
	if !isUnix {
		return 0, false, nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if cerr != nil {
		return 0, false, cerr
	}
	return int(cred.Uid), true, nil
}
