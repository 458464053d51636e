//go:build darwin

package repo

import (
	"os"
	"syscall"
)

// sysStat extracts the stat data git records from an os.FileInfo.
func sysStat(fi os.FileInfo) (statData, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statData{}, false
	}
	return statData{
		ctimeSec: st.Ctimespec.Sec, ctimeNsec: st.Ctimespec.Nsec,
		mtimeSec: st.Mtimespec.Sec, mtimeNsec: st.Mtimespec.Nsec,
		dev: uint64(st.Dev), ino: st.Ino, uid: st.Uid, gid: st.Gid,
	}, true
}
