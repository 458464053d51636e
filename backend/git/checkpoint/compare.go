package checkpoint

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// WorktreeSide names the current worktree in a Comparison.
const WorktreeSide = "worktree"

// Comparison is the difference between two snapshots.
type Comparison struct {
	// Left and Right name the compared sides as given (Right is
	// WorktreeSide for the current worktree).
	Left  string `json:"left"`
	Right string `json:"right"`
	Stat  Stat   `json:"stat"`
	// Files are the changed files, sorted by path.
	Files []FileChange `json:"files"`
	// Patch is the unified diff of all files, "" unless asked for.
	Patch string `json:"patch"`
}

// Stat sums a comparison.
type Stat struct {
	Files     int `json:"files"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

// FileChange is one changed file.
type FileChange struct {
	Path string `json:"path"`
	// Status is "added", "deleted" or "modified" (content, mode or type).
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary"`
}

// side is one compared snapshot as a sorted file list with content access.
type side struct {
	files []status.TreeEntry
	// worktree is set for the current worktree: files may lack a hash and
	// are read from disk, through eng (which cleans them as git add would
	// store them).
	worktree bool
	eng      *status.Engine
}

// Compare compares two snapshots. left and right are each a checkpoint
// id, a ref (refs/…), "HEAD", or another revision go-git resolves (a
// branch, a commit); right "" is the current worktree (its files as a
// checkpoint would record them). An unknown name gives an
// *UnknownCheckpointError. With includePatch the unified diff of every
// file is returned too.
func Compare(ctx context.Context, r *repo.Repo, left, right string, includePatch bool) (*Comparison, error) {
	if left == "" {
		return nil, &repo.ArgumentError{Reason: "left is required (a checkpoint id, a ref or HEAD)"}
	}
	a, err := resolveSide(ctx, r, left)
	if err != nil {
		return nil, err
	}
	b, err := resolveSide(ctx, r, right)
	if err != nil {
		return nil, err
	}
	out := &Comparison{Left: left, Right: right, Files: []FileChange{}}
	if right == "" {
		out.Right = WorktreeSide
	}
	var text strings.Builder
	i, j := 0, 0
	for i < len(a.files) || j < len(b.files) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var old, cur *status.TreeEntry
		switch {
		case j >= len(b.files) || i < len(a.files) && a.files[i].Path < b.files[j].Path:
			old = &a.files[i]
			i++
		case i >= len(a.files) || b.files[j].Path < a.files[i].Path:
			cur = &b.files[j]
			j++
		default:
			old, cur = &a.files[i], &b.files[j]
			i++
			j++
		}
		fc, fileText, err := compareFile(ctx, r, a, b, old, cur, includePatch)
		if err != nil {
			return nil, err
		}
		if fc == nil {
			continue
		}
		out.Files = append(out.Files, *fc)
		out.Stat.Files++
		out.Stat.Additions += fc.Additions
		out.Stat.Deletions += fc.Deletions
		text.Write(fileText)
	}
	out.Patch = text.String()
	return out, nil
}

// compareFile compares one path; a nil FileChange means unchanged.
func compareFile(ctx context.Context, r *repo.Repo, a, b side, old, cur *status.TreeEntry, includePatch bool) (*FileChange, []byte, error) {
	if old != nil && cur != nil && !cur.Hash.IsZero() && old.Hash == cur.Hash && old.Mode == cur.Mode {
		return nil, nil, nil // known equal without reading
	}
	var oldContent, curContent []byte
	var err error
	if old != nil {
		if oldContent, err = content(r, a, old); err != nil {
			return nil, nil, err
		}
	}
	if cur != nil {
		if curContent, err = content(r, b, cur); err != nil {
			return nil, nil, err
		}
		if cur.Hash.IsZero() {
			cur.Hash = repo.BlobHash(curContent)
		}
	}
	if old != nil && cur != nil && old.Hash == cur.Hash && old.Mode == cur.Mode {
		return nil, nil, nil
	}
	f := patch.File{}
	fc := &FileChange{Status: "modified"}
	switch {
	case old == nil:
		fc.Path, fc.Status = cur.Path, "added"
		f.NewPath, f.NewMode, f.New, f.NewHash = cur.Path, cur.Mode, curContent, cur.Hash.String()
	case cur == nil:
		fc.Path, fc.Status = old.Path, "deleted"
		f.OldPath, f.OldMode, f.Old, f.OldHash = old.Path, old.Mode, oldContent, old.Hash.String()
	default:
		fc.Path = cur.Path
		f = patch.File{OldPath: old.Path, NewPath: cur.Path, OldMode: old.Mode, NewMode: cur.Mode,
			Old: oldContent, New: curContent, OldHash: old.Hash.String(), NewHash: cur.Hash.String()}
	}
	if !includePatch {
		adds, dels, binary, err := patch.CountsContext(ctx, f.Old, f.New)
		if err != nil {
			return nil, nil, err
		}
		fc.Additions, fc.Deletions, fc.Binary = adds, dels, binary
		return fc, nil, nil
	}
	text, st, err := patch.Unified(ctx, f, nil)
	if err != nil {
		return nil, nil, err
	}
	fc.Additions, fc.Deletions, fc.Binary = st.Additions, st.Deletions, st.Binary
	return fc, text, nil
}

// content returns a file's blob content: from the object store, or from
// disk for a worktree file (a gitlink is "Subproject commit <hash>", as git
// diff shows it).
func content(r *repo.Repo, s side, e *status.TreeEntry) ([]byte, error) {
	if e.Mode == filemode.Submodule {
		return []byte("Subproject commit " + e.Hash.String() + "\n"), nil
	}
	if s.worktree && e.Hash.IsZero() || s.worktree && r.Git.Storer.HasEncodedObject(e.Hash) != nil {
		abs := r.Abs(e.Path)
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, nil // vanished: compared as empty
		}
		b, err := repo.ReadWorktreeBlob(abs, fi)
		if err != nil {
			return nil, nil
		}
		if fi.Mode().IsRegular() && s.eng != nil {
			if b, err = s.eng.Clean(e.Path, b); err != nil {
				return nil, err
			}
		}
		e.Hash = repo.BlobHash(b)
		return b, nil
	}
	return repo.ReadBlob(r.Git.Storer, e.Hash)
}

// resolveSide turns a name into a file list.
func resolveSide(ctx context.Context, r *repo.Repo, name string) (side, error) {
	if name == "" {
		eng := status.NewEngine(r)
		files, err := eng.WorktreeFiles(ctx)
		if err != nil {
			return side{}, fmt.Errorf("checkpoint compare: %w", err)
		}
		s := side{worktree: true, eng: eng, files: make([]status.TreeEntry, len(files))}
		for k, f := range files {
			s.files[k] = status.TreeEntry{Path: f.Path, Hash: f.Hash, Mode: f.Mode}
		}
		return s, nil
	}
	commit, err := resolveName(r, name)
	if err != nil {
		return side{}, err
	}
	if commit.IsZero() {
		return side{}, nil // HEAD of an unborn branch: nothing
	}
	c, err := object.GetCommit(r.Git.Storer, commit)
	if err != nil {
		return side{}, fmt.Errorf("checkpoint compare: %s: %w", name, err)
	}
	files, err := status.FlattenTree(ctx, r.Git.Storer, c.TreeHash)
	if err != nil {
		return side{}, fmt.Errorf("checkpoint compare: %w", err)
	}
	return side{files: files}, nil
}

// resolveName resolves a checkpoint id, ref, HEAD or revision to a commit
// (zero for HEAD on an unborn branch).
func resolveName(r *repo.Repo, name string) (plumbing.Hash, error) {
	if name == "HEAD" {
		return headCommit(r)
	}
	if idPattern.MatchString(name) {
		if h, ok, err := resolveRef(r, refPrefix+name); err != nil {
			return plumbing.ZeroHash, err
		} else if ok {
			return h, nil
		}
		return plumbing.ZeroHash, &UnknownCheckpointError{ID: name}
	}
	if strings.HasPrefix(name, "refs/") && !strings.Contains(name, "..") {
		if h, ok, err := resolveRef(r, name); err != nil {
			return plumbing.ZeroHash, err
		} else if ok {
			return h, nil
		}
		return plumbing.ZeroHash, &UnknownCheckpointError{ID: name}
	}
	if strings.HasPrefix(name, "-") {
		return plumbing.ZeroHash, &UnknownCheckpointError{ID: name}
	}
	h, err := r.Git.ResolveRevision(plumbing.Revision(name))
	if err != nil {
		return plumbing.ZeroHash, &UnknownCheckpointError{ID: name}
	}
	return *h, nil
}
