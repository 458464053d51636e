package status

import (
	"io/fs"
	"os"
)

// File type bits of a POSIX st_mode, as git keeps them in index modes.
const (
	sIFMT  = 0o170000
	sIFREG = 0o100000
	sIFDIR = 0o040000
	sIFLNK = 0o120000
	sIFGIT = 0o160000 // gitlink (submodule commit)
	// The types git never tracks (its create_ce_mode records them as
	// regular files, so a tracked file replaced by one shows as modified).
	sIFIFO  = 0o010000
	sIFCHR  = 0o020000
	sIFBLK  = 0o060000
	sIFSOCK = 0o140000
)

// fsStat is what one lstat of a worktree path tells: the index-comparable
// stat data, the POSIX mode and the full size.
type fsStat struct {
	st   Stat
	mode uint32
	size int64
}

func (s *fsStat) isReg() bool { return s.mode&sIFMT == sIFREG }
func (s *fsStat) isDir() bool { return s.mode&sIFMT == sIFDIR }
func (s *fsStat) isLnk() bool { return s.mode&sIFMT == sIFLNK }

// isSpecial reports a named pipe, socket or device.
func (s *fsStat) isSpecial() bool {
	switch s.mode & sIFMT {
	case sIFIFO, sIFCHR, sIFBLK, sIFSOCK:
		return true
	}
	return false
}

// fsStatOf converts an os.FileInfo from Lstat.
func fsStatOf(fi os.FileInfo) fsStat {
	m := fi.Mode()
	var mode uint32
	switch {
	case m.IsRegular():
		mode = sIFREG | uint32(m.Perm())
	case m.IsDir():
		mode = sIFDIR | uint32(m.Perm())
	case m&fs.ModeSymlink != 0:
		mode = sIFLNK | 0o777
	case m&fs.ModeNamedPipe != 0:
		mode = sIFIFO | uint32(m.Perm())
	case m&fs.ModeSocket != 0:
		mode = sIFSOCK | uint32(m.Perm())
	case m&fs.ModeCharDevice != 0:
		mode = sIFCHR | uint32(m.Perm())
	default:
		mode = sIFBLK | uint32(m.Perm()) // a block device, or another type
	}
	return fsStat{st: statOf(fi), mode: mode, size: fi.Size()}
}

// lstatPath lstats an absolute path.
func lstatPath(abs string) (fsStat, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return fsStat{}, err
	}
	return fsStatOf(fi), nil
}

// gitMode is the index mode git would record for a worktree file with this
// stat, or 0 when it is not a file git tracks. Without core.filemode the
// executable bit comes from the index entry's mode (indexMode). A named
// pipe, socket or device is a regular file with its permission bits, as
// git's create_ce_mode has it (core.filemode aside).
func gitMode(s *fsStat, fileMode bool, indexMode uint32) uint32 {
	if s.isSpecial() {
		if s.mode&0o100 != 0 {
			return 0o100755
		}
		return 0o100644
	}
	switch s.mode & sIFMT {
	case sIFREG:
		if !fileMode && indexMode&sIFMT == sIFREG {
			return indexMode
		}
		if s.mode&0o100 != 0 {
			return 0o100755
		}
		return 0o100644
	case sIFLNK:
		return 0o120000
	case sIFDIR:
		if indexMode == sIFGIT {
			return sIFGIT
		}
	}
	return 0
}

// Results of comparing an index entry with a worktree stat, as git's
// ie_match_stat reports them.
const (
	changedMtime = 1 << iota
	changedCtime
	changedOwner
	changedInode
	changedData
	changedMode
	changedType
)

// matchStat is git's ce_match_stat_basic: which parts of the recorded
// stat data differ from the worktree's. Gitlinks are handled by the
// caller.
func matchStat(e *Entry, s *fsStat, c *settings) int {
	changed := 0
	switch uint32(e.Mode) & sIFMT {
	case sIFREG:
		if !s.isReg() {
			changed |= changedType
		}
		if c.fileMode && (uint32(e.Mode)^s.mode)&0o100 != 0 {
			changed |= changedMode
		}
	case sIFLNK:
		if !s.isLnk() && (c.symlinks || !s.isReg()) {
			changed |= changedType
		}
	}
	a, b := &e.Stat, &s.st
	if a.MtimeSec != b.MtimeSec {
		changed |= changedMtime
	}
	if c.checkStat {
		if fullStat && c.trustCtime && a.CtimeSec != b.CtimeSec {
			changed |= changedCtime
		}
		if haveNsec && a.MtimeNsec != b.MtimeNsec {
			changed |= changedMtime
		}
		if haveNsec && fullStat && c.trustCtime && a.CtimeNsec != b.CtimeNsec {
			changed |= changedCtime
		}
		if fullStat && (a.UID != b.UID || a.GID != b.GID) {
			changed |= changedOwner
		}
		if fullStat && a.Ino != b.Ino {
			changed |= changedInode
		}
	}
	if a.Size != b.Size {
		changed |= changedData
	}
	// A racily smudged entry (git zeroes the size of entries it could not
	// trust when it wrote the index) must be compared by content.
	if a.Size == 0 && e.Hash != emptyBlob {
		changed |= changedData
	}
	return changed
}

// isRacy reports whether an entry's recorded mtime is not older than the
// index file's: its stat data could match a file changed after it was
// recorded, so its content must be compared.
func isRacy(ix *Index, e *Entry) bool {
	if ix.MtimeSec == 0 || uint32(e.Mode) == sIFGIT {
		return false
	}
	if ix.MtimeSec != e.Stat.MtimeSec {
		return ix.MtimeSec < e.Stat.MtimeSec
	}
	return !haveNsec || ix.MtimeNsec <= e.Stat.MtimeNsec
}
