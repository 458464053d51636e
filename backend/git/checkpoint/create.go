package checkpoint

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Meta describes why a checkpoint is taken; every field is optional.
type Meta struct {
	Label      string
	Source     string
	SessionID  string
	ToolCallID string
}

// Signature of the hidden checkpoint commits.
const (
	authorName  = "meith"
	authorEmail = "meith@localhost"
)

// idPattern is what a checkpoint id looks like (it becomes a ref name).
var idPattern = regexp.MustCompile(`^[0-9a-z]{1,16}-[0-9a-z]{8}$`)

// newID returns "<unix ms base 36>-<8 random base-36 digits>".
func newID(now time.Time) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 8)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(36))
		if err != nil {
			n = big.NewInt(now.UnixNano() % 36)
		}
		b[i] = digits[n.Int64()]
	}
	return strconv.FormatInt(now.UnixMilli(), 36) + "-" + string(b)
}

// snapshot is what Create learned about the worktree, for Restore.
type snapshot struct {
	// files are the worktree files as stored in W, sorted by path.
	files []repo.TreeEntryInput
}

// Create snapshots the worktree and the index as a checkpoint without
// changing the index, any file, HEAD or a branch. Only files whose blob is
// not known from the index (or from an earlier checkpoint of the same
// file) are read; files are stored as git add would store them (line
// endings converted by core.autocrlf and the text/eol attributes).
//
// During a merge, rebase, cherry-pick, revert or am, or with unmerged
// paths in the index, it refuses with an *InProgressError: the checkpoint
// could not keep that state, and restoring it would lose it.
func Create(ctx context.Context, r *repo.Repo, meta Meta) (Checkpoint, error) {
	defer lockRepo(r)()
	cp, _, err := create(ctx, r, meta, false)
	return cp, err
}

// create takes a checkpoint; restore says it is the one Restore takes
// first (for the message of a refusal).
func create(ctx context.Context, r *repo.Repo, meta Meta, restore bool) (Checkpoint, *snapshot, error) {
	now := time.Now()
	id := newID(now)
	eng := status.NewEngine(r)
	ix, err := eng.Index()
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := checkNoOperation(r.GitDir, ix, restore); err != nil {
		return Checkpoint{}, nil, err
	}
	files, err := eng.WorktreeFiles(ctx)
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	if ix, err = eng.Index(); err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	conv, err := eng.Converter()
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	head, err := headCommit(r)
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	s := r.Git.Storer

	// Tree I: the merged index entries.
	indexEntries := make([]repo.TreeEntryInput, 0, len(ix.Entries))
	for _, e := range ix.Entries {
		if e.Stage == 0 && !e.IntentToAdd {
			indexEntries = append(indexEntries, repo.TreeEntryInput{Path: e.Path, Mode: e.Mode, Hash: e.Hash})
		}
	}
	treeI, err := repo.WriteTree(s, indexEntries)
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: index tree: %w", err)
	}

	// Tree W: the worktree files.
	snap := &snapshot{files: make([]repo.TreeEntryInput, 0, len(files))}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return Checkpoint{}, nil, err
		}
		in := repo.TreeEntryInput{Path: f.Path, Mode: f.Mode, Hash: f.Hash}
		if f.Mode == filemode.Submodule {
			// A submodule is recorded by its index commit, never entered.
			if i, ok := ix.Find(f.Path); ok && ix.Entries[i].Stage == 0 {
				in.Hash = ix.Entries[i].Hash
			}
			if in.Hash.IsZero() {
				continue
			}
			snap.files = append(snap.files, in)
			continue
		}
		if !in.Hash.IsZero() && storedBlob(s, ix, f) {
			snap.files = append(snap.files, in)
			continue
		}
		in, ok, err := storeFile(r, f, conv, eng, ix)
		if err != nil {
			return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
		}
		if ok {
			snap.files = append(snap.files, in)
		}
	}
	treeW, err := repo.WriteTree(s, snap.files)
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: worktree tree: %w", err)
	}

	var parents []plumbing.Hash
	if !head.IsZero() {
		parents = append(parents, head)
	}
	commitI, err := writeCommit(r, treeI, parents, "index of "+id, now)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	message := meta.Label
	if message == "" {
		message = "Meith checkpoint " + id
	}
	commitW, err := writeCommit(r, treeW, append(parents, commitI), message, now)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	ref := refPrefix + id
	if err := writeRef(r, ref, commitW); err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	cp := Checkpoint{
		ID: id, Ref: ref, Root: r.Root, Commit: commitW.String(), IndexCommit: commitI.String(),
		CreatedAt: now.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Label:     meta.Label, Source: meta.Source, SessionID: meta.SessionID, ToolCallID: meta.ToolCallID,
	}
	if !head.IsZero() {
		cp.BaseHead = head.String()
	}
	err = updateMetadata(r, func(list []Checkpoint) ([]Checkpoint, bool) {
		return append([]Checkpoint{cp}, list...), true
	})
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	return cp, snap, nil
}

// storedBlob reports whether the blob status found for a file is in the
// object store: the index's blob of a clean file, or one an earlier
// checkpoint (or git) stored.
func storedBlob(s interface{ HasEncodedObject(plumbing.Hash) error }, ix *status.Index, f status.WorktreeFile) bool {
	if i, ok := ix.Find(f.Path); ok && ix.Entries[i].Stage == 0 && ix.Entries[i].Hash == f.Hash {
		return true
	}
	return s.HasEncodedObject(f.Hash) == nil
}

// storeFile reads a worktree file and stores its blob, cleaned by conv
// as git add would store it (with the blob of ix for the safe-autocrlf
// rule). ok is false when the file vanished since the walk.
func storeFile(r *repo.Repo, f status.WorktreeFile, conv *status.Converter, eng *status.Engine, ix *status.Index) (repo.TreeEntryInput, bool, error) {
	abs := r.Abs(f.Path)
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return repo.TreeEntryInput{}, false, nil
	}
	if err != nil {
		return repo.TreeEntryInput{}, false, err
	}
	mode := f.Mode
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		mode = filemode.Symlink
	case fi.Mode().IsRegular():
		if mode != filemode.Regular && mode != filemode.Executable {
			mode = filemode.Regular
		}
	default:
		return repo.TreeEntryInput{}, false, nil // replaced by a directory
	}
	// Only content stored as it is can be cached by stat data: a
	// conversion also depends on the attributes and the index.
	converts := fi.Mode().IsRegular() && conv.Converts(f.Path)
	if !converts {
		if h, ok := blobCache.get(r, f.Path, fi); ok {
			return repo.TreeEntryInput{Path: f.Path, Mode: mode, Hash: h}, true, nil
		}
	}
	content, err := repo.ReadWorktreeBlob(abs, fi)
	if errors.Is(err, fs.ErrNotExist) {
		return repo.TreeEntryInput{}, false, nil
	}
	if err != nil {
		return repo.TreeEntryInput{}, false, err
	}
	if converts {
		content = conv.Clean(f.Path, content, func() ([]byte, bool) {
			i, ok := ix.Find(f.Path)
			if !ok || ix.Entries[i].Stage != 0 {
				return nil, false
			}
			b, err := eng.ReadBlob(ix.Entries[i].Hash)
			return b, err == nil
		})
	}
	h, err := repo.WriteBlob(r.Git.Storer, content)
	if err != nil {
		return repo.TreeEntryInput{}, false, err
	}
	if !converts {
		blobCache.put(r, f.Path, fi, h)
	}
	return repo.TreeEntryInput{Path: f.Path, Mode: mode, Hash: h}, true, nil
}

// writeCommit stores a checkpoint commit object.
func writeCommit(r *repo.Repo, tree plumbing.Hash, parents []plumbing.Hash, message string, when time.Time) (plumbing.Hash, error) {
	var b []byte
	b = append(b, "tree "+tree.String()+"\n"...)
	for _, p := range parents {
		b = append(b, "parent "+p.String()+"\n"...)
	}
	sig := fmt.Sprintf("%s <%s> %d +0000", authorName, authorEmail, when.Unix())
	b = append(b, "author "+sig+"\ncommitter "+sig+"\n\n"...)
	b = append(b, message...)
	if len(message) == 0 || message[len(message)-1] != '\n' {
		b = append(b, '\n')
	}
	h, err := repo.WriteObject(r.Git.Storer, plumbing.CommitObject, b)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: %w", err)
	}
	return h, nil
}

// blobCache remembers the blobs of files a checkpoint had to read, keyed by
// their stat data, so that an unchanged untracked file is not read again by
// the next checkpoint.
var blobCache = &statCache{m: make(map[string]cachedBlob)}

type statCache struct {
	mu sync.Mutex
	m  map[string]cachedBlob
}

type cachedBlob struct {
	mtime, ctime time.Time
	size         int64
	ino          uint32
	mode         os.FileMode
	hash         plumbing.Hash
}

// maxCachedBlobs bounds the cache.
const maxCachedBlobs = 50000

func statKey(fi os.FileInfo) cachedBlob {
	var e index.Entry
	repo.FillStat(&e, fi)
	return cachedBlob{mtime: e.ModifiedAt, ctime: e.CreatedAt, size: fi.Size(), ino: e.Inode, mode: fi.Mode()}
}

func (c *statCache) get(r *repo.Repo, p string, fi os.FileInfo) (plumbing.Hash, bool) {
	k := statKey(fi)
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[r.CommonDir+"\x00"+r.Root+"\x00"+p]
	if !ok || !v.mtime.Equal(k.mtime) || !v.ctime.Equal(k.ctime) || v.size != k.size || v.ino != k.ino || v.mode != k.mode {
		return plumbing.ZeroHash, false
	}
	return v.hash, true
}

// put caches a blob unless the file changed too recently to trust its stat
// data (a later write within the timestamp granularity could keep it).
func (c *statCache) put(r *repo.Repo, p string, fi os.FileInfo, h plumbing.Hash) {
	k := statKey(fi)
	limit := time.Now().Add(-2 * time.Second)
	if !k.mtime.Before(limit) || !k.ctime.Before(limit) {
		return
	}
	k.hash = h
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedBlobs {
		c.m = make(map[string]cachedBlob)
	}
	c.m[r.CommonDir+"\x00"+r.Root+"\x00"+p] = k
}
