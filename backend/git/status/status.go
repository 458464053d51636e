// Package status computes `git status` for a repository on go-git's
// plumbing, without running git: the HEAD tree against the index (using the
// index's cache-tree to skip unchanged directories, with git's rename
// detection), the index against the worktree (a parallel walk that compares
// stat data like git's racy-git check and hashes only files whose stat data
// differs or is racy), untracked files (every file, like -uall, never
// entering ignored directories or .git), conflicts, and the branch with its
// upstream and ahead/behind counts.
//
// The real git (`git status --porcelain=v2 --branch -z
// --untracked-files=all`) is the oracle of the tests. An Engine keeps
// per-repository state between calls (the parsed index keyed by its file's
// stat data, cached HEAD/index differences, hashes of files whose stat data
// differs from the index, and, when a file watcher reports changes through
// Invalidate, the whole worktree picture) so that a repeated status is
// cheap.
//
// Staged renames follow git's diffcore-rename (renames only, as git status
// does): identical blobs pair first (preferring the same basename), then
// files whose basename is unique on both sides pair at ≥ 75% similarity,
// then the remaining pairs at ≥ 50% from a similarity matrix (skipped past
// diff.renameLimit / status.renameLimit, default 1000), with git's
// similarity estimate (newline- or 64-byte-delimited chunks, CR of CRLF
// ignored in text). Ties between equally good candidates may pair
// differently from git.
//
// A tracked file replaced by a named pipe, socket or device is modified
// (" M", a type change where a symlink was tracked), as git reports it;
// such a file is never opened. Untracked ones are not listed, as in git.
// Ignore and attribute files that are not regular files (a named pipe, on
// which git hangs, or a symlink, which git refuses) count as absent; the
// index, config and other repository files are read through repo's
// bounded reader (repo.ReadRegular).
//
// # Line endings and attributes
//
// The package also holds git's content conversion between the worktree and
// the object store (Converter), which status, changes (git_diff), stage,
// history (switch, new worktrees) and checkpoint all use, so that every
// git tool reads and writes files as git does. The supported subset:
//
//   - End-of-line conversion, decided as git's convert.c decides it: the
//     text attribute (set, unset, auto; the old crlf attribute when text
//     says nothing, crlf=input included), eol=lf and eol=crlf, then
//     core.eol (lf, crlf; native is LF here) and core.autocrlf (true,
//     input, false).
//   - Clean (what git add stores; what status hashes and git_diff shows of
//     a worktree file): CRLF → LF, for text=auto and core.autocrlf only
//     in files that do not look binary (a NUL, a lone CR, too many
//     control characters) and whose index version has no CRLF (git's
//     "safe autocrlf"); git apply's reading of worktree files skips that
//     index check and keeps CRLF when the patch has it, as git does.
//   - Smudge (what a checkout writes: git_restore, git_branch switch, new
//     worktrees, git_checkpoint_restore): LF → CRLF where the line ending
//     is CRLF, for text=auto and core.autocrlf only in text files that have
//     no CR yet.
//   - git's stat rules around them: a file whose size changed is modified
//     without being hashed, so a file whose line endings alone changed is
//     listed by status (" M") but has no diff, and blocks a switch, as in
//     git.
//   - Attributes: the built-in binary macro and [attr] macros (where git
//     allows them: the root .gitattributes, info/attributes, the global and
//     system files), "-attr", "!attr", quoted patterns, git's pattern rules
//     (no negative patterns; "dir/" patterns match no file). Sources,
//     lowest priority first: /etc/gitattributes (unless GIT_ATTR_NOSYSTEM),
//     core.attributesFile (default $XDG_CONFIG_HOME/git/attributes), the
//     .gitattributes files from the root down, $GIT_COMMON_DIR/info/attributes.
//     An in-tree file is taken from the worktree first and the index
//     second when files are read or restored (status, diff, add, apply,
//     checkout -- <path>), from the index being written first when a
//     switch or a new worktree writes them, and from the checkpoint itself
//     when a checkpoint is restored. Every one is read through
//     repo.ReadRegular (bounded, non-blocking; a symlink or special file in
//     the tree counts as absent, as git treats it), and an engine reads
//     them again when one changes.
//
// Never applied, and reported instead: clean/smudge filters (a filter
// attribute whose driver has filter.<name>.clean, .smudge or .process
// configured, as git-lfs installs it), ident and working-tree-encoding.
// No external program runs; Converter.Unsupported names what a path asks
// for, and the tools warn in their diagnostics about the files concerned.
// Not done: core.safecrlf (git's warning or refusal of an irreversible
// conversion), the diff attribute (files marked -diff, as by the binary
// macro, are counted and shown as text when they look like text), and
// merge drivers.
//
// Other known differences from git, by design or not yet done:
// core.ignoreCase, split and sparse indexes, and submodule.<name>.ignore
// are not supported; a submodule counts as modified when its checked-out
// commit differs or its worktree has any change (git's "S.M." / "S..U"
// details are not kept).
package status

import (
	"context"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Summary values of FileStatus.Status.
const (
	StatusModified   = "modified"
	StatusAdded      = "added"
	StatusDeleted    = "deleted"
	StatusRenamed    = "renamed"
	StatusCopied     = "copied"
	StatusUntracked  = "untracked"
	StatusTypeChange = "typechange"
	StatusConflicted = "conflicted"
)

// FileStatus is one changed path, as one line of `git status
// --porcelain=v2`. A path deleted from the index that still exists in the
// worktree appears twice: once deleted (staged) and once untracked.
type FileStatus struct {
	// Path is the repository-relative slash-separated path. An untracked
	// nested repository is reported, as git does, as its directory with
	// a trailing slash.
	Path string `json:"path"`
	// OriginalPath is the source of a staged rename.
	OriginalPath string `json:"originalPath,omitempty"`
	// Similarity is the rename's similarity in percent (100 for
	// identical content).
	Similarity int `json:"similarity,omitempty"`
	// Status summarises the change: modified, added, deleted, renamed,
	// copied, untracked, typechange or conflicted.
	Status string `json:"status"`
	// IndexStatus is porcelain v2's X: "." (unchanged), M, A, D, R, T, or
	// for conflicts U/A/D as in git ("?" for untracked).
	IndexStatus string `json:"indexStatus"`
	// WorktreeStatus is porcelain v2's Y: ".", M, A (intent-to-add), D,
	// T, or the conflict letter ("?" for untracked).
	WorktreeStatus string `json:"worktreeStatus"`
	// Staged says the index differs from HEAD for this path.
	Staged bool `json:"staged"`
	// Unstaged says the worktree differs from the index.
	Unstaged bool `json:"unstaged"`
	// Untracked says the path is not in the index and not ignored.
	Untracked bool `json:"untracked"`
	// Submodule says the path is a gitlink (submodule).
	Submodule bool `json:"submodule,omitempty"`

	// HeadHash and HeadMode are the HEAD side (zero when absent; for a
	// rename, the source's).
	HeadHash plumbing.Hash     `json:"-"`
	HeadMode filemode.FileMode `json:"-"`
	// IndexHash and IndexMode are the index side (zero when absent; for a
	// conflict, the "ours" stage, else the first stage present).
	IndexHash plumbing.Hash     `json:"-"`
	IndexMode filemode.FileMode `json:"-"`
	// WorktreeMode is the mode git would record for the worktree file (0
	// when it is missing; 0 for untracked files, which are not stat'ed).
	WorktreeMode filemode.FileMode `json:"-"`
	// WorktreeHash is the worktree file's blob when status had to hash it
	// (zero otherwise; it does not mean the file is unchanged).
	WorktreeHash plumbing.Hash `json:"-"`
}

// Result is a repository's status.
type Result struct {
	// IsRepo is true (Compute fails on a path outside a repository).
	IsRepo bool `json:"isRepo"`
	// Root is the worktree root.
	Root string `json:"root"`
	// Branch is the checked-out branch's short name (also on an unborn
	// branch), or the abbreviated commit when HEAD is detached.
	Branch string `json:"branch"`
	// Detached says HEAD holds a commit rather than a branch.
	Detached bool `json:"detached"`
	// Head is the full commit name, "" before the first commit.
	Head string `json:"head"`
	// Upstream is the branch's upstream ("origin/main"), "" when none.
	Upstream string `json:"upstream,omitempty"`
	// UpstreamGone says the upstream is configured but its ref is
	// missing (Ahead and Behind are then 0).
	UpstreamGone bool `json:"upstreamGone,omitempty"`
	// Ahead and Behind count the commits only on the branch and only on
	// the upstream.
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	// Files are the changed paths sorted by path.
	Files []FileStatus `json:"files"`
	// Staged, Unstaged, Untracked and Conflicted are subsets of Files (a
	// path can be both staged and unstaged).
	Staged     []FileStatus `json:"staged"`
	Unstaged   []FileStatus `json:"unstaged"`
	Untracked  []FileStatus `json:"untracked"`
	Conflicted []FileStatus `json:"conflicted"`
	// Clean says there is nothing to report.
	Clean bool `json:"clean"`
	// Merging says a merge is in progress (MERGE_HEAD exists): committing
	// the index concludes it with a merge commit (set by the tools layer).
	Merging bool `json:"merging"`
	// Watched says a file watcher keeps this repository's status fresh and
	// reports its changes (set by the tools layer), so callers need not poll.
	Watched bool `json:"watched"`
}

// Options tune a status.
type Options struct {
	// NoUntracked skips listing untracked files (git status -uno).
	NoUntracked bool
	// NoRenames turns staged rename detection off. It is on by default,
	// as git's status.renames / diff.renames (which are honoured too).
	NoRenames bool
	// NoAheadBehind skips counting commits against the upstream.
	NoAheadBehind bool
	// NoSubmoduleChanges compares submodules by checked-out commit only,
	// without looking for changes inside their worktrees.
	NoSubmoduleChanges bool

	depth int // submodule nesting
}

// Compute returns the status of r from scratch (a fresh Engine: nothing
// is cached). Use an Engine to make repeated calls cheap.
func Compute(ctx context.Context, r *repo.Repo, opts Options) (*Result, error) {
	return NewEngine(r).Status(ctx, opts)
}

// summary derives FileStatus.Status and the flags from X and Y.
func (f *FileStatus) summarise() {
	x, y := f.IndexStatus, f.WorktreeStatus
	f.Staged = x != "." && x != "?" && f.Status != StatusConflicted
	f.Unstaged = y != "." && y != "?" && f.Status != StatusConflicted
	f.Untracked = x == "?"
	if f.Status != "" {
		return
	}
	switch {
	case f.Untracked:
		f.Status = StatusUntracked
	case x == "R":
		f.Status = StatusRenamed
	case x == "C":
		f.Status = StatusCopied
	case x == "A" || y == "A":
		f.Status = StatusAdded
	case x == "D" || y == "D":
		f.Status = StatusDeleted
	case x == "T" || y == "T":
		f.Status = StatusTypeChange
	default:
		f.Status = StatusModified
	}
}

// conflictXY maps the stages present for a path (bit 0 base, 1 ours,
// 2 theirs) to porcelain's unmerged XY.
var conflictXY = [8]string{1: "DD", 2: "AU", 3: "UD", 4: "UA", 5: "DU", 6: "AA", 7: "UU"}

// stagedItem is one path that differs between HEAD and the index.
type stagedItem struct {
	x                   byte // A, M, T, D or R
	path, orig          string
	headHash, indexHash plumbing.Hash
	headMode, indexMode uint32
	score               int
}

// stagedSet is the HEAD↔index half of a status.
type stagedSet struct {
	items  []stagedItem
	byPath map[string]int // index-side paths (not deletions)
}

// assemble merges the HEAD↔index differences, the worktree states and the
// untracked files into sorted FileStatus lines.
func assemble(ix *Index, staged *stagedSet, states []wtState, untracked []string, cfg *settings) []FileStatus {
	var files []FileStatus
	es := ix.Entries
	for i := 0; i < len(es); i++ {
		e := &es[i]
		if e.Stage != 0 {
			j, mask := i, 0
			var f FileStatus
			f.Path = e.Path
			for ; j < len(es) && es[j].Path == e.Path; j++ {
				if s := es[j].Stage; s > 0 {
					mask |= 1 << (s - 1)
					if f.IndexHash.IsZero() || s == 2 {
						f.IndexHash, f.IndexMode = es[j].Hash, es[j].Mode
					}
				}
			}
			if st := &states[i]; st.code != wtUnseen && st.code != wtDeleted {
				f.WorktreeMode = filemode.FileMode(gitMode(&st.st, cfg.fileMode, uint32(f.IndexMode)))
			}
			xy := conflictXY[mask&7]
			f.IndexStatus, f.WorktreeStatus, f.Status = xy[:1], xy[1:], StatusConflicted
			f.summarise()
			files = append(files, f)
			i = j - 1
			continue
		}
		y := states[i].code
		if y == wtUnseen {
			y = wtDeleted
		}
		if e.IntentToAdd && y != wtDeleted {
			y = wtAdded
		}
		x := byte('.')
		var si *stagedItem
		if k, ok := staged.byPath[e.Path]; ok {
			si = &staged.items[k]
			x = si.x
		}
		if x == '.' && y == wtClean {
			continue
		}
		f := FileStatus{
			Path: e.Path, IndexStatus: string(x), WorktreeStatus: string(y),
			IndexHash: e.Hash, IndexMode: e.Mode, HeadHash: e.Hash, HeadMode: e.Mode,
			Submodule: uint32(e.Mode) == sIFGIT, WorktreeHash: states[i].hash,
		}
		if e.IntentToAdd && y != wtDeleted {
			// As git prints it: nothing in HEAD or the index yet.
			f.HeadHash, f.HeadMode, f.IndexHash, f.IndexMode = plumbing.ZeroHash, 0, plumbing.ZeroHash, 0
		}
		if si != nil {
			f.HeadHash, f.HeadMode = si.headHash, filemode.FileMode(si.headMode)
			if si.x == 'R' {
				f.OriginalPath = si.orig
				f.Similarity = si.score * 100 / maxScore
			}
		}
		if y != wtDeleted {
			f.WorktreeMode = filemode.FileMode(gitMode(&states[i].st, cfg.fileMode, uint32(e.Mode)))
		}
		f.summarise()
		files = append(files, f)
	}
	for _, it := range staged.items {
		if it.x != 'D' {
			continue
		}
		f := FileStatus{Path: it.path, IndexStatus: "D", WorktreeStatus: ".", HeadHash: it.headHash, HeadMode: filemode.FileMode(it.headMode)}
		f.summarise()
		files = append(files, f)
	}
	for _, p := range untracked {
		f := FileStatus{Path: p, IndexStatus: "?", WorktreeStatus: "?"}
		f.summarise()
		files = append(files, f)
	}
	sort.SliceStable(files, func(i, j int) bool {
		if files[i].Path != files[j].Path {
			return files[i].Path < files[j].Path
		}
		return !files[i].Untracked && files[j].Untracked
	})
	return files
}
