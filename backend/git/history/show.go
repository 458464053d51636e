package history

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Person is a commit's author or committer.
type Person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	// Date is strict ISO 8601 with the person's own offset, as git's %aI
	// and %cI print it.
	Date string `json:"date"`
}

// ShowFile is one file a commit changed, against its first parent.
type ShowFile struct {
	Path string `json:"path"`
	// OriginalPath is the source of a rename (status R).
	OriginalPath string `json:"originalPath,omitempty"`
	// Status is git's letter: A added, M modified, D deleted, R renamed,
	// T type changed (a file became a symbolic link or the reverse).
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	// Binary says git counts no lines for the file (numstat "-").
	Binary bool `json:"binary"`
	// Diff is the unified patch, as `git show` prints it for the file (""
	// unless patches were asked for, or when Large).
	Diff string `json:"diff,omitempty"`
	// Large says the patch was left out because a side is larger than
	// [MaxShowPatchBytes] (the counts stay exact).
	Large bool `json:"large,omitempty"`
}

// ShowResult is what git_show returns.
type ShowResult struct {
	Hash      string   `json:"hash"`
	ShortHash string   `json:"shortHash"`
	Parents   []string `json:"parents"`
	Author    Person   `json:"author"`
	Committer Person   `json:"committer"`
	// Message is the full commit message, as stored.
	Message string `json:"message"`
	Subject string `json:"subject"`
	// Refs is git's %D decoration of the commit.
	Refs  string     `json:"refs"`
	Files []ShowFile `json:"files"`
	// TotalAdditions and TotalDeletions sum the files' counts.
	TotalAdditions int `json:"totalAdditions"`
	TotalDeletions int `json:"totalDeletions"`
}

// ShowOptions selects what Show reports.
type ShowOptions struct {
	// Rev is the commit: a branch, tag, hash or expression like HEAD~2.
	Rev string
	// Path, a confined repository path, limits the files to that file or
	// directory, like `git show <rev> -- <path>` (renames are then only
	// found inside it, as git finds them).
	Path string
	// IncludePatches adds each file's unified patch.
	IncludePatches bool
}

// MaxShowPatchBytes is the size of a file side above which Show leaves the
// patch out (as git_diff does for large untracked files).
const MaxShowPatchBytes = 512 << 10

// maxRevLen bounds a revision argument.
const maxRevLen = 1024

// showRenameLimit is git's default diff.renameLimit.
const showRenameLimit = 1000

// Show describes one commit like `git show`: its headers, message and the
// files it changed with line counts and, on request, patches. A commit is
// compared with its first parent (for a merge, as `git show
// --diff-merges=first-parent` shows it); a root commit with the empty tree.
// Renames are detected as git's default diff.renames does.
func Show(ctx context.Context, r *repo.Repo, opts ShowOptions) (*ShowResult, error) {
	switch {
	case strings.TrimSpace(opts.Rev) == "":
		return nil, &repo.ArgumentError{Field: "rev", Reason: "is required"}
	case strings.HasPrefix(opts.Rev, "-"):
		return nil, &repo.ArgumentError{Field: "rev", Reason: "starts with '-' (a revision, not an option)"}
	case len(opts.Rev) > maxRevLen:
		return nil, &repo.ArgumentError{Field: "rev", Reason: fmt.Sprintf("is longer than %d bytes", maxRevLen)}
	}
	path := ""
	if opts.Path != "" && opts.Path != "." && opts.Path != "./" {
		p, err := r.Confine(opts.Path)
		if err != nil {
			return nil, err
		}
		path = p
	}
	res, err := resolveCommit(r, opts.Rev)
	if err != nil {
		return nil, err
	}
	s, release := walkStorer(r)
	defer release()
	c, err := object.GetCommit(s, res.Hash)
	if err != nil {
		return nil, fmt.Errorf("show: read commit %s: %w", res.Hash, err)
	}
	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("show: %w", err)
	}
	decos, err := decorations(r, head)
	if err != nil {
		return nil, fmt.Errorf("show: %w", err)
	}
	abbrev := abbrevLen(r)
	out := &ShowResult{
		Hash:      c.Hash.String(),
		ShortHash: shortHash(c.Hash, abbrev),
		Parents:   make([]string, len(c.ParentHashes)),
		Author:    person(c.Author),
		Committer: person(c.Committer),
		Message:   c.Message,
		Subject:   commitSubject(c.Message),
		Refs:      decos[c.Hash],
		Files:     []ShowFile{},
	}
	for i, p := range c.ParentHashes {
		out.Parents[i] = p.String()
	}
	var parentTree plumbing.Hash // zero: the empty tree
	if len(c.ParentHashes) > 0 {
		pc, err := object.GetCommit(s, c.ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("show: read parent %s: %w", c.ParentHashes[0], err)
		}
		parentTree = pc.TreeHash
	}
	changes, err := diffTrees(ctx, s, parentTree, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("show: %w", err)
	}
	if path != "" {
		kept := changes[:0]
		for _, ch := range changes {
			if ch.Path == path || strings.HasPrefix(ch.Path, path+"/") {
				kept = append(kept, ch)
			}
		}
		changes = kept
	}
	files := showFiles(ctx, r, changes)
	uo := patch.DefaultUnifiedOptions()
	uo.Abbrev = abbrev
	for i := range files {
		if err := fillShowFile(ctx, r, &files[i], opts.IncludePatches, &uo); err != nil {
			return nil, fmt.Errorf("show: %s: %w", files[i].file.Path, err)
		}
		out.Files = append(out.Files, files[i].file)
		out.TotalAdditions += files[i].file.Additions
		out.TotalDeletions += files[i].file.Deletions
	}
	return out, nil
}

func person(sig object.Signature) Person {
	return Person{Name: sig.Name, Email: sig.Email, Date: sig.When.Format("2006-01-02T15:04:05-07:00")}
}

// showJob is one file of Show with its two sides.
type showJob struct {
	file     ShowFile
	old, new treeFile
	score    int // rename score out of patch.MaxScore
}

// showFiles turns tree changes into files with git's status letters,
// pairing deletions and additions into renames; the list stays in path
// order, a rename at its new path, as git lists it.
func showFiles(ctx context.Context, r *repo.Repo, changes []treeChange) []showJob {
	jobs := make([]showJob, 0, len(changes))
	var srcs, dsts []status.RenameCandidate
	var srcAt, dstAt []int
	for _, ch := range changes {
		j := showJob{file: ShowFile{Path: ch.Path}, old: ch.Old, new: ch.New}
		switch {
		case ch.Old.Mode == filemode.Empty:
			j.file.Status = "A"
			dsts = append(dsts, status.RenameCandidate{Path: ch.Path, Hash: ch.New.Hash, Mode: uint32(ch.New.Mode)})
			dstAt = append(dstAt, len(jobs))
		case ch.New.Mode == filemode.Empty:
			j.file.Status = "D"
			srcs = append(srcs, status.RenameCandidate{Path: ch.Path, Hash: ch.Old.Hash, Mode: uint32(ch.Old.Mode)})
			srcAt = append(srcAt, len(jobs))
		case fileKind(ch.Old.Mode) != fileKind(ch.New.Mode):
			j.file.Status = "T"
		default:
			j.file.Status = "M"
		}
		jobs = append(jobs, j)
	}
	if len(srcs) == 0 || len(dsts) == 0 {
		return jobs
	}
	drop := map[int]bool{}
	for _, p := range status.DetectRenames(ctx, r.Git.Storer, srcs, dsts, showRenameLimit) {
		src := jobs[srcAt[p.Src]]
		j := &jobs[dstAt[p.Dst]]
		j.file.Status, j.file.OriginalPath, j.old, j.score = "R", src.file.Path, src.old, p.Score
		drop[srcAt[p.Src]] = true
	}
	kept := jobs[:0]
	for i, j := range jobs {
		if !drop[i] {
			kept = append(kept, j)
		}
	}
	return kept
}

// fileKind groups modes the way git tells a type change: regular files
// (executable or not), symbolic links and gitlinks.
func fileKind(m filemode.FileMode) int {
	switch m {
	case filemode.Symlink:
		return 1
	case filemode.Submodule:
		return 2
	}
	return 0
}

// fillShowFile computes a file's counts and, when asked, its patch.
func fillShowFile(ctx context.Context, r *repo.Repo, j *showJob, withPatch bool, uo *patch.UnifiedOptions) error {
	read := func(f treeFile) ([]byte, error) {
		if f.Mode == filemode.Empty {
			return nil, nil
		}
		if f.Mode == filemode.Submodule {
			// git diffs a gitlink as its "Subproject commit" line.
			return []byte("Subproject commit " + f.Hash.String() + "\n"), nil
		}
		b, err := readBlob(r.Git.Storer, f.Hash)
		if err != nil {
			return nil, fmt.Errorf("read blob %s: %w", f.Hash, err)
		}
		return b, nil
	}
	old, err := read(j.old)
	if err != nil {
		return err
	}
	new, err := read(j.new)
	if err != nil {
		return err
	}
	if !withPatch || len(old) > MaxShowPatchBytes || len(new) > MaxShowPatchBytes {
		a, d, bin, err := patch.CountsContext(ctx, old, new)
		if err != nil {
			return err
		}
		j.file.Additions, j.file.Deletions, j.file.Binary = a, d, bin
		j.file.Large = withPatch
		return nil
	}
	f := patch.File{OldPath: j.file.OriginalPath, NewPath: j.file.Path, Old: old, New: new,
		OldMode: j.old.Mode, NewMode: j.new.Mode}
	if f.OldPath == "" {
		f.OldPath = f.NewPath
	}
	if j.old.Mode != filemode.Empty {
		f.OldHash = j.old.Hash.String()
	}
	if j.new.Mode != filemode.Empty {
		f.NewHash = j.new.Hash.String()
	}
	if f.OldPath != f.NewPath {
		f.Similarity = j.score * 100 / patch.MaxScore
		if bytes.Equal(old, new) {
			f.Similarity = 100
		}
	}
	text, stat, err := patch.Unified(ctx, f, uo)
	if err != nil {
		return err
	}
	j.file.Additions, j.file.Deletions, j.file.Binary = stat.Additions, stat.Deletions, stat.Binary
	j.file.Diff = string(text)
	return nil
}
