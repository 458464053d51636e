package stage

import (
	"bytes"
	"context"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/meith-dev/meith/backend/git/patch"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Target says what a restore changes.
type Target string

// The restore targets.
const (
	// TargetWorktree restores worktree files from the index.
	TargetWorktree Target = "worktree"
	// TargetStaged restores index entries from HEAD (unstaging).
	TargetStaged Target = "staged"
	// TargetBoth restores index entries and worktree files from HEAD.
	TargetBoth Target = "both"
)

// ParseTarget reads a restore target; "" is TargetWorktree.
func ParseTarget(s string) (Target, error) {
	switch Target(s) {
	case "", TargetWorktree:
		return TargetWorktree, nil
	case TargetStaged, TargetBoth:
		return Target(s), nil
	}
	return "", &repo.ArgumentError{Reason: "target must be worktree, staged or both"}
}

// RestorePaths restores paths from the index or HEAD.
//
//   - TargetWorktree: like `git checkout -- paths`: every tracked file at or
//     under a path gets its index content and mode back (deleted files are
//     recreated), and untracked files there that are not ignored are
//     deleted, as `git clean -f` would.
//   - TargetStaged: UnstagePaths.
//   - TargetBoth: like `git restore --source=HEAD --staged --worktree`
//     plus `git clean -f`: index entries and worktree files at or under the
//     paths become HEAD's; files that were tracked but are not in HEAD and
//     untracked files that are not ignored are deleted.
//
// Ignored files are never touched. Restored entries get fresh stat data.
// Paths with merge conflicts give a *repo.UnmergedError; a path that matches
// nothing gives a *PathspecError.
func RestorePaths(ctx context.Context, r *repo.Repo, paths []string, target Target) error {
	if target == TargetStaged {
		return UnstagePaths(ctx, r, paths)
	}
	if target != TargetWorktree && target != TargetBoth {
		return &repo.ArgumentError{Reason: "target must be worktree, staged or both"}
	}
	rels, err := confinePaths(r, paths)
	if err != nil {
		return err
	}
	return withSession(ctx, r, func(s *session) error {

		// Plan first, against the index as read: what to delete, which entries
		// to check out.
		var deletions []string
		var checkouts []*index.Entry
		for _, p := range rels {
			if err := ctx.Err(); err != nil {
				return err
			}
			untracked, err := s.untrackedAt(p)
			if err != nil {
				return err
			}
			tracked := s.pathsAt(p)
			for _, q := range tracked {
				if s.unmerged(q) {
					return &repo.UnmergedError{Paths: []string{q}}
				}
			}
			if target == TargetBoth {
				heads, err := s.headAt(p)
				if err != nil {
					return err
				}
				inHead := make(map[string]bool, len(heads))
				for _, h := range heads {
					inHead[h.Path] = true
				}
				for _, q := range tracked {
					if !inHead[q] {
						deletions = append(deletions, q)
					}
				}
				if len(tracked) == 0 && len(heads) == 0 && len(untracked) == 0 {
					return &PathspecError{Path: p, Reason: "did not match any file(s) known to git"}
				}
				if _, err := s.resetToHead(p); err != nil {
					return err
				}
			} else if len(tracked) == 0 && len(untracked) == 0 {
				return &PathspecError{Path: p, Reason: "did not match any file(s) known to git"}
			}
			deletions = append(deletions, untracked...)
			for _, q := range s.pathsAt(p) {
				if e := s.stage0(q); e != nil {
					checkouts = append(checkouts, e)
				}
			}
		}
		for _, q := range deletions {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := repo.RemoveWorktreeFile(r, q); err != nil {
				return err
			}
		}
		sort.Slice(checkouts, func(i, j int) bool { return checkouts[i].Name < checkouts[j].Name })
		for k, e := range checkouts {
			if k > 0 && checkouts[k-1].Name == e.Name {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.checkoutEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkoutEntry makes the worktree file of e hold e's content and mode,
// with the line endings git would write (conv.Smudge), and records fresh
// stat data, as `git checkout-index --force` does: a file whose stat data
// matches the entry is left alone (a racily clean one when its content,
// cleaned, is e's blob); any other is written, unless it already holds
// exactly the bytes that would be written. Gitlinks and skip-worktree
// entries are left alone.
func (s *session) checkoutEntry(e *index.Entry) error {
	if e.Mode == filemode.Submodule || e.SkipWorktree || e.IntentToAdd {
		return nil
	}
	fi, err := lstat(s.r, e.Name)
	if err != nil {
		return err
	}
	sameMode := fi != nil && !fi.IsDir() && s.cfg.worktreeMode(fi, e) == e.Mode
	keep := func() error {
		n := *e
		repo.FillStat(&n, fi)
		s.overlay[e.Name] = []*index.Entry{&n}
		return nil
	}
	if sameMode && repo.StatMatches(e, fi) {
		if !repo.IsRacy(e, s.lock.ModTime()) {
			return nil
		}
		if content, err := s.worktreeContent(e.Name, fi); err == nil && repo.BlobHash(content) == e.Hash {
			return keep()
		}
	}
	content, err := repo.ReadBlob(s.r.Git.Storer, e.Hash)
	if err != nil {
		return err
	}
	if e.Mode == filemode.Regular || e.Mode == filemode.Executable {
		content = s.conv.Smudge(e.Name, content)
	}
	if sameMode {
		if raw, err := repo.ReadWorktreeBlob(s.r.Abs(e.Name), fi); err == nil && bytes.Equal(raw, content) {
			return keep()
		}
	}
	wfi, err := repo.WriteWorktreeFile(s.r, e.Name, content, s.cfg.writeMode(e.Mode))
	if err != nil {
		return err
	}
	n := *e
	repo.FillStat(&n, wfi)
	s.overlay[e.Name] = []*index.Entry{&n}
	return nil
}

// RestorePatch reverses a patch to restore hunks: TargetWorktree applies
// it in reverse to the worktree files (`git apply --reverse`),
// TargetStaged to the index (UnstagePatch), TargetBoth to both (it must
// apply to both). Every file is applied in memory first; when one does not
// apply, the *patch.ApplyError is returned and nothing is changed.
func RestorePatch(ctx context.Context, r *repo.Repo, patchText string, target Target) error {
	switch target {
	case TargetStaged:
		return UnstagePatch(ctx, r, patchText)
	case TargetWorktree, TargetBoth:
	default:
		return &repo.ArgumentError{Reason: "target must be worktree, staged or both"}
	}
	fps, err := parsePatch(patchText)
	if err != nil {
		return err
	}
	if target == TargetWorktree {
		return restorePatchWorktree(ctx, r, fps)
	}
	return withSession(ctx, r, func(s *session) error {
		wres, err := applyPatches(r, fps, true, "working directory", worktreeLoader(r, s.cfg, s, s.conv, fps, true))
		if err != nil {
			return err
		}
		ires, err := applyPatches(r, fps, true, "index", s.indexLoader())
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeWorktreeImages(r, s.cfg, s.conv, wres); err != nil {
			return err
		}
		return s.writeIndexImages(ires)
	})
}

// restorePatchWorktree reverse-applies fps to the worktree. Like git apply
// it neither locks nor changes the index: a later status compares the
// rewritten files by content once.
func restorePatchWorktree(ctx context.Context, r *repo.Repo, fps []patch.FilePatch) error {
	cfg := readCoreConfig(r)
	// git apply without --index never reads the index, attributes included.
	conv := status.NewConverter(r, status.WorktreeAttributes(r.Root))
	res, err := applyPatches(r, fps, true, "working directory", worktreeLoader(r, cfg, nil, conv, fps, true))
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeWorktreeImages(r, cfg, conv, res)
}
