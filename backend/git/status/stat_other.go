//go:build !linux && !darwin

package status

import "os"

// Other systems give no ctime, inode or owner through os.FileInfo, so only
// mtime (with nanoseconds) and size are compared, like git for Windows.
const (
	haveNsec = true
	fullStat = false
)

// statOf extracts git's stat data from an os.FileInfo.
func statOf(fi os.FileInfo) Stat {
	t := fi.ModTime()
	return Stat{MtimeSec: uint32(t.Unix()), MtimeNsec: uint32(t.Nanosecond()), Size: uint32(fi.Size())}
}
