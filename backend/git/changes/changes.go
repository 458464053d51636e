// Package changes computes a repository's working-tree changes the way the
// git_diff tool reports them: per-file status and +/- line counts for the
// staged side (HEAD → index), the unstaged side (index → worktree, plus
// untracked files) or both (HEAD → worktree, plus untracked files), with a
// git-style unified patch for every file or only for one.
//
// The changed paths come from the status engine (backend/git/status), so
// only files whose stat data changed are read; their contents come from the
// object store and the disk, and the counts and patches from
// backend/git/patch. No git executable runs. A worktree file is compared
// as git add would store it (git's end-of-line conversion,
// status.Converter), and a file whose two sides turn out equal is left
// out, as git diff leaves it out.
package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Scopes of a diff.
const (
	ScopeAll      = "all"      // HEAD → worktree, plus untracked files
	ScopeStaged   = "staged"   // HEAD → index
	ScopeUnstaged = "unstaged" // index → worktree, plus untracked files
)

// Scopes lists the valid scopes.
var Scopes = []string{ScopeAll, ScopeStaged, ScopeUnstaged}

// MaxUntrackedPatchBytes is the size above which an untracked file's patch
// is replaced by [LargeUntrackedPlaceholder] (its counts stay exact).
const MaxUntrackedPatchBytes = 512 << 10

// LargeUntrackedPlaceholder is the patch text of a large untracked file.
const LargeUntrackedPlaceholder = "Large untracked file omitted from preview."

// File is one changed file.
type File struct {
	Path string `json:"path"`
	// OriginalPath is the source of a rename.
	OriginalPath string `json:"originalPath,omitempty"`
	// Status is modified, added, deleted, renamed, typechange, untracked
	// or conflicted.
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary"`
	// Diff is the unified patch ("" when patches were not asked for, or
	// for another file than Options.Path).
	Diff string `json:"diff"`
	// Large says the patch of an untracked file was left out for its size.
	Large bool `json:"large,omitempty"`
}

// Result is what git_diff returns.
type Result struct {
	IsRepo bool `json:"isRepo"`
	// Root is the worktree root (null outside a repository).
	Root           *string `json:"root"`
	Scope          string  `json:"scope"`
	Files          []File  `json:"files"`
	TotalAdditions int     `json:"totalAdditions"`
	TotalDeletions int     `json:"totalDeletions"`
}

// Options select what Compute reports.
type Options struct {
	// Scope is one of [Scopes] ("" means all).
	Scope string
	// IncludePatches adds the unified patch of every file (or only of
	// Path's file when Path is set).
	IncludePatches bool
	// Path, a confined repository path, limits the patch bodies to that
	// file; every file is still listed with its counts.
	Path string
	// NoUntracked leaves untracked files out.
	NoUntracked bool
	// OnlyPath lists only Path's file (and its rename source), so a viewer
	// that already has the list pays for one file, not for every count.
	OnlyPath bool
	// Binary writes binary changes as "git diff --binary" does (full object
	// names, a "GIT binary patch" git apply can apply) instead of "Binary
	// files … differ".
	Binary bool
}

// side is one version of a file: where its bytes come from.
type side struct {
	present bool
	mode    filemode.FileMode
	hash    plumbing.Hash // a blob in the object store (zero: read path from disk)
	path    string        // repository path, read from the worktree when hash is zero
}

type job struct {
	file     File
	old, new side
	patch    bool
	binary   bool // a binary patch git apply can apply
	// same: both sides turned out to hold the same content and mode (a
	// file whose stat data changed, or whose line endings differ only as
	// git converts them): git diff leaves it out.
	same bool
}

// Compute returns the changes of e's repository for opts.
func Compute(ctx context.Context, e *status.Engine, opts Options) (*Result, error) {
	scope := opts.Scope
	if scope == "" {
		scope = ScopeAll
	}
	if !slices.Contains(Scopes, scope) {
		return nil, errors.New("changes: unknown scope (all, staged or unstaged)")
	}
	r := e.Repo()
	st, err := e.Status(ctx, status.Options{NoAheadBehind: true, NoUntracked: opts.NoUntracked || scope == ScopeStaged})
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	var jobs []job
	for _, f := range st.Files {
		if opts.OnlyPath && opts.Path != "" && f.Path != opts.Path && f.OriginalPath != opts.Path {
			continue
		}
		j, ok := plan(f, scope)
		if !ok {
			continue
		}
		j.patch = opts.IncludePatches && (opts.Path == "" || opts.Path == j.file.Path || opts.Path == j.file.OriginalPath)
		j.binary = opts.Binary
		jobs = append(jobs, j)
	}
	if err := run(ctx, e, jobs); err != nil {
		return nil, err
	}
	root := r.Root
	res := &Result{IsRepo: true, Root: &root, Scope: scope, Files: make([]File, 0, len(jobs))}
	for _, j := range jobs {
		if j.same {
			continue
		}
		res.Files = append(res.Files, j.file)
		res.TotalAdditions += j.file.Additions
		res.TotalDeletions += j.file.Deletions
	}
	return res, nil
}

// plan decides the two sides of f for scope, and whether f is in it.
func plan(f status.FileStatus, scope string) (job, bool) {
	head := side{present: !f.HeadHash.IsZero() || f.HeadMode != filemode.Empty, mode: f.HeadMode, hash: f.HeadHash}
	index := side{present: !f.IndexHash.IsZero() || f.IndexMode != filemode.Empty, mode: f.IndexMode, hash: f.IndexHash}
	worktree := side{present: f.WorktreeStatus != "D", mode: f.WorktreeMode, path: f.Path}
	if worktree.mode == filemode.Empty {
		worktree.mode = index.mode
	}
	j := job{file: File{Path: f.Path, OriginalPath: f.OriginalPath}}
	switch {
	case f.Untracked:
		if scope == ScopeStaged || len(f.Path) > 0 && f.Path[len(f.Path)-1] == '/' {
			// A nested repository: listed, nothing to count.
			j.file.Status = "untracked"
			return j, scope != ScopeStaged
		}
		j.file.Status = "untracked"
		j.old, j.new = side{}, side{present: true, mode: filemode.Regular, path: f.Path}
		return j, true
	case f.Submodule:
		j.file.Status = f.Status
		return j, scope == ScopeAll || (scope == ScopeStaged && f.Staged) || (scope == ScopeUnstaged && f.Unstaged)
	}
	switch scope {
	case ScopeStaged:
		if !f.Staged {
			return j, false
		}
		j.old, j.new = head, index
		if f.IndexStatus == "D" {
			j.new = side{}
		}
	case ScopeUnstaged:
		// A conflicted file is listed too (neither staged nor unstaged in
		// status): the index's "ours" side against the worktree's file with
		// its conflict markers.
		if !f.Unstaged && f.Status != status.StatusConflicted {
			return j, false
		}
		j.file.OriginalPath = ""
		j.old, j.new = index, worktree
		if f.IndexStatus == "D" {
			return j, false
		}
	default:
		j.old, j.new = head, worktree
		if f.IndexStatus == "D" {
			j.new = side{} // removed from the index: deleted, whatever the disk says
		}
	}
	j.file.Status = statusOf(j.old, j.new, j.file.OriginalPath != "", f.Status)
	return j, true
}

func statusOf(old, new side, renamed bool, fallback string) string {
	switch {
	case fallback == "conflicted":
		return fallback
	case !old.present && new.present:
		return "added"
	case old.present && !new.present:
		return "deleted"
	case renamed:
		return "renamed"
	case old.mode != filemode.Empty && new.mode != filemode.Empty && isLink(old.mode) != isLink(new.mode):
		return "typechange"
	}
	return "modified"
}

func isLink(m filemode.FileMode) bool { return m == filemode.Symlink }

// run fills in the counts and patches of jobs, several files at a time.
func run(ctx context.Context, e *status.Engine, jobs []job) error {
	workers := min(len(jobs), max(2, runtime.GOMAXPROCS(0)))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fill(ctx, e, &jobs[i]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// fill computes one file's counts (and patch).
func fill(ctx context.Context, e *status.Engine, j *job) error {
	if j.file.Status == "untracked" && j.new.path == "" || j.file.Status == "conflicted" && !j.new.present && !j.old.present {
		return nil
	}
	if isGitlink(j.old.mode) || isGitlink(j.new.mode) {
		return nil // submodule: no content here
	}
	old, err := read(e, j.old)
	if err != nil {
		return err
	}
	new, err := read(e, j.new)
	if err != nil {
		return err
	}
	if j.file.Status == "untracked" {
		j.new.mode = untrackedMode(e.Repo().Abs(j.new.path))
	}
	if j.file.Status == "modified" && j.old.present && j.new.present && modeOf(j.old) == modeOf(j.new) && bytes.Equal(old, new) {
		// git diff's skip_stat_unmatch: nothing to show.
		j.same = true
		return nil
	}
	if j.file.Status == "untracked" && len(new) > MaxUntrackedPatchBytes {
		a, d, bin := patch.Counts(nil, new)
		j.file.Additions, j.file.Deletions, j.file.Binary = a, d, bin
		if j.patch {
			j.file.Diff = LargeUntrackedPlaceholder
		}
		j.file.Large = true
		return nil
	}
	if !j.patch {
		a, d, bin, err := patch.CountsContext(ctx, old, new)
		if err != nil {
			return err
		}
		j.file.Additions, j.file.Deletions, j.file.Binary = a, d, bin
		return nil
	}
	f := patch.File{OldPath: j.file.OriginalPath, NewPath: j.file.Path, Old: old, New: new,
		OldMode: modeOf(j.old), NewMode: modeOf(j.new)}
	if f.OldPath == "" {
		f.OldPath = f.NewPath
	}
	if !j.old.hash.IsZero() {
		f.OldHash = j.old.hash.String()
	}
	if !j.new.hash.IsZero() {
		f.NewHash = j.new.hash.String()
	}
	if f.OldPath != f.NewPath {
		f.Similarity = 100
		if !bytes.Equal(old, new) {
			f.Similarity = similarity(old, new)
		}
	}
	uo := patch.DefaultUnifiedOptions()
	uo.Binary = j.binary
	text, stat, err := patch.Unified(ctx, f, &uo)
	if err != nil {
		return err
	}
	j.file.Additions, j.file.Deletions, j.file.Binary = stat.Additions, stat.Deletions, stat.Binary
	j.file.Diff = string(text)
	return nil
}

func modeOf(s side) filemode.FileMode {
	if !s.present {
		return filemode.Empty
	}
	if s.mode == filemode.Empty {
		return filemode.Regular
	}
	return s.mode
}

// untrackedMode is the mode "git add" would record for an untracked file:
// a symlink, an executable or a regular file (the status engine does not
// stat untracked files).
func untrackedMode(abs string) filemode.FileMode {
	fi, err := os.Lstat(abs)
	switch {
	case err != nil:
		return filemode.Regular
	case fi.Mode()&fs.ModeSymlink != 0:
		return filemode.Symlink
	case fi.Mode()&0o111 != 0:
		return filemode.Executable
	}
	return filemode.Regular
}

func isGitlink(m filemode.FileMode) bool { return m == filemode.Submodule }

// read returns the bytes of one side: a blob (read through the engine,
// which serialises access to go-git's object store), or the worktree file
// as git add would store it (a symlink's target for a link; a file with
// its line endings converted by core.autocrlf and the text/eol
// attributes).
func read(e *status.Engine, s side) ([]byte, error) {
	if !s.present {
		return nil, nil
	}
	if !s.hash.IsZero() && s.path == "" {
		b, err := e.ReadBlob(s.hash)
		if err != nil {
			return nil, fmt.Errorf("changes: read blob %s: %w", s.hash, err)
		}
		return b, nil
	}
	abs := e.Repo().Abs(s.path)
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // gone since the status: nothing to show
	}
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return nil, fmt.Errorf("changes: %w", err)
		}
		return []byte(target), nil
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	b, err := repo.ReadRegularNoFollow(abs, repo.MaxDataFileBytes)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	// Compared as git diff compares it: with the line endings git add
	// would store.
	if b, err = e.Clean(s.path, b); err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	return b, nil
}

// similarity estimates a rename's similarity index (percent of the larger
// side's lines kept), for the patch header.
func similarity(old, new []byte) int {
	a, d, _ := patch.Counts(old, new)
	ol, nl := lines(old), lines(new)
	big := max(ol, nl)
	if big == 0 {
		return 100
	}
	kept := big - max(a, d)
	return max(0, min(99, kept*100/big))
}

func lines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
