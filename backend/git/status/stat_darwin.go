package status

import (
	"os"
	"syscall"
)

const (
	haveNsec = true
	fullStat = true
)

// statOf extracts git's stat data from an os.FileInfo.
func statOf(fi os.FileInfo) Stat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Stat{MtimeSec: uint32(fi.ModTime().Unix()), Size: uint32(fi.Size())}
	}
	return Stat{
		CtimeSec: uint32(st.Ctimespec.Sec), CtimeNsec: uint32(st.Ctimespec.Nsec),
		MtimeSec: uint32(st.Mtimespec.Sec), MtimeNsec: uint32(st.Mtimespec.Nsec),
		Dev: uint32(st.Dev), Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid,
		Size: uint32(st.Size),
	}
}
