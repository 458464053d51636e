package history

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// treeFile is one non-tree entry of a tree: a blob, a symlink or a gitlink.
type treeFile struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// treeChange is one path that differs between two trees; a zero Mode on a
// side means the path does not exist there.
type treeChange struct {
	Path     string
	Old, New treeFile
}

// loadTree reads a tree object; the zero hash is the empty tree.
func loadTree(s storer.EncodedObjectStorer, h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return &object.Tree{}, nil
	}
	t, err := object.GetTree(s, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return t, nil
}

// diffTrees lists the files that differ between two trees, skipping
// identical subtrees by hash. Directories on one side against files on the
// other show up as deletions plus additions.
func diffTrees(ctx context.Context, s storer.EncodedObjectStorer, a, b plumbing.Hash) ([]treeChange, error) {
	var out []treeChange
	var walk func(prefix string, a, b plumbing.Hash) error
	walk = func(prefix string, a, b plumbing.Hash) error {
		if a == b {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ta, err := loadTree(s, a)
		if err != nil {
			return err
		}
		tb, err := loadTree(s, b)
		if err != nil {
			return err
		}
		ea := map[string]object.TreeEntry{}
		for _, e := range ta.Entries {
			ea[e.Name] = e
		}
		eb := map[string]object.TreeEntry{}
		for _, e := range tb.Entries {
			eb[e.Name] = e
		}
		names := make([]string, 0, len(ea)+len(eb))
		for n := range ea {
			names = append(names, n)
		}
		for n := range eb {
			if _, ok := ea[n]; !ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			x, inA := ea[n]
			y, inB := eb[n]
			p := path.Join(prefix, n)
			aDir := inA && x.Mode == filemode.Dir
			bDir := inB && y.Mode == filemode.Dir
			switch {
			case aDir && bDir:
				if err := walk(p, x.Hash, y.Hash); err != nil {
					return err
				}
			case aDir || bDir:
				var ah, bh plumbing.Hash
				if aDir {
					ah = x.Hash
				}
				if bDir {
					bh = y.Hash
				}
				if err := walk(p, ah, bh); err != nil {
					return err
				}
				if inA && !aDir {
					out = append(out, treeChange{Path: p, Old: treeFile{x.Mode, x.Hash}})
				}
				if inB && !bDir {
					out = append(out, treeChange{Path: p, New: treeFile{y.Mode, y.Hash}})
				}
			default:
				var c treeChange
				c.Path = p
				if inA {
					c.Old = treeFile{x.Mode, x.Hash}
				}
				if inB {
					c.New = treeFile{y.Mode, y.Hash}
				}
				if c.Old != c.New {
					out = append(out, c)
				}
			}
		}
		return nil
	}
	if err := walk("", a, b); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// flattenTree lists every file of a tree with its path.
func flattenTree(ctx context.Context, s storer.EncodedObjectStorer, h plumbing.Hash) (map[string]treeFile, error) {
	changes, err := diffTrees(ctx, s, plumbing.ZeroHash, h)
	if err != nil {
		return nil, err
	}
	out := make(map[string]treeFile, len(changes))
	for _, c := range changes {
		out[c.Path] = c.New
	}
	return out, nil
}

// lookupPath finds the entry at a slash path in a tree; ok is false when
// the path does not exist (or a parent is not a directory). It scans the
// raw tree objects instead of decoding every entry.
func lookupPath(s storer.EncodedObjectStorer, root plumbing.Hash, p string) (object.TreeEntry, bool, error) {
	h := root
	for {
		if h == emptyTree {
			return object.TreeEntry{}, false, nil
		}
		data, err := rawObject(s, plumbing.TreeObject, h)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		name, rest, more := cutSlash(p)
		mode, eh, found := rawTreeEntry(data, name)
		if !found {
			return object.TreeEntry{}, false, nil
		}
		if !more {
			return object.TreeEntry{Name: name, Mode: mode, Hash: eh}, true, nil
		}
		if mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		h, p = eh, rest
	}
}

// rawObject reads an object's content. It may be shared with the
// repository's object cache: callers must not modify it.
func rawObject(s storer.EncodedObjectStorer, t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if raw, ok := s.(repo.RawObjectReader); ok {
		typ, data, err := raw.RawObject(h)
		if err == nil && typ != t {
			err = plumbing.ErrObjectNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", t, h, err)
		}
		return data, nil
	}
	obj, err := s.EncodedObject(t, h)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	defer rd.Close()
	buf := make([]byte, 0, obj.Size())
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", t, h, err)
		}
	}
}

// rawTreeEntry finds one name in an encoded tree ("<mode> <name>\0<hash>"
// records).
func rawTreeEntry(data []byte, name string) (filemode.FileMode, plumbing.Hash, bool) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			break
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || sp+1+nul+21 > len(data) {
			break
		}
		entryName := data[sp+1 : sp+1+nul]
		rec := sp + 1 + nul + 1
		if string(entryName) == name {
			m, err := filemode.New(string(data[:sp]))
			if err != nil {
				return 0, plumbing.ZeroHash, false
			}
			var h plumbing.Hash
			copy(h[:], data[rec:rec+20])
			return m, h, true
		}
		data = data[rec+20:]
	}
	return 0, plumbing.ZeroHash, false
}

func cutSlash(p string) (string, string, bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// readBlob reads a blob's content (shared: not to be modified).
func readBlob(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	if _, ok := s.(repo.RawObjectReader); ok {
		return rawObject(s, plumbing.BlobObject, h)
	}
	return repo.ReadBlob(s, h)
}

// checkoutFile writes a tree entry to the worktree path abs (replacing
// whatever file or symlink is there, atomically by rename) and returns the
// file's lstat info for the index. Gitlinks become empty directories, as
// git leaves unpopulated submodules. It refuses to write through a
// symbolic link in the parent directories; guard remembers the
// directories already checked. A regular file gets the line endings git
// would write for its repository path rel (conv.Smudge; conv nil: none).
func checkoutFile(s storer.EncodedObjectStorer, abs string, f treeFile, guard *dirGuard, conv *status.Converter, rel string) (fs.FileInfo, error) {
	if err := os.MkdirAll(filepath.Dir(abs), 0o777); err != nil {
		return nil, fmt.Errorf("checkout %s: %w", abs, err)
	}
	if err := guard.check(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() && f.Mode != filemode.Submodule {
		// A directory that the new tree replaces with a file: it must be
		// empty by now (its tracked files were removed first).
		if err := os.Remove(abs); err != nil {
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
	}
	switch f.Mode {
	case filemode.Submodule:
		if err := os.Mkdir(abs, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
		return os.Lstat(abs)
	case filemode.Symlink:
		target, err := readBlob(s, f.Hash)
		if err != nil {
			return nil, err
		}
		tmp := tempName(abs)
		if err := os.Symlink(string(target), tmp); err != nil {
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
		return os.Lstat(abs)
	}
	perm := fs.FileMode(0o666)
	if f.Mode == filemode.Executable {
		perm = 0o777
	}
	var rd io.Reader
	if conv != nil && conv.Converts(rel) {
		content, err := readBlob(s, f.Hash)
		if err != nil {
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
		rd = bytes.NewReader(conv.Smudge(rel, content))
	} else {
		obj, err := s.EncodedObject(plumbing.BlobObject, f.Hash)
		if err != nil {
			return nil, fmt.Errorf("checkout %s: read blob %s: %w", abs, f.Hash, err)
		}
		orc, err := obj.Reader()
		if err != nil {
			return nil, fmt.Errorf("checkout %s: %w", abs, err)
		}
		defer orc.Close()
		rd = orc
	}
	tmp := tempName(abs)
	// Created with the plain mode so the process umask applies, as for git.
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", abs, err)
	}
	if _, err := io.Copy(out, rd); err != nil {
		out.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("checkout %s: %w", abs, err)
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("checkout %s: %w", abs, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("checkout %s: %w", abs, err)
	}
	return os.Lstat(abs)
}

// dirGuard verifies that directories are reached without following a
// symbolic link (a link planted in the worktree must not redirect writes
// or deletions outside it).
type dirGuard struct{ ok map[string]bool }

func newDirGuard() *dirGuard { return &dirGuard{ok: map[string]bool{}} }

func (g *dirGuard) check(dir string) error {
	if g.ok[dir] {
		return nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	if real != dir {
		return fmt.Errorf("checkout: refusing to follow the symbolic link in %s", dir)
	}
	g.ok[dir] = true
	return nil
}

// safeTreePath reports whether a path from a tree may be written to the
// worktree: no empty, "." or ".." component and no ".git" (in any case),
// which git refuses too (a hostile tree could otherwise write into .git).
func safeTreePath(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || strings.EqualFold(c, ".git") || strings.ContainsRune(c, 0) {
			return false
		}
	}
	return true
}

// tempName returns a hidden sibling name for an atomic replacement.
func tempName(abs string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(abs), ".meith-checkout-"+hex.EncodeToString(b[:]))
}

// removeWorktreeFile deletes a tracked file (or symlink, or an empty
// gitlink directory) and then the directories it leaves empty, up to but
// not including root. Like git, it leaves alone a path reached through a
// symbolic link.
func removeWorktreeFile(root, rel string, mode filemode.FileMode, guard *dirGuard) error {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if guard.check(filepath.Dir(abs)) != nil {
		return nil
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
	case err != nil:
		return fmt.Errorf("remove %s: %w", rel, err)
	case fi.IsDir():
		if mode == filemode.Submodule {
			os.Remove(abs) // a populated submodule stays, as with git
		}
	default:
		if err := os.Remove(abs); err != nil {
			return fmt.Errorf("remove %s: %w", rel, err)
		}
	}
	for dir := filepath.Dir(abs); dir != root && len(dir) > len(root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// indexEntry builds an index entry for a file just written, with the stat
// data git compares to tell that it is unchanged.
func indexEntry(name string, f treeFile, fi fs.FileInfo) *index.Entry {
	e := &index.Entry{Name: name, Hash: f.Hash, Mode: f.Mode}
	if fi != nil {
		fillStat(e, fi)
	}
	return e
}
