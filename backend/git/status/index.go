package status

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// ErrBadIndex is returned (wrapped in an *IndexError) when the index file
// cannot be read: it is corrupt, or uses a feature this reader does not
// support (split index, sparse index, sha256 object names).
var ErrBadIndex = errors.New("unreadable index")

// IndexError says why the index file at Path could not be read.
type IndexError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *IndexError) Error() string { return fmt.Sprintf("index %s: %s", e.Path, e.Reason) }

// Is makes errors.Is(err, ErrBadIndex) true.
func (e *IndexError) Is(target error) bool { return target == ErrBadIndex }

// IsBadIndex reports whether err says that the index file could not be read.
func IsBadIndex(err error) bool { return errors.Is(err, ErrBadIndex) }

// Stat is the file system data git records for an index entry (all fields
// truncated to 32 bits, as in the index file). The worktree's stat data is
// compared against it to decide whether a file must be hashed.
type Stat struct {
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	UID, GID            uint32
	Size                uint32
}

// Entry is one index entry.
type Entry struct {
	// Path is the repository-relative slash-separated path.
	Path string
	// Hash is the blob (or gitlink commit) the entry records.
	Hash plumbing.Hash
	// Mode is the entry's git mode (regular, executable, symlink, gitlink).
	Mode filemode.FileMode
	// Stage is 0 for a merged entry, 1–3 for the base/ours/theirs sides of
	// a conflict.
	Stage int
	// Stat is the stat data recorded when the entry was last refreshed.
	Stat Stat
	// AssumeValid is the "assume unchanged" bit (git update-index
	// --assume-unchanged): the worktree file is never examined.
	AssumeValid bool
	// SkipWorktree is the sparse-checkout bit: the worktree file is never
	// examined.
	SkipWorktree bool
	// IntentToAdd marks an entry added with `git add -N`: it records the
	// path but no content yet.
	IntentToAdd bool
}

// cacheTreeNode is one valid node of the index's TREE extension: the tree
// object that the Count entries of one directory would be written as.
type cacheTreeNode struct {
	count int
	hash  plumbing.Hash
}

// Index is a parsed index file.
type Index struct {
	// Version is the index format version (2, 3 or 4).
	Version int
	// Entries are sorted by path, then stage, as in the file.
	Entries []Entry
	// MtimeSec and MtimeNsec are the index file's own modification time:
	// an entry whose mtime is not older is "racily clean" and its content
	// must be compared, as git does.
	MtimeSec, MtimeNsec uint32

	// cacheTree maps a directory ("" for the root, else "a/b") to its
	// valid TREE extension node.
	cacheTree map[string]cacheTreeNode
	// special[i] counts the entries among Entries[:i] that are unmerged or
	// intent-to-add; a cache-tree node is trusted only over a range without
	// them.
	special []int32
}

// ReadIndex reads the index file at path. A missing file is an empty index
// (a repository where nothing was ever added).
func ReadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{Version: 2, special: []int32{0}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	ix, err := ParseIndex(data)
	if err != nil {
		var ie *IndexError
		if errors.As(err, &ie) {
			ie.Path = path
			// A split index's entries are deltas against a shared index
			// and rarely parse on their own.
			if shared, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "sharedindex.*")); len(shared) > 0 {
				ie.Reason = "split index (core.splitIndex) is not supported"
			}
		}
		return nil, err
	}
	st := statOf(fi)
	ix.MtimeSec, ix.MtimeNsec = st.MtimeSec, st.MtimeNsec
	return ix, nil
}

// ParseIndex parses the bytes of an index file. The trailing checksum is
// not verified (git does not verify it on reads either, for speed).
func ParseIndex(data []byte) (*Index, error) {
	bad := func(format string, args ...any) error {
		return &IndexError{Reason: fmt.Sprintf(format, args...)}
	}
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, bad("no index signature")
	}
	version := int(binary.BigEndian.Uint32(data[4:8]))
	if version < 2 || version > 4 {
		return nil, bad("unsupported index version %d", version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	end := len(data) - 20 // the trailing checksum
	if count > end/40 {
		return nil, bad("entry count %d does not fit the file", count)
	}
	ix := &Index{Version: version, Entries: make([]Entry, count)}

	// All names go into one arena that becomes a single string, so the
	// entries' paths cost no allocation each.
	arena := make([]byte, 0, end)
	offs := make([]int, count+1)
	var prev []byte
	pos := 12
	for i := 0; i < count; i++ {
		if pos+62 > end {
			return nil, bad("entry %d truncated", i)
		}
		b := data[pos:]
		e := &ix.Entries[i]
		e.Stat = Stat{
			CtimeSec: binary.BigEndian.Uint32(b[0:]), CtimeNsec: binary.BigEndian.Uint32(b[4:]),
			MtimeSec: binary.BigEndian.Uint32(b[8:]), MtimeNsec: binary.BigEndian.Uint32(b[12:]),
			Dev: binary.BigEndian.Uint32(b[16:]), Ino: binary.BigEndian.Uint32(b[20:]),
			UID: binary.BigEndian.Uint32(b[28:]), GID: binary.BigEndian.Uint32(b[32:]),
			Size: binary.BigEndian.Uint32(b[36:]),
		}
		e.Mode = filemode.FileMode(binary.BigEndian.Uint32(b[24:]))
		copy(e.Hash[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.Stage = int(flags>>12) & 3
		e.AssumeValid = flags&0x8000 != 0
		n := 62
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, bad("entry %d has extended flags in a version 2 index", i)
			}
			if pos+64 > end {
				return nil, bad("entry %d truncated", i)
			}
			ext := binary.BigEndian.Uint16(b[62:])
			e.SkipWorktree = ext&0x4000 != 0
			e.IntentToAdd = ext&0x2000 != 0
			n = 64
		}
		start := len(arena)
		if version == 4 {
			strip, used := decodeVarint(b[n:min(end-pos, n+16)])
			if used == 0 || int(strip) > len(prev) || n+used > end-pos {
				return nil, bad("entry %d has a bad path prefix", i)
			}
			nul := bytes.IndexByte(b[n+used:end-pos], 0)
			if nul < 0 {
				return nil, bad("entry %d path not terminated", i)
			}
			arena = append(arena, prev[:len(prev)-int(strip)]...)
			arena = append(arena, b[n+used:n+used+nul]...)
			pos += n + used + nul + 1
		} else {
			nameLen := int(flags & 0xfff)
			if nameLen == 0xfff {
				nul := bytes.IndexByte(b[n:end-pos], 0)
				if nul < 0 {
					return nil, bad("entry %d path not terminated", i)
				}
				nameLen = nul
			}
			if pos+n+nameLen > end {
				return nil, bad("entry %d truncated", i)
			}
			arena = append(arena, b[n:n+nameLen]...)
			// Entries are padded with 1–8 NULs to a multiple of 8 bytes.
			pos += (n + nameLen + 8) &^ 7
		}
		prev = arena[start:]
		offs[i+1] = len(arena)
		if len(prev) == 0 {
			return nil, bad("entry %d has an empty path", i)
		}
	}
	// The arena is never written again: the paths can alias it.
	names := ""
	if len(arena) > 0 {
		names = unsafe.String(&arena[0], len(arena))
	}
	for i := range ix.Entries {
		ix.Entries[i].Path = names[offs[i]:offs[i+1]]
	}
	if pos > end {
		return nil, bad("entries overrun the checksum")
	}
	// Extensions.
	for pos+8 <= end {
		sig := string(data[pos : pos+4])
		size := int(binary.BigEndian.Uint32(data[pos+4:]))
		if size < 0 || pos+8+size > end {
			return nil, bad("extension %q truncated", sig)
		}
		body := data[pos+8 : pos+8+size]
		switch sig {
		case "TREE":
			ix.cacheTree = parseCacheTree(body)
		case "link":
			return nil, bad("split index (core.splitIndex) is not supported")
		case "sdir":
			return nil, bad("sparse index is not supported")
		default:
			if sig[0] < 'A' || sig[0] > 'Z' {
				return nil, bad("unknown required extension %q", sig)
			}
			// Optional extensions (REUC, UNTR, FSMN, EOIE, IEOT) are skipped.
		}
		pos += 8 + size
	}
	ix.special = make([]int32, len(ix.Entries)+1)
	for i := range ix.Entries {
		s := ix.special[i]
		if ix.Entries[i].Stage != 0 || ix.Entries[i].IntentToAdd {
			s++
		}
		ix.special[i+1] = s
	}
	return ix, nil
}

// decodeVarint decodes git's offset varint (index v4 path prefixes) and
// returns the value and the bytes used (0 when malformed).
func decodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) {
			return 0, 0
		}
		val++
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// parseCacheTree decodes a TREE extension into the valid nodes by
// directory. A malformed extension yields what was read so far (it is only
// an optimisation).
func parseCacheTree(b []byte) map[string]cacheTreeNode {
	out := make(map[string]cacheTreeNode)
	var node func(prefix string) bool
	node = func(prefix string) bool {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return false
		}
		name := string(b[:nul])
		b = b[nul+1:]
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return false
		}
		fields := strings.Fields(string(b[:nl]))
		b = b[nl+1:]
		if len(fields) != 2 {
			return false
		}
		count, err1 := strconv.Atoi(fields[0])
		subs, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil || subs < 0 {
			return false
		}
		dir := name
		if prefix != "" {
			dir = prefix + "/" + name
		}
		if count >= 0 {
			if len(b) < 20 {
				return false
			}
			var h plumbing.Hash
			copy(h[:], b[:20])
			b = b[20:]
			out[dir] = cacheTreeNode{count: count, hash: h}
		}
		for i := 0; i < subs; i++ {
			if !node(dir) {
				return false
			}
		}
		return true
	}
	node("")
	return out
}

// Find returns the position of the first entry (lowest stage) for path and
// whether there is one.
func (ix *Index) Find(path string) (int, bool) {
	i := sort.Search(len(ix.Entries), func(i int) bool { return ix.Entries[i].Path >= path })
	return i, i < len(ix.Entries) && ix.Entries[i].Path == path
}

// Range returns the half-open range of entries under the directory dir
// (without a trailing slash; "" is the whole index).
func (ix *Index) Range(dir string) (lo, hi int) {
	if dir == "" {
		return 0, len(ix.Entries)
	}
	return ix.rangeWithin(dir+"/", 0, len(ix.Entries))
}

// rangeWithin finds the entries whose path starts with prefix (which ends
// in "/") inside [lo, hi).
func (ix *Index) rangeWithin(prefix string, lo, hi int) (int, int) {
	e := ix.Entries[lo:hi]
	a := sort.Search(len(e), func(i int) bool { return e[i].Path >= prefix })
	// The first path after the prefix range: the prefix with its final
	// "/" replaced by "0", the next byte.
	upper := prefix[:len(prefix)-1] + "0"
	b := a + sort.Search(len(e)-a, func(i int) bool { return e[a+i].Path >= upper })
	return lo + a, lo + b
}

// hasSpecial reports whether [lo, hi) holds an unmerged or intent-to-add
// entry.
func (ix *Index) hasSpecial(lo, hi int) bool { return ix.special[hi] != ix.special[lo] }

// Unmerged reports whether the index has conflict entries.
func (ix *Index) Unmerged() bool {
	for i := range ix.Entries {
		if ix.Entries[i].Stage != 0 {
			return true
		}
	}
	return false
}
