//go:build linux

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
		ctimeSec: st.Ctim.Sec, ctimeNsec: st.Ctim.Nsec,
		mtimeSec: st.Mtim.Sec, mtimeNsec: st.Mtim.Nsec,
		dev: uint64(st.Dev), ino: st.Ino, uid: st.Uid, gid: st.Gid,
	}, true
}
