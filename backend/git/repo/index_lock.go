package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// IndexLockedError says that the index could not be locked because
// index.lock exists: another git process is writing the index, or one
// crashed and left the file behind.
type IndexLockedError struct {
	// Path is the lock file.
	Path string
}

// Error implements error.
func (e *IndexLockedError) Error() string {
	return "another git process seems to be running in this repository (index.lock exists); " +
		"if no git process is running, remove " + e.Path + " and try again"
}

// IsIndexLocked reports whether err says that index.lock exists.
func IsIndexLocked(err error) bool {
	var le *IndexLockedError
	return errors.As(err, &le)
}

// IndexEntryError says that an index to be written is malformed: a path
// listed twice, both a file and a directory, or merged and unmerged.
type IndexEntryError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *IndexEntryError) Error() string {
	return fmt.Sprintf("write index: %s %s", e.Path, e.Reason)
}

// IsIndexEntryError reports whether err is an *IndexEntryError.
func IsIndexEntryError(err error) bool {
	var ie *IndexEntryError
	return errors.As(err, &ie)
}

// indexMutexes serialises the IndexLocks of one index file inside this
// process (map of index path to *sync.Mutex), so that concurrent callers
// wait for each other instead of failing on index.lock.
var indexMutexes sync.Map

// IndexLock is a held index.lock: the index cannot change under its owner
// until Commit or Rollback. It follows git's protocol, so git processes
// and other IndexLocks (in this process they wait; elsewhere they fail)
// are kept out.
type IndexLock struct {
	r        *Repo
	path     string // the index file
	lockPath string
	f        *os.File
	mu       *sync.Mutex

	orig    []index.Entry // sorted, as read when the lock was taken
	version uint32
	mtime   time.Time // the index file's mtime, zero when it did not exist
	extras  *indexExtras
	done    bool

	// Clean, when set, turns a regular file's content into the blob git
	// add would store for entry e (line-ending conversion) before a
	// racily clean entry's file is compared with it on Commit.
	Clean func(e *index.Entry, content []byte) []byte
}

// LockIndex takes <GitDir>/index.lock the way git does (an exclusive
// create), then reads the index. When the lock file exists it returns an
// *IndexLockedError; another IndexLock of this process on the same index is
// waited for. The caller must Commit or Rollback.
func LockIndex(r *Repo) (*IndexLock, error) {
	path := filepath.Join(r.GitDir, "index")
	m, _ := indexMutexes.LoadOrStore(path, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		mu.Unlock()
		if errors.Is(err, fs.ErrExist) {
			return nil, &IndexLockedError{Path: path + ".lock"}
		}
		return nil, fmt.Errorf("lock index: %w", err)
	}
	l := &IndexLock{r: r, path: path, lockPath: path + ".lock", f: f, mu: mu, version: 2, extras: &indexExtras{}}
	if err := l.load(); err != nil {
		l.Rollback()
		return nil, err
	}
	return l, nil
}

func (l *IndexLock) load() error {
	f, err := OpenRegular(l.path, MaxDataFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	fi := f.Stat()
	data, err := f.ReadAll()
	f.Close()
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	version, entries, extras, err := decodeIndexEntries(data)
	if err != nil {
		var be *BadIndexError
		if errors.As(err, &be) {
			be.Path = l.path
		}
		return err
	}
	l.mtime, l.version, l.extras, l.orig = fi.ModTime(), version, extras, entries
	return nil
}

// Index returns a copy of the index as it was when the lock was taken, for
// the caller to change and Commit. Version is the file's version (2 for a
// repository without an index yet) and ModTime the file's mtime.
func (l *IndexLock) Index() *index.Index {
	idx := &index.Index{Version: l.version, ModTime: l.mtime, Entries: make([]*index.Entry, len(l.orig))}
	store := make([]index.Entry, len(l.orig))
	copy(store, l.orig)
	for i := range store {
		idx.Entries[i] = &store[i]
	}
	return idx
}

// ModTime returns the index file's mtime when the lock was taken (zero when
// there was no index): entries whose mtime is not older are racy.
func (l *IndexLock) ModTime() time.Time { return l.mtime }

// Commit writes idx as the new index and releases the lock: the entries
// are sorted, encoded in the version of the existing index (demoted to 2 or
// promoted to 3 by the need for extended flags, as git does), written to
// index.lock, synced and renamed over the index. The cache-tree is kept
// with the directories of changed entries invalidated, the resolve-undo
// extension and the assume-unchanged bits of unchanged entries are kept.
// Entries that Commit did not see change and whose mtime is not older than
// the old index are checked against their file and smudged when racily
// clean, as git does. On error the lock is released and the index is left
// as it was.
func (l *IndexLock) Commit(idx *index.Index) error {
	return l.commit(idx, plumbing.ZeroHash)
}

// CommitTree is Commit for an index whose entries are exactly the tree
// `tree` (an existing tree object, all entries merged): the index is
// written with a complete cache-tree, so that status and commit need not
// rebuild it. When the entries do not match tree it behaves as Commit.
func (l *IndexLock) CommitTree(idx *index.Index, tree plumbing.Hash) error {
	return l.commit(idx, tree)
}

// Rollback releases the lock without changing the index. It is safe to
// call after Commit (it then does nothing).
func (l *IndexLock) Rollback() error {
	if l.done {
		return nil
	}
	l.done = true
	defer l.mu.Unlock()
	l.f.Close()
	if err := os.Remove(l.lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unlock index: %w", err)
	}
	return nil
}

func (l *IndexLock) commit(idx *index.Index, tree plumbing.Hash) (err error) {
	if l.done {
		return errors.New("write index: the index lock was already released")
	}
	defer func() {
		if err != nil {
			l.Rollback()
		}
	}()
	es := idx.Entries
	for i, e := range es {
		if e == nil {
			return fmt.Errorf("write index: entry %d is nil", i)
		}
	}
	sortEntries(es)
	if err := checkEntries(es); err != nil {
		return err
	}
	extras := &indexExtras{reuc: l.extras.reuc}

	// Compare with the index as read: changed paths invalidate the
	// cache-tree; unchanged ones keep their assume-unchanged bit and are
	// checked for racy cleanliness.
	var changed []string
	var unchanged []*index.Entry
	i, j := 0, 0
	for i < len(l.orig) || j < len(es) {
		var o, n *index.Entry
		if i < len(l.orig) {
			o = &l.orig[i]
		}
		if j < len(es) {
			n = es[j]
		}
		switch c := compareKeys(o, n); {
		case c < 0:
			changed = append(changed, o.Name)
			i++
		case c > 0:
			changed = append(changed, n.Name)
			j++
		default:
			if !sameEntry(o, n) {
				changed = append(changed, n.Name)
			} else {
				if l.extras.assumeValid[entryKey{o.Name, o.Stage}] {
					if extras.assumeValid == nil {
						extras.assumeValid = make(map[entryKey]bool)
					}
					extras.assumeValid[entryKey{o.Name, o.Stage}] = true
				} else if sameStat(o, n) {
					unchanged = append(unchanged, n)
				}
			}
			i++
			j++
		}
	}
	if err := checkChangedPaths(es, changed); err != nil {
		return err
	}
	if !tree.IsZero() {
		extras.tree = l.fullCacheTree(es, tree)
	}
	if extras.tree == nil && l.extras.tree != nil {
		extras.tree = l.extras.tree
		for _, p := range changed {
			extras.tree.invalidate(p)
		}
	}
	l.smudgeRacy(unchanged)

	version := l.version
	if version == 2 || version == 3 {
		version = 2
		for _, e := range es {
			if e.IntentToAdd || e.SkipWorktree {
				version = 3
				break
			}
		}
	}
	data, err := encodeIndex(&index.Index{Entries: es}, version, extras)
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := os.Rename(l.lockPath, l.path); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	l.done = true
	l.mu.Unlock()
	return nil
}

// compareKeys orders entries by path, then stage; a nil entry (the end of
// its list) sorts last.
func compareKeys(a, b *index.Entry) int {
	switch {
	case a == nil:
		return 1
	case b == nil:
		return -1
	case a.Name != b.Name:
		return strings.Compare(a.Name, b.Name)
	}
	return int(a.Stage) - int(b.Stage)
}

// checkEntries refuses sorted entries with duplicates and paths that are
// both merged and unmerged.
func checkEntries(es []*index.Entry) error {
	for k, e := range es {
		if e.Stage < 0 || e.Stage > 3 {
			return &IndexEntryError{Path: e.Name, Reason: fmt.Sprintf("has stage %d", e.Stage)}
		}
		if k > 0 && es[k-1].Name == e.Name {
			if es[k-1].Stage == e.Stage {
				return &IndexEntryError{Path: e.Name, Reason: "is listed twice"}
			}
			if es[k-1].Stage == 0 {
				return &IndexEntryError{Path: e.Name, Reason: "is both merged and unmerged"}
			}
		}
	}
	return nil
}

// checkChangedPaths refuses an index where a changed path is invalid, or
// is a file and also a directory of other entries (git's index never holds
// both). Only changed paths are checked: the index as read was valid.
func checkChangedPaths(es []*index.Entry, changed []string) error {
	find := func(p string) int {
		return sort.Search(len(es), func(i int) bool { return es[i].Name >= p })
	}
	for _, p := range changed {
		if k := find(p); k >= len(es) || es[k].Name != p {
			continue // removed
		}
		if err := checkTreePath(p); err != nil {
			return &IndexEntryError{Path: p, Reason: err.(*TreeError).Reason}
		}
		if k := find(p + "/"); k < len(es) && strings.HasPrefix(es[k].Name, p+"/") {
			return &IndexEntryError{Path: p, Reason: "is both a file and a directory (" + es[k].Name + ")"}
		}
		for d := p; ; {
			slash := strings.LastIndexByte(d, '/')
			if slash < 0 {
				break
			}
			d = d[:slash]
			if k := find(d); k < len(es) && es[k].Name == d {
				return &IndexEntryError{Path: d, Reason: "is both a file and a directory (" + p + ")"}
			}
		}
	}
	return nil
}

// fullCacheTree returns the complete cache-tree of es when they write
// exactly the existing tree, else nil.
func (l *IndexLock) fullCacheTree(es []*index.Entry, tree plumbing.Hash) *cacheTree {
	inputs := make([]TreeEntryInput, len(es))
	for k, e := range es {
		if e.Stage != 0 || e.IntentToAdd {
			return nil
		}
		inputs[k] = TreeEntryInput{Path: e.Name, Mode: e.Mode, Hash: e.Hash}
	}
	root, err := buildTree(inputs, hashTree)
	if err != nil || root.hash != tree || l.r.Git == nil || l.r.Git.Storer.HasEncodedObject(tree) != nil {
		return nil
	}
	return cacheTreeOf(root)
}

// smudgeRacy is git's ce_smudge_racily_clean_entry for the entries that
// were not changed: an entry whose mtime is not older than the old index
// could have been recorded just before its file changed within the same
// timestamp. Once the new index is written it would no longer look racy,
// so when its stat data still matches but the content differs, its size is
// zeroed to force a content comparison.
func (l *IndexLock) smudgeRacy(es []*index.Entry) {
	for _, e := range es {
		if e.Stage != 0 || e.SkipWorktree || e.IntentToAdd || !IsRacy(e, l.mtime) {
			continue
		}
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable && e.Mode != filemode.Symlink {
			continue
		}
		abs := l.r.Abs(e.Name)
		fi, err := os.Lstat(abs)
		if err != nil || !StatMatches(e, fi) {
			continue // changed: git sees it without help
		}
		content, err := ReadWorktreeBlob(abs, fi)
		if err == nil && l.Clean != nil && fi.Mode().IsRegular() {
			content = l.Clean(e, content)
		}
		if err != nil || BlobHash(content) != e.Hash {
			e.Size = 0
		}
	}
}

// ReadWorktreeBlob returns the blob content of a worktree file as git
// stores it without filters: the bytes of a regular file, or the target of
// a symlink (slash-separated). fi is the file's Lstat.
func ReadWorktreeBlob(abs string, fi os.FileInfo) ([]byte, error) {
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return nil, err
		}
		return []byte(filepath.ToSlash(target)), nil
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularFileError{Path: abs, Mode: fi.Mode()}
	}
	return ReadRegularNoFollow(abs, MaxDataFileBytes)
}
