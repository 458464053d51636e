package checkpoint

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Restored is the result of Restore.
type Restored struct {
	// Checkpoint is the restored checkpoint.
	Checkpoint Checkpoint `json:"checkpoint"`
	// PreRestore is the checkpoint of the state before the restore, which
	// restores it again.
	PreRestore Checkpoint `json:"preRestore"`
	// Unconverted are the files written without a conversion git would
	// apply (a clean/smudge filter such as git-lfs, ident,
	// working-tree-encoding).
	Unconverted []status.Unconverted `json:"-"`
}

// Restore brings back the checkpoint id: it first creates a checkpoint of
// the current state (label "Before restoring <id>", source "restore"),
// then makes the worktree equal to the checkpoint's files (changed files
// rewritten, missing ones created, tracked and untracked-not-ignored files
// it lacks deleted; ignored files, submodules and .git untouched) and sets
// the index to the checkpoint's index, with fresh stat data. HEAD and the
// branch do not move. An unknown id gives an *UnknownCheckpointError.
//
// Files are written with the line endings git would write for them (the
// inverse of the conversion Create stored them with): attributes from the
// checkpoint's own .gitattributes files (its worktree's, else its
// index's), core.autocrlf and core.eol from the configuration.
//
// During a merge, rebase, cherry-pick, revert or am, or with unmerged
// paths in the index, it refuses with an *InProgressError and changes
// nothing: replacing the index would lose that state.
func Restore(ctx context.Context, r *repo.Repo, id string) (Restored, error) {
	defer lockRepo(r)()
	ix, err := status.NewEngine(r).Index()
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: %w", err)
	}
	if err := checkNoOperation(r.GitDir, ix, true); err != nil {
		return Restored{}, err
	}
	cp, commitW, err := findCheckpoint(r, id)
	if err != nil {
		return Restored{}, err
	}
	w, err := object.GetCommit(r.Git.Storer, commitW)
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: %w", err)
	}
	commitI := plumbing.NewHash(cp.IndexCommit)
	if cp.IndexCommit == "" && len(w.ParentHashes) > 0 {
		commitI = w.ParentHashes[len(w.ParentHashes)-1]
	}
	ci, err := object.GetCommit(r.Git.Storer, commitI)
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: index commit: %w", err)
	}
	wantW, err := status.FlattenTree(ctx, r.Git.Storer, w.TreeHash)
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: %w", err)
	}
	wantI, err := status.FlattenTree(ctx, r.Git.Storer, ci.TreeHash)
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: %w", err)
	}

	// The index is locked first, so that a busy repository fails before
	// anything is done.
	lock, err := repo.LockIndex(r)
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: %w", err)
	}
	defer lock.Rollback()
	pre, snap, err := create(ctx, r, Meta{Label: "Before restoring " + id, Source: "restore"}, true)
	if IsInProgress(err) {
		return Restored{}, err
	}
	if err != nil {
		return Restored{}, fmt.Errorf("checkpoint restore: saving the current state: %w", err)
	}
	fail := func(err error) (Restored, error) {
		return Restored{}, fmt.Errorf("checkpoint restore: %w (the state before the restore is saved as checkpoint %s)", err, pre.ID)
	}
	// The restored state's attributes: its worktree's .gitattributes files,
	// else its index's.
	conv := status.NewConverter(r, treeAttributes(r, wantW), treeAttributes(r, wantI))
	var unconv []status.Unconverted
	written, err := restoreWorktree(ctx, r, snap.files, wantW, conv, &unconv)
	if err != nil {
		return fail(err)
	}
	idx := restoredIndex(r, lock, wantI, wantW, written, conv)
	lock.Clean = func(e *index.Entry, content []byte) []byte {
		return conv.Clean(e.Name, content, func() ([]byte, bool) {
			b, err := repo.ReadBlob(r.Git.Storer, e.Hash)
			return b, err == nil
		})
	}
	if err := lock.CommitTree(idx, ci.TreeHash); err != nil {
		return fail(err)
	}
	return Restored{Checkpoint: cp, PreRestore: pre, Unconverted: unconv}, nil
}

// treeAttributes is an attribute source reading in-tree .gitattributes
// files from a flattened tree.
func treeAttributes(r *repo.Repo, files []status.TreeEntry) status.AttrSource {
	byPath := make(map[string]status.TreeEntry)
	for _, e := range files {
		if e.Path == ".gitattributes" || strings.HasSuffix(e.Path, "/.gitattributes") {
			byPath[e.Path] = e
		}
	}
	return func(p string) ([]byte, bool) {
		e, ok := byPath[p]
		if !ok || (e.Mode != filemode.Regular && e.Mode != filemode.Executable) {
			return nil, false
		}
		b, err := repo.ReadBlob(r.Git.Storer, e.Hash)
		return b, err == nil
	}
}

// findCheckpoint returns a checkpoint's metadata and its worktree commit.
// A checkpoint whose metadata was lost is still found by its ref.
func findCheckpoint(r *repo.Repo, id string) (Checkpoint, plumbing.Hash, error) {
	if !idPattern.MatchString(id) {
		return Checkpoint{}, plumbing.ZeroHash, &UnknownCheckpointError{ID: id}
	}
	list, err := readMetadata(r)
	if err != nil {
		return Checkpoint{}, plumbing.ZeroHash, err
	}
	cp := Checkpoint{ID: id, Ref: refPrefix + id, Root: r.Root}
	for _, c := range list {
		if c.ID == id {
			cp = c
			break
		}
	}
	h, ok := checkpointCommit(r, cp)
	if !ok {
		return Checkpoint{}, plumbing.ZeroHash, &UnknownCheckpointError{ID: id}
	}
	if cp.Commit == "" {
		cp.Commit = h.String()
	}
	return cp, h, nil
}

// restoreWorktree makes the worktree hold exactly want: files of current
// (the worktree as just snapshotted) that want lacks are deleted first,
// then files that differ are written, regular files with the line endings
// conv gives them (those written without a conversion git would apply are
// added to unconv). It returns the Lstat of every file it wrote.
func restoreWorktree(ctx context.Context, r *repo.Repo, current []repo.TreeEntryInput, want []status.TreeEntry,
	conv *status.Converter, unconv *[]status.Unconverted) (map[string]os.FileInfo, error) {
	have := make(map[string]repo.TreeEntryInput, len(current))
	for _, f := range current {
		have[f.Path] = f
	}
	wanted := make(map[string]bool, len(want))
	for _, e := range want {
		wanted[e.Path] = true
	}
	for _, f := range current {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if wanted[f.Path] || f.Mode == filemode.Submodule {
			continue
		}
		if err := repo.RemoveWorktreeFile(r, f.Path); err != nil {
			return nil, err
		}
	}
	written := make(map[string]os.FileInfo)
	for _, e := range want {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.Mode == filemode.Submodule {
			continue
		}
		if h, ok := have[e.Path]; ok && h.Hash == e.Hash && h.Mode == e.Mode {
			continue
		}
		content, err := repo.ReadBlob(r.Git.Storer, e.Hash)
		if err != nil {
			return nil, err
		}
		if e.Mode == filemode.Regular || e.Mode == filemode.Executable {
			content = conv.Smudge(e.Path, content)
			if what := conv.Unsupported(e.Path); what != "" {
				*unconv = append(*unconv, status.Unconverted{Path: e.Path, What: what})
			}
		}
		fi, err := repo.WriteWorktreeFile(r, e.Path, content, e.Mode)
		if err != nil {
			return nil, err
		}
		written[e.Path] = fi
	}
	return written, nil
}

// restoredIndex builds the index of the checkpoint: its entries with the
// stat data of their worktree file when that file holds the entry's
// content (as conv cleans it), else none (compared by content later).
func restoredIndex(r *repo.Repo, lock *repo.IndexLock, wantI, wantW []status.TreeEntry, written map[string]os.FileInfo, conv *status.Converter) *index.Index {
	idx := lock.Index()
	old := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			old[e.Name] = e
		}
	}
	inW := make(map[string]status.TreeEntry, len(wantW))
	for _, e := range wantW {
		inW[e.Path] = e
	}
	entries := make([]*index.Entry, 0, len(wantI))
	for _, e := range wantI {
		n := &index.Entry{Name: e.Path, Hash: e.Hash, Mode: e.Mode}
		w, ok := inW[e.Path]
		sameAsFile := ok && w.Hash == e.Hash && w.Mode == e.Mode
		switch {
		case !sameAsFile:
		case written[e.Path] != nil:
			repo.FillStat(n, written[e.Path])
		case old[e.Path] != nil && old[e.Path].Hash == e.Hash && old[e.Path].Mode == e.Mode:
			o := old[e.Path]
			n.CreatedAt, n.ModifiedAt, n.Dev, n.Inode, n.UID, n.GID, n.Size =
				o.CreatedAt, o.ModifiedAt, o.Dev, o.Inode, o.UID, o.GID, o.Size
			n.SkipWorktree = o.SkipWorktree
		case e.Mode != filemode.Submodule:
			if fi, err := os.Lstat(r.Abs(e.Path)); err == nil {
				b, err := repo.ReadWorktreeBlob(r.Abs(e.Path), fi)
				if err == nil && fi.Mode().IsRegular() {
					b = conv.Clean(e.Path, b, func() ([]byte, bool) {
						blob, err := repo.ReadBlob(r.Git.Storer, e.Hash)
						return blob, err == nil
					})
				}
				if err == nil && repo.BlobHash(b) == e.Hash {
					repo.FillStat(n, fi)
				}
			}
		}
		entries = append(entries, n)
	}
	idx.Entries = entries
	return idx
}
