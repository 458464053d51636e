package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// DirtyFunc reports the repository-relative paths with local changes:
// staged, unstaged and untracked (not ignored) files. Directories may be
// reported with or without a trailing slash. The status engine provides
// it.
type DirtyFunc func(ctx context.Context) ([]string, error)

// SwitchBranch switches the worktree, index and HEAD to a local branch,
// like `git switch <name>`: files that differ between the current commit
// and the branch's are rewritten (modes and symlinks included) and get
// fresh stat data in the index; every other file and index entry is left
// alone, so local changes to them carry over. A name that is not a local
// branch but matches exactly one remote-tracking branch creates a tracking
// branch first, as git's --guess does.
//
// It refuses with a *WouldOverwriteError, changing nothing, when a path it
// must rewrite or delete has staged or unstaged changes (checked like git:
// the index against HEAD, the file against the index by stat data and then
// content), or when an untracked file would be overwritten. dirty decides
// which untracked files matter: those it reports are kept safe, others
// (ignored files) are overwritten as git does; with a nil dirty every
// existing untracked file blocks. A branch checked out in another worktree
// gives a *BranchCheckedOutError, an index with conflicts a
// *repo.UnmergedError.
//
// Files are compared and written with git's end-of-line conversion
// (core.autocrlf, core.eol, the text/eol attributes; for writing, the
// .gitattributes files of the new index first, as git's checkout reads
// them). Clean/smudge filters, ident and working-tree-encoding are not
// applied: Switch lists the files it wrote without them.
func SwitchBranch(ctx context.Context, r *repo.Repo, name string, dirty DirtyFunc) error {
	_, err := Switch(ctx, r, name, dirty)
	return err
}

// SwitchResult is what Switch reports besides an error.
type SwitchResult struct {
	// Unconverted are the files written without a conversion git would
	// apply (a clean/smudge filter such as git-lfs, ident,
	// working-tree-encoding), sorted by path.
	Unconverted []status.Unconverted
}

// Switch is SwitchBranch, reporting the files written without a
// conversion git would apply.
func Switch(ctx context.Context, r *repo.Repo, name string, dirty DirtyFunc) (*SwitchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if name == "" || strings.HasPrefix(name, "-") {
		return nil, &repo.ArgumentError{Field: "name", Reason: "must name a branch"}
	}
	name = strings.TrimPrefix(name, "refs/heads/")
	if err := ValidateBranchName(name); err != nil {
		return nil, err
	}
	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	ref := "refs/heads/" + name
	if head.Symbolic == ref {
		return &SwitchResult{}, nil // already on it
	}
	target, _, err := readRef(r, ref)
	if errors.Is(err, fs.ErrNotExist) {
		remote, guessErr := guessRemoteBranch(r, name)
		if guessErr != nil {
			return nil, guessErr
		}
		if err := CreateBranch(ctx, r, name, strings.TrimPrefix(remote, "refs/remotes/")); err != nil {
			return nil, err
		}
		target, _, err = readRef(r, ref)
	}
	if err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	if wts, err := ListWorktrees(ctx, r); err == nil {
		self := filepath.Clean(r.Root)
		for _, wt := range wts {
			if wt.Branch == ref && filepath.Clean(wt.Path) != self {
				return nil, &BranchCheckedOutError{Branch: name, Path: wt.Path}
			}
		}
	}

	lock, err := lockIndex(r, r.GitDir)
	if err != nil {
		return nil, err
	}
	defer lock.Rollback()
	idx := lock.Index()
	// Local changes are found as git add would store the files: attributes
	// from the worktree, else the index.
	conv := status.NewConverter(r, status.WorktreeAttributes(r.Root), indexAttributes(r, idx))
	plan, err := planCheckout(ctx, r, idx, head.Hash, target, dirty, conv)
	if err != nil {
		return nil, err
	}
	res := &SwitchResult{}
	out, err := plan.apply(ctx, r, idx, conv, &res.Unconverted)
	if err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	cleanLock(r, lock, out)
	if err := lock.Commit(idx); err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	from := strings.TrimPrefix(head.Symbolic, "refs/heads/")
	if head.Symbolic == "" {
		from = head.Hash.String()
	}
	if err := writeHead(r, r.GitDir, ref, plumbing.ZeroHash, head.Hash, reflogIdent(r),
		"checkout: moving from "+from+" to "+name); err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	return res, nil
}

// guessRemoteBranch finds the single remote-tracking branch named
// <remote>/<name>.
func guessRemoteBranch(r *repo.Repo, name string) (string, error) {
	refs, err := listRefs(r, "refs/remotes/")
	if err != nil {
		return "", err
	}
	var found []string
	for _, ref := range refs {
		rest := strings.TrimPrefix(ref.Name, "refs/remotes/")
		if _, branch, ok := strings.Cut(rest, "/"); ok && branch == name && ref.Symbolic == "" {
			found = append(found, ref.Name)
		}
	}
	if len(found) != 1 {
		return "", &UnknownRevisionError{Rev: name}
	}
	return found[0], nil
}

// checkoutPlan is the work of a two-tree checkout.
type checkoutPlan struct {
	removes []treeChange // paths to delete (Old set)
	writes  []treeChange // paths to write (New set)
}

// planCheckout decides, path by path, what moving from commit from to
// commit to does, following git's two-way merge (unpack-trees.c
// twoway_merge): for a path whose old and new versions differ, an index
// entry equal to the new version is kept, one equal to the old version is
// updated (if the file matches the index), anything else is refused.
// conv cleans worktree files before they are compared with their entries.
func planCheckout(ctx context.Context, r *repo.Repo, idx *index.Index, from, to plumbing.Hash, dirty DirtyFunc, conv *status.Converter) (*checkoutPlan, error) {
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			return nil, &repo.UnmergedError{Paths: unmergedPaths(idx), WholeIndex: true}
		}
	}
	fromTree, toTree := plumbing.ZeroHash, plumbing.ZeroHash
	cs := newCommitSource(r, r.Git.Storer)
	defer cs.close()
	if !from.IsZero() {
		n, err := cs.get(from)
		if err != nil {
			return nil, fmt.Errorf("switch: %w", err)
		}
		fromTree = n.Tree
	}
	n, err := cs.get(to)
	if err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}
	toTree = n.Tree
	changes, err := diffTrees(ctx, r.Git.Storer, fromTree, toTree)
	if err != nil {
		return nil, fmt.Errorf("switch: %w", err)
	}

	var untracked map[string]bool
	if dirty != nil {
		paths, err := dirty(ctx)
		if err != nil {
			return nil, fmt.Errorf("switch: local changes: %w", err)
		}
		untracked = map[string]bool{}
		for _, p := range paths {
			untracked[strings.TrimSuffix(filepath.ToSlash(p), "/")] = true
		}
	}
	entries := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		entries[e.Name] = e
	}
	deleted := map[string]bool{}
	for _, c := range changes {
		if c.New.Mode == 0 {
			deleted[c.Path] = true
		}
	}

	plan := &checkoutPlan{}
	var refused []string
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !safeTreePath(c.Path) {
			return nil, &UnsupportedError{Feature: fmt.Sprintf("an unsafe path %q in its tree", c.Path)}
		}
		old, nw := c.Old, c.New
		e := entries[c.Path]
		switch {
		case e != nil && nw.Mode != 0 && sameEntry(e, nw):
			// The index already has the new version: keep it.
		case e != nil && old.Mode != 0 && nw.Mode == 0 && sameEntry(e, old):
			if ok, err := upToDate(r, idx, e, conv); err != nil {
				return nil, err
			} else if !ok {
				refused = append(refused, c.Path)
				continue
			}
			plan.removes = append(plan.removes, c)
		case e != nil && old.Mode != 0 && nw.Mode != 0 && sameEntry(e, old):
			if ok, err := upToDate(r, idx, e, conv); err != nil {
				return nil, err
			} else if !ok || parentBlocked(r, c.Path, entries, deleted) {
				refused = append(refused, c.Path)
				continue
			}
			plan.writes = append(plan.writes, c)
		case e != nil:
			refused = append(refused, c.Path) // a staged change in the way
		case old.Mode != 0:
			// The deletion is staged already. A path that comes back with
			// other content, or an untracked file where the deletion was
			// staged, would be lost.
			if nw.Mode != 0 || untrackedInTheWay(r, c.Path, untracked, entries, deleted) {
				refused = append(refused, c.Path)
			}
		default:
			// A new file: nothing untracked may be in its way.
			if untrackedInTheWay(r, c.Path, untracked, entries, deleted) {
				refused = append(refused, c.Path)
				continue
			}
			plan.writes = append(plan.writes, c)
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		return nil, &WouldOverwriteError{Files: refused}
	}
	return plan, nil
}

func unmergedPaths(idx *index.Index) []string {
	var out []string
	for _, e := range idx.Entries {
		if e.Stage != 0 && (len(out) == 0 || out[len(out)-1] != e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// sameEntry compares an index entry with a tree file (mode and hash).
func sameEntry(e *index.Entry, f treeFile) bool {
	return !e.IntentToAdd && e.Hash == f.Hash && canonicalMode(e.Mode) == f.Mode
}

// upToDate is git's verify_uptodate: the worktree file matches its index
// entry (or is missing, which a checkout may freely recreate). Stat data
// decides when it is conclusive, else the content is hashed (cleaned by
// conv, as git add would store it).
func upToDate(r *repo.Repo, idx *index.Index, e *index.Entry, conv *status.Converter) (bool, error) {
	if e.SkipWorktree {
		return true, nil
	}
	abs := r.Abs(e.Name)
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || isNotDirErr(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("switch: %w", err)
	}
	return fileMatchesEntry(abs, fi, e, idx.ModTime, cleanerFor(r, conv, e))
}

// fileMatchesEntry compares a worktree file with an index entry: type and
// executable bit, then stat data (trusted unless racily clean), then the
// blob hash of the content after clean (nil: as it is).
func fileMatchesEntry(abs string, fi fs.FileInfo, e *index.Entry, indexMTime time.Time, clean func([]byte) []byte) (bool, error) {
	mode := canonicalMode(e.Mode)
	switch {
	case mode == filemode.Submodule:
		return fi.IsDir(), nil
	case mode == filemode.Symlink:
		if fi.Mode()&fs.ModeSymlink == 0 {
			return false, nil
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return false, err
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(target)) == e.Hash, nil
	case !fi.Mode().IsRegular():
		return false, nil
	case (fi.Mode()&0o100 != 0) != (mode == filemode.Executable):
		return false, nil
	}
	var probe index.Entry
	fillStat(&probe, fi)
	if probe.Size == e.Size && probe.ModifiedAt.Equal(e.ModifiedAt) && probe.CreatedAt.Equal(e.CreatedAt) &&
		probe.Inode == e.Inode &&
		(indexMTime.IsZero() || e.ModifiedAt.Before(indexMTime)) {
		return true, nil
	}
	if e.Size != 0 && probe.Size != e.Size {
		// git's ie_modified: a file whose size changed is modified, even
		// when its content, converted, is the entry's blob (a file whose
		// line endings changed under core.autocrlf).
		return false, nil
	}
	data, err := repo.ReadRegularNoFollow(abs, repo.MaxDataFileBytes)
	if err != nil {
		return false, err
	}
	if clean != nil {
		data = clean(data)
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data) == e.Hash, nil
}

// untrackedInTheWay reports whether something in the worktree at p that
// the index does not track would be lost by writing p: a file (untracked
// and not ignored per dirty, or any file when dirty is nil), a directory
// holding anything that the checkout does not delete itself, or a file or
// symbolic link where a parent directory of p must go.
func untrackedInTheWay(r *repo.Repo, p string, untracked map[string]bool, entries map[string]*index.Entry, deleted map[string]bool) bool {
	if parentBlocked(r, p, entries, deleted) {
		return true
	}
	abs := r.Abs(p)
	fi, err := os.Lstat(abs)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return untracked == nil || untracked[p]
	}
	// A directory where a file goes: it must hold only tracked files that
	// this checkout deletes.
	blocked := false
	filepath.WalkDir(abs, func(q string, d fs.DirEntry, err error) error {
		if err != nil || blocked {
			return filepath.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(r.Root, q)
		rel = filepath.ToSlash(rel)
		if !deleted[rel] {
			blocked = true
		}
		return nil
	})
	return blocked
}

// parentBlocked reports whether a parent directory of p is, in the
// worktree, a file or symbolic link that this checkout does not delete
// itself: writing p would then destroy it or write through the link.
func parentBlocked(r *repo.Repo, p string, entries map[string]*index.Entry, deleted map[string]bool) bool {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := os.Lstat(r.Abs(dir))
		if err != nil {
			return false // missing: nothing below it either
		}
		if fi.IsDir() {
			continue
		}
		if entries[dir] != nil {
			return !deleted[dir]
		}
		return true // an untracked file or link where a directory goes
	}
	return false
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// apply carries out a plan on the worktree and the in-memory index:
// deletions first (so directories can turn into files and back), then
// writes, with the line endings git would write: attributes from the new
// index, then the worktree (conv gives the configuration). Files written
// without a conversion git would apply are added to unconv.
//
// It returns the converter it wrote with.
func (p *checkoutPlan) apply(ctx context.Context, r *repo.Repo, idx *index.Index, conv *status.Converter, unconv *[]status.Unconverted) (*status.Converter, error) {
	entries := make(map[string]*index.Entry, len(idx.Entries))
	final := make(map[string]treeFile, len(idx.Entries))
	for _, e := range idx.Entries {
		entries[e.Name] = e
		if e.Stage == 0 {
			final[e.Name] = treeFile{Mode: canonicalMode(e.Mode), Hash: e.Hash}
		}
	}
	for _, c := range p.removes {
		delete(final, c.Path)
	}
	for _, c := range p.writes {
		final[c.Path] = c.New
	}
	out := conv.WithSources(treeAttributes(r, final), status.WorktreeAttributes(r.Root))
	guard := newDirGuard()
	drop := map[string]bool{}
	for _, c := range p.removes {
		if e := entries[c.Path]; e != nil && e.SkipWorktree {
			drop[c.Path] = true
			continue
		}
		if err := removeWorktreeFile(r.Root, c.Path, c.Old.Mode, guard); err != nil {
			return nil, err
		}
		drop[c.Path] = true
	}
	// Writes that replace a directory go after the files inside it are gone.
	sort.SliceStable(p.writes, func(i, j int) bool { return p.writes[i].Path < p.writes[j].Path })
	updated := map[string]*index.Entry{}
	for _, c := range p.writes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e := entries[c.Path]; e != nil && e.SkipWorktree {
			ne := &index.Entry{Name: c.Path, Hash: c.New.Hash, Mode: c.New.Mode, SkipWorktree: true}
			updated[c.Path] = ne
			continue
		}
		fi, err := checkoutFile(r.Git.Storer, r.Abs(c.Path), c.New, guard, out, c.Path)
		if err != nil {
			return nil, err
		}
		if c.New.Mode == filemode.Regular || c.New.Mode == filemode.Executable {
			unconverted(out, c.Path, unconv)
		}
		updated[c.Path] = indexEntry(c.Path, c.New, fi)
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if drop[e.Name] {
			continue
		}
		if ne, ok := updated[e.Name]; ok {
			kept = append(kept, ne)
			delete(updated, e.Name)
			continue
		}
		kept = append(kept, e)
	}
	for _, ne := range updated {
		kept = append(kept, ne)
	}
	idx.Entries = kept
	return out, nil
}
