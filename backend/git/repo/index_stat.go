package repo

import (
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// statData is the file system data git keeps in an index entry.
type statData struct {
	ctimeSec, ctimeNsec int64
	mtimeSec, mtimeNsec int64
	dev, ino            uint64
	uid, gid            uint32
}

// FillStat copies the stat data git records in an index entry (ctime and
// mtime with nanoseconds, device, inode, owner, size) from fi, which must
// come from an Lstat of the entry's worktree file. Take the Lstat before
// reading the file's content: a change after it then shows as a stat
// mismatch, never as a falsely clean entry.
func FillStat(e *index.Entry, fi os.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	e.CreatedAt = e.ModifiedAt
	e.Dev, e.Inode, e.UID, e.GID = 0, 0, 0, 0
	e.Size = uint32(fi.Size())
	if st, ok := sysStat(fi); ok {
		e.CreatedAt = time.Unix(st.ctimeSec, st.ctimeNsec)
		e.ModifiedAt = time.Unix(st.mtimeSec, st.mtimeNsec)
		e.Dev = uint32(st.dev)
		e.Inode = uint32(st.ino)
		e.UID = st.uid
		e.GID = st.gid
	}
}

// ClearStat zeroes an entry's stat data, so that git and the status engine
// compare the worktree file by content (what `git apply --cached` and
// `git read-tree` leave for entries they did not check out).
func ClearStat(e *index.Entry) {
	e.CreatedAt, e.ModifiedAt = time.Time{}, time.Time{}
	e.Dev, e.Inode, e.UID, e.GID, e.Size = 0, 0, 0, 0, 0
}

// StatMatches reports whether the stat data recorded in e matches fi (an
// Lstat of its worktree file) the way git's ie_match_stat judges a clean
// entry: same type, executable bit, times, inode, owner and size. A match
// says the file need not be read again, unless the entry is racy (see
// IsRacy).
func StatMatches(e *index.Entry, fi os.FileInfo) bool {
	var probe index.Entry
	FillStat(&probe, fi)
	// git does not compare the device (USE_STDEV is off by default).
	if !probe.ModifiedAt.Equal(e.ModifiedAt) || !probe.CreatedAt.Equal(e.CreatedAt) || probe.Inode != e.Inode ||
		probe.UID != e.UID || probe.GID != e.GID || probe.Size != e.Size {
		return false
	}
	if e.Size == 0 && e.Hash != emptyBlob {
		return false // smudged by git as racily clean: compare content
	}
	m := fi.Mode()
	switch e.Mode {
	case 0o100644, 0o100755:
		return m.IsRegular() && (m&0o100 != 0) == (e.Mode == 0o100755)
	case 0o120000:
		return m&os.ModeSymlink != 0
	}
	return false
}

// IsRacy reports whether an entry's recorded mtime is not older than the
// index file's own mtime (indexMtime): its stat data could match a file
// that changed after it was recorded, so its content must be compared.
func IsRacy(e *index.Entry, indexMtime time.Time) bool {
	if indexMtime.IsZero() {
		return false
	}
	return !e.ModifiedAt.Before(indexMtime)
}
