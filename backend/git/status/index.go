package status

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/meith-dev/meith/backend/git/repo"
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
	f, err := repo.OpenRegular(path, repo.MaxDataFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{Version: 2, special: []int32{0}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	fi := f.Stat()
	data, err := f.ReadAll()
	f.Close()
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

// ParseIndex parses the bytes of an index file (through repo's decoder,
// the one index reader of meith). The trailing checksum is not verified
// (git does not verify it on reads either, for speed).
func ParseIndex(data []byte) (*Index, error) {
	f, err := repo.DecodeIndexFile(data)
	if err != nil {
		var be *repo.BadIndexError
		if errors.As(err, &be) {
			return nil, &IndexError{Reason: be.Reason}
		}
		return nil, err
	}
	ix := &Index{Version: int(f.Version), Entries: make([]Entry, len(f.Entries))}
	for i := range f.Entries {
		src := &f.Entries[i]
		cs, cn, ms, mn := repo.EntryStat(src)
		ix.Entries[i] = Entry{
			Path: src.Name, Hash: src.Hash, Mode: src.Mode, Stage: int(src.Stage),
			Stat: Stat{CtimeSec: cs, CtimeNsec: cn, MtimeSec: ms, MtimeNsec: mn,
				Dev: src.Dev, Ino: src.Inode, UID: src.UID, GID: src.GID, Size: src.Size},
			AssumeValid: f.AssumeValid(i), SkipWorktree: src.SkipWorktree, IntentToAdd: src.IntentToAdd,
		}
	}
	f.ValidTrees(func(dir string, count int, hash plumbing.Hash) {
		if ix.cacheTree == nil {
			ix.cacheTree = make(map[string]cacheTreeNode)
		}
		ix.cacheTree[dir] = cacheTreeNode{count: count, hash: hash}
	})
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
