package stage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
)

var errNotDir = syscall.ENOTDIR

// StagePaths stages paths like `git add -- paths`: new and modified files
// (and symlinks) are stored as blobs and their entries updated with fresh
// stat data, deleted files leave the index, and a directory stages
// everything under it that is tracked or not ignored (nested repositories
// as gitlinks). An untracked path that is ignored is not staged: the other
// paths are, and an *IgnoredError lists the ignored ones. A path that
// matches nothing gives a *PathspecError and nothing is staged.
func StagePaths(ctx context.Context, r *repo.Repo, paths []string) error {
	rels, err := confinePaths(r, paths)
	if err != nil {
		return err
	}
	var ignored []string
	if err := withSession(ctx, r, func(s *session) error {
		for _, p := range rels {
			if err := ctx.Err(); err != nil {
				return err
			}
			fi, err := lstat(r, p)
			if err != nil {
				return err
			}
			switch {
			case fi == nil:
				gone := s.pathsAt(p)
				if len(gone) == 0 {
					return &PathspecError{Path: p, Reason: "did not match any files"}
				}
				for _, q := range gone {
					s.remove(q)
				}
			case fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0:
				if !s.tracked(p) && s.ignored(p, false) {
					ignored = append(ignored, p)
					continue
				}
				if err := s.stageFile(p, fi); err != nil {
					return err
				}
			case fi.IsDir():
				if isNestedRepo(r, p) {
					if !s.tracked(p) && s.ignored(p, true) {
						ignored = append(ignored, p)
						continue
					}
					if err := s.stageGitlink(p, fi); err != nil {
						return err
					}
					continue
				}
				if err := s.stageDir(p); err != nil {
					return err
				}
			default:
				return &PathspecError{Path: p, Reason: "is not a regular file, symlink or directory"}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if len(ignored) > 0 {
		return &IgnoredError{Paths: ignored}
	}
	return nil
}

// stageFile stages the worktree file p (Lstat fi), unless its entry's stat
// data shows it unchanged.
func (s *session) stageFile(p string, fi os.FileInfo) error {
	old := s.stage0(p)
	mode := s.cfg.worktreeMode(fi, old)
	if old != nil && !s.unmerged(p) && !old.IntentToAdd && old.Mode == mode &&
		repo.StatMatches(old, fi) && !repo.IsRacy(old, s.lock.ModTime()) {
		return nil
	}
	h, err := s.blobOf(p, fi)
	if err != nil {
		return err
	}
	e := &index.Entry{Name: p, Hash: h, Mode: mode}
	repo.FillStat(e, fi)
	if old != nil && !s.unmerged(p) && old.Hash == h && old.Mode == mode && !old.IntentToAdd {
		// Same content: only the stat data is refreshed.
		e.SkipWorktree = old.SkipWorktree
	}
	s.setFile(e)
	return nil
}

// stageGitlink records the commit checked out in the nested repository p.
func (s *session) stageGitlink(p string, fi os.FileInfo) error {
	h, err := nestedHead(s.ctx, s.r, p)
	if err != nil {
		return err
	}
	if old := s.stage0(p); old != nil && old.Mode == filemode.Submodule && old.Hash == h && !s.unmerged(p) {
		return nil
	}
	e := &index.Entry{Name: p, Hash: h, Mode: filemode.Submodule}
	repo.FillStat(e, fi)
	s.setFile(e)
	return nil
}

// stageDir stages everything under the directory p that is tracked or not
// ignored, and removes the entries under it whose files are gone.
func (s *session) stageDir(p string) error {
	seen := make(map[string]bool)
	root := s.r.Abs(p)
	err := filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if abs == root {
				return err
			}
			return nil // vanished while walking
		}
		if abs == root {
			return nil
		}
		rel := p + "/" + filepath.ToSlash(abs[len(root)+1:])
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if isNestedRepo(s.r, rel) {
				if s.tracked(rel) || !s.ignored(rel, true) {
					fi, err := d.Info()
					if err != nil {
						return nil
					}
					if err := s.stageGitlink(rel, fi); err != nil {
						return err
					}
					seen[rel] = true
				}
				return filepath.SkipDir
			}
			if s.ignored(rel, true) && len(s.pathsAt(rel)) == 0 {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
			return nil
		}
		if !s.tracked(rel) && s.ignored(rel, false) {
			return nil
		}
		seen[rel] = true
		return s.stageFile(rel, fi)
	})
	if err != nil {
		return err
	}
	for _, q := range s.pathsAt(p) {
		if seen[q] {
			continue
		}
		fi, err := lstat(s.r, q)
		if err != nil {
			return err
		}
		if fi == nil || fi.IsDir() && s.stage0(q) != nil && s.stage0(q).Mode != filemode.Submodule {
			s.remove(q)
		}
	}
	return nil
}

// UnstagePaths unstages paths like `git restore --staged -- paths`: the
// entries at or under each path are reset to HEAD's blob and mode, and
// removed when HEAD does not have them (on an unborn branch all are
// removed). Entries whose worktree file matches get fresh stat data. A
// path that matches nothing in the index or HEAD gives a *PathspecError.
func UnstagePaths(ctx context.Context, r *repo.Repo, paths []string) error {
	rels, err := confinePaths(r, paths)
	if err != nil {
		return err
	}
	return withSession(ctx, r, func(s *session) error {
		for _, p := range rels {
			if err := ctx.Err(); err != nil {
				return err
			}
			matched, err := s.resetToHead(p)
			if err != nil {
				return err
			}
			if !matched {
				return &PathspecError{Path: p, Reason: "did not match any file(s) known to git"}
			}
		}
		return nil
	})
}

// resetToHead makes the entries at or under p equal to HEAD's and reports
// whether anything was there.
func (s *session) resetToHead(p string) (bool, error) {
	heads, err := s.headAt(p)
	if err != nil {
		return false, err
	}
	cur := s.pathsAt(p)
	inHead := make(map[string]bool, len(heads))
	for _, h := range heads {
		inHead[h.Path] = true
	}
	for _, q := range cur {
		if !inHead[q] {
			s.remove(q)
		}
	}
	for _, h := range heads {
		if old := s.stage0(h.Path); old != nil && !s.unmerged(h.Path) && !old.IntentToAdd &&
			old.Hash == h.Hash && old.Mode == h.Mode {
			continue
		}
		e := &index.Entry{Name: h.Path, Hash: h.Hash, Mode: h.Mode}
		s.refreshStat(e)
		s.setFile(e)
	}
	return len(cur) > 0 || len(heads) > 0, nil
}

// untrackedAt lists the untracked, not ignored files at or under p (a
// nested repository is left alone, as `git clean -f` does).
func (s *session) untrackedAt(p string) ([]string, error) {
	fi, err := lstat(s.r, p)
	if err != nil || fi == nil {
		return nil, err
	}
	if !fi.IsDir() {
		if !s.tracked(p) && !s.ignored(p, false) && (fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0) {
			return []string{p}, nil
		}
		return nil, nil
	}
	if s.isGitlink(p) || isNestedRepo(s.r, p) || s.ignored(p, true) && len(s.pathsAt(p)) == 0 {
		return nil, nil
	}
	var out []string
	root := s.r.Abs(p)
	err = filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil || abs == root {
			return nil
		}
		rel := p + "/" + filepath.ToSlash(abs[len(root)+1:])
		if d.IsDir() {
			if d.Name() == ".git" || s.isGitlink(rel) || isNestedRepo(s.r, rel) ||
				s.ignored(rel, true) && len(s.pathsAt(rel)) == 0 {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" || s.tracked(rel) || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if !s.ignored(rel, false) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return out, nil
}

// isGitlink reports whether p is a gitlink (submodule) entry.
func (s *session) isGitlink(p string) bool {
	e := s.stage0(p)
	return e != nil && e.Mode == filemode.Submodule
}
