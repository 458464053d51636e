package stage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// fileImage is one path's content while patches are applied in memory.
type fileImage struct {
	exists  bool
	content []byte
	mode    filemode.FileMode
}

// loader reads a path's current image (from the index or the worktree).
type loader func(p string) (fileImage, error)

// patchResult is the outcome of applying a patch: the new image of every
// path it touched, in the order first touched.
type patchResult struct {
	order  []string
	images map[string]fileImage
	orig   map[string]fileImage
}

// applyPatches applies every file patch of fps (reverse swaps their sides)
// to the images load returns, all in memory, with git apply's rules for
// several patches of one path: a patch applies to the result of the
// previous patch of its path, except that a deletion applies to the
// path's content before a creation in the same patch (a type change is a
// deletion and a creation), and creating a path that a patch of the set
// deletes is allowed. It fails with the first *patch.ApplyError (or path
// error) and then nothing is to be written.
func applyPatches(r *repo.Repo, fps []patch.FilePatch, reverse bool, where string, load loader) (*patchResult, error) {
	res := &patchResult{images: make(map[string]fileImage), orig: make(map[string]fileImage)}
	get := func(p string) (fileImage, error) {
		if img, ok := res.images[p]; ok {
			return img, nil
		}
		img, err := load(p)
		if err != nil {
			return fileImage{}, err
		}
		res.images[p], res.orig[p] = img, img
		res.order = append(res.order, p)
		return img, nil
	}
	type side struct {
		oldPath, newPath string
		oldMode, newMode filemode.FileMode
		isNew, isDelete  bool
		isRename, isCopy bool
	}
	sides := make([]side, len(fps))
	toBeDeleted := make(map[string]bool)
	for k, fp := range fps {
		sd := side{oldPath: fp.OldPath, newPath: fp.NewPath, oldMode: fp.OldMode, newMode: fp.NewMode,
			isNew: fp.IsNew, isDelete: fp.IsDelete, isCopy: fp.IsCopy}
		if reverse {
			sd.oldPath, sd.newPath = sd.newPath, sd.oldPath
			sd.oldMode, sd.newMode = sd.newMode, sd.oldMode
			sd.isNew, sd.isDelete = sd.isDelete, sd.isNew
		}
		if sd.oldPath == "" {
			sd.oldPath = sd.newPath
		}
		if sd.newPath == "" {
			sd.newPath = sd.oldPath
		}
		var err error
		if sd.oldPath, err = r.Confine(sd.oldPath); err != nil {
			return nil, err
		}
		if sd.newPath, err = r.Confine(sd.newPath); err != nil {
			return nil, err
		}
		sd.isRename = sd.oldPath != sd.newPath && !sd.isCopy
		if sd.isDelete || sd.isRename {
			toBeDeleted[sd.oldPath] = true
		}
		sides[k] = sd
	}
	// shadow holds a path's content before a creation replaced it, for the
	// deletion still to come.
	shadow := make(map[string]fileImage)
	create := func(p string, img fileImage) error {
		cur, err := get(p)
		if err != nil {
			return err
		}
		if cur.exists {
			if _, shadowed := shadow[p]; !toBeDeleted[p] || shadowed {
				return &patch.ApplyError{Path: p, Reason: "already exists in " + where}
			}
			shadow[p] = cur
		}
		res.images[p] = img
		return nil
	}
	for k, fp := range fps {
		sd := sides[k]
		if sd.isNew {
			content, err := patch.Apply(nil, fp, reverse)
			if err != nil {
				return nil, err
			}
			mode := sd.newMode
			if mode == filemode.Empty {
				mode = filemode.Regular
			}
			if err := create(sd.newPath, fileImage{exists: true, content: content, mode: mode}); err != nil {
				return nil, err
			}
			continue
		}
		src, err := get(sd.oldPath)
		if err != nil {
			return nil, err
		}
		prior, shadowed := shadow[sd.oldPath]
		if shadowed && (sd.isDelete || sd.isRename) {
			src = prior
		}
		if !src.exists {
			return nil, &patch.ApplyError{Path: sd.oldPath, Reason: "does not exist in " + where}
		}
		if src.mode == filemode.Submodule {
			return nil, &patch.ApplyError{Path: sd.oldPath, Reason: "is a submodule; its patches cannot be applied"}
		}
		if sd.oldMode != filemode.Empty && sd.oldMode&0o170000 != src.mode&0o170000 {
			return nil, &patch.ApplyError{Path: sd.oldPath, Reason: fmt.Sprintf("wrong type (the patch expects mode %06o, it is %06o)", uint32(sd.oldMode), uint32(src.mode))}
		}
		content, err := patch.Apply(src.content, fp, reverse)
		if err != nil {
			return nil, err
		}
		if sd.isDelete || sd.isRename {
			if shadowed {
				delete(shadow, sd.oldPath) // the creation's content stays
			} else {
				res.images[sd.oldPath] = fileImage{}
			}
		}
		if sd.isDelete {
			continue
		}
		// Like git apply, the mode stays what it is unless the patch changes
		// it explicitly.
		mode := src.mode
		if sd.oldMode != filemode.Empty && sd.newMode != filemode.Empty && sd.oldMode != sd.newMode {
			mode = sd.newMode
		}
		img := fileImage{exists: true, content: content, mode: mode}
		if sd.oldPath == sd.newPath {
			res.images[sd.newPath] = img
			continue
		}
		if err := create(sd.newPath, img); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// parsePatch parses patch text, refusing an empty one.
func parsePatch(text string) ([]patch.FilePatch, error) {
	fps, err := patch.Parse([]byte(text))
	if err != nil {
		return nil, err
	}
	if len(fps) == 0 {
		return nil, &repo.ArgumentError{Reason: "the patch holds no file changes"}
	}
	return fps, nil
}

// indexLoader reads images from the session's index.
func (s *session) indexLoader() loader {
	return func(p string) (fileImage, error) {
		e := s.stage0(p)
		if e == nil {
			if s.unmerged(p) {
				return fileImage{}, &repo.UnmergedError{Paths: []string{p}}
			}
			return fileImage{}, nil
		}
		if e.IntentToAdd {
			return fileImage{}, nil // git apply sees no content yet
		}
		if e.Mode == filemode.Submodule {
			return fileImage{exists: true, mode: e.Mode}, nil
		}
		content, err := repo.ReadBlob(s.r.Git.Storer, e.Hash)
		if err != nil {
			return fileImage{}, err
		}
		return fileImage{exists: true, content: content, mode: e.Mode}, nil
	}
}

// worktreeLoader reads images from the worktree, as git apply does:
// regular files with their line endings cleaned (CRLF → LF where git
// would store LF), unless the patch's old side of the file has CRLF lines
// (fps, with reverse as they will be applied), which git apply keeps.
func worktreeLoader(r *repo.Repo, cfg coreConfig, s *session, conv *status.Converter, fps []patch.FilePatch, reverse bool) loader {
	keepCRLF := map[string]bool{}
	for _, fp := range fps {
		if crlfInOld(fp, reverse) {
			for _, p := range []string{fp.OldPath, fp.NewPath} {
				if c, err := r.Confine(p); err == nil {
					keepCRLF[c] = true
				}
			}
		}
	}
	return func(p string) (fileImage, error) {
		if err := repo.CheckNoSymlinkParent(r, p); err != nil {
			return fileImage{}, err
		}
		fi, err := lstat(r, p)
		if err != nil || fi == nil {
			return fileImage{}, err
		}
		if fi.IsDir() {
			if isNestedRepo(r, p) {
				return fileImage{exists: true, mode: filemode.Submodule}, nil
			}
			return fileImage{}, nil
		}
		var existing *index.Entry
		if s != nil {
			existing = s.stage0(p)
		}
		mode := cfg.worktreeMode(fi, existing)
		if mode == 0 {
			return fileImage{}, &PathspecError{Path: p, Reason: "is not a regular file or symlink"}
		}
		content, err := repo.ReadWorktreeBlob(r.Abs(p), fi)
		if err != nil {
			return fileImage{}, err
		}
		if fi.Mode().IsRegular() && !keepCRLF[p] {
			content = conv.Clean(p, content, nil) // git apply skips the safe-autocrlf check
		}
		return fileImage{exists: true, content: content, mode: mode}, nil
	}
}

// crlfInOld is git apply's crlf_in_old: a line of the side the patch
// applies to (context lines, and deleted lines, or added ones in reverse)
// ends in CRLF.
func crlfInOld(fp patch.FilePatch, reverse bool) bool {
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			old := l.Kind == patch.Context || l.Kind == patch.Deleted && !reverse || l.Kind == patch.Added && reverse
			if old && bytes.HasSuffix(l.Text, []byte("\r\n")) {
				return true
			}
		}
	}
	return false
}

// writeIndexImages records the patched images in the index: blobs are
// stored, entries set (with fresh stat data when the worktree file holds
// the same content) or removed.
func (s *session) writeIndexImages(res *patchResult) error {
	for _, p := range res.order {
		img := res.images[p]
		if !img.exists {
			if s.tracked(p) {
				s.remove(p)
			}
			continue
		}
		if o := res.orig[p]; o.exists && o.mode == img.mode && bytes.Equal(o.content, img.content) {
			continue
		}
		h, err := repo.WriteBlob(s.r.Git.Storer, img.content)
		if err != nil {
			return err
		}
		e := &index.Entry{Name: p, Hash: h, Mode: img.mode}
		s.refreshStat(e)
		s.setFile(e)
	}
	return nil
}

// writeWorktreeImages writes the patched images to the worktree, regular
// files with the line endings git would write (conv.Smudge).
func writeWorktreeImages(r *repo.Repo, cfg coreConfig, conv *status.Converter, res *patchResult) error {
	for _, p := range res.order {
		img := res.images[p]
		o := res.orig[p]
		switch {
		case !img.exists && o.exists:
			if err := repo.RemoveWorktreeFile(r, p); err != nil {
				return err
			}
		case img.exists && (!o.exists || o.mode != img.mode || !bytes.Equal(o.content, img.content)):
			content := img.content
			if img.mode == filemode.Regular || img.mode == filemode.Executable {
				content = conv.Smudge(p, content)
			}
			if _, err := repo.WriteWorktreeFile(r, p, content, cfg.writeMode(img.mode)); err != nil {
				return err
			}
		}
	}
	return nil
}

// StagePatch applies a patch to the index like `git apply --cached`: each
// file's hunks apply to its index blob (new files create entries, deleted
// files remove them, mode lines change the mode, renames move the entry).
// Every file is applied in memory first; when one does not apply, the
// *patch.ApplyError is returned and the index is not touched.
func StagePatch(ctx context.Context, r *repo.Repo, patchText string) error {
	return applyToIndex(ctx, r, patchText, false)
}

// UnstagePatch reverses a staged patch in the index like `git apply
// --cached --reverse`, with StagePatch's all-or-nothing rule.
func UnstagePatch(ctx context.Context, r *repo.Repo, patchText string) error {
	return applyToIndex(ctx, r, patchText, true)
}

func applyToIndex(ctx context.Context, r *repo.Repo, patchText string, reverse bool) error {
	fps, err := parsePatch(patchText)
	if err != nil {
		return err
	}
	return withSession(ctx, r, func(s *session) error {
		res, err := applyPatches(r, fps, reverse, "index", s.indexLoader())
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return s.writeIndexImages(res)
	})
}
