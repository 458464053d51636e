package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// session is one locked change of the index: the index as read, an overlay
// of changed paths, and what the operation needs to know about the
// repository.
type session struct {
	ctx  context.Context
	r    *repo.Repo
	lock *repo.IndexLock
	idx  *index.Index // entries sorted by path, then stage
	// overlay maps a changed path to its new entries; an empty slice
	// removes the path.
	overlay map[string][]*index.Entry
	cfg     coreConfig
	ignore  *status.IgnoreMatcher
	// conv applies git's line-ending conversion between the worktree and
	// the index (attributes from the worktree, else the index, as `git
	// add` and `git checkout -- <path>` read them).
	conv *status.Converter
	// headTree is HEAD's tree (zero on an unborn branch) once headSet.
	headTree plumbing.Hash
	headSet  bool
}

// openSession locks the index and reads it.
func openSession(ctx context.Context, r *repo.Repo) (*session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, err := repo.LockIndex(r)
	if err != nil {
		return nil, err
	}
	idx := lock.Index()
	if !sort.SliceIsSorted(idx.Entries, func(i, j int) bool { return entryLess(idx.Entries[i], idx.Entries[j]) }) {
		sort.SliceStable(idx.Entries, func(i, j int) bool { return entryLess(idx.Entries[i], idx.Entries[j]) })
	}
	s := &session{ctx: ctx, r: r, lock: lock, idx: idx, overlay: make(map[string][]*index.Entry), cfg: readCoreConfig(r)}
	s.conv = status.NewConverter(r, status.WorktreeAttributes(r.Root), s.indexFile)
	lock.Clean = s.cleanFor
	return s, nil
}

func entryLess(a, b *index.Entry) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Stage < b.Stage
}

// withSession runs change on a session of r's index and writes the index
// when change succeeds. On an error (or a panic) the lock is released and
// the index is left as it was.
func withSession(ctx context.Context, r *repo.Repo, change func(*session) error) error {
	s, err := openSession(ctx, r)
	if err != nil {
		return err
	}
	defer s.rollback()
	if err := change(s); err != nil {
		return err
	}
	return s.commit()
}

// rollback releases the lock without writing (a no-op after commit).
func (s *session) rollback() { s.lock.Rollback() }

// commit writes the index with the overlay applied.
func (s *session) commit() error {
	if len(s.overlay) == 0 {
		return s.lock.Rollback()
	}
	// Merge the overlay into the sorted entries, keeping the order.
	keys := make([]string, 0, len(s.overlay))
	for p := range s.overlay {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	out := make([]*index.Entry, 0, len(s.idx.Entries)+len(s.overlay))
	k := 0
	for _, e := range s.idx.Entries {
		for k < len(keys) && keys[k] < e.Name {
			out = append(out, s.overlay[keys[k]]...)
			k++
		}
		if _, ok := s.overlay[e.Name]; !ok {
			out = append(out, e)
		}
	}
	for ; k < len(keys); k++ {
		out = append(out, s.overlay[keys[k]]...)
	}
	s.idx.Entries = out
	return s.lock.Commit(s.idx)
}

// entries returns the current entries of path p (all stages).
func (s *session) entries(p string) []*index.Entry {
	if es, ok := s.overlay[p]; ok {
		return es
	}
	es := s.idx.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= p })
	j := i
	for j < len(es) && es[j].Name == p {
		j++
	}
	return es[i:j]
}

// stage0 returns the merged entry of p, nil when there is none.
func (s *session) stage0(p string) *index.Entry {
	for _, e := range s.entries(p) {
		if e.Stage == 0 {
			return e
		}
	}
	return nil
}

// unmerged reports whether p has conflict stages.
func (s *session) unmerged(p string) bool {
	for _, e := range s.entries(p) {
		if e.Stage != 0 {
			return true
		}
	}
	return false
}

// tracked reports whether p is in the index (any stage).
func (s *session) tracked(p string) bool { return len(s.entries(p)) > 0 }

// pathsAt returns the sorted, distinct paths in the index that are p or lie
// under p/.
func (s *session) pathsAt(p string) []string {
	var out []string
	if s.tracked(p) {
		out = append(out, p)
	}
	prefix := p + "/"
	es := s.idx.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= prefix })
	for ; i < len(es) && strings.HasPrefix(es[i].Name, prefix); i++ {
		if len(out) > 0 && out[len(out)-1] == es[i].Name {
			continue
		}
		if s.tracked(es[i].Name) {
			out = append(out, es[i].Name)
		}
	}
	for q, es := range s.overlay {
		if len(es) > 0 && strings.HasPrefix(q, prefix) {
			if k := sort.SearchStrings(out, q); k >= len(out) || out[k] != q {
				out = append(out, q)
				sort.Strings(out)
			}
		}
	}
	return out
}

// remove drops every stage of p.
func (s *session) remove(p string) { s.overlay[p] = []*index.Entry{} }

// setFile makes e the only entry of its path and drops the entries that
// would clash with it: files at its parent directories and entries under
// it as a directory (git's ADD_CACHE_OK_TO_REPLACE).
func (s *session) setFile(e *index.Entry) {
	s.overlay[e.Name] = []*index.Entry{e}
	for d := e.Name; ; {
		slash := strings.LastIndexByte(d, '/')
		if slash < 0 {
			break
		}
		d = d[:slash]
		if s.tracked(d) {
			s.remove(d)
		}
	}
	for _, q := range s.pathsAt(e.Name) {
		if q != e.Name {
			s.remove(q)
		}
	}
}

// ignored reports whether an untracked path is ignored.
func (s *session) ignored(p string, isDir bool) bool {
	if s.ignore == nil {
		s.ignore = status.NewIgnoreMatcher(s.r)
	}
	return s.ignore.IsIgnored(p, isDir)
}

// headAt returns HEAD's entries at p or under p/, sorted by path, reading
// only the trees on the way to p (nil on an unborn branch).
func (s *session) headAt(p string) ([]status.TreeEntry, error) {
	if !s.headSet {
		ref, err := s.r.Git.Head()
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
		case err != nil:
			return nil, fmt.Errorf("read HEAD: %w", err)
		default:
			c, err := object.GetCommit(s.r.Git.Storer, ref.Hash())
			if err != nil {
				return nil, fmt.Errorf("read HEAD: %w", err)
			}
			s.headTree = c.TreeHash
		}
		s.headSet = true
	}
	if s.headTree.IsZero() {
		return nil, nil
	}
	tree := s.headTree
	rest := p
	for {
		name, after, more := strings.Cut(rest, "/")
		t, err := object.GetTree(s.r.Git.Storer, tree)
		if err != nil {
			return nil, fmt.Errorf("read HEAD tree: %w", err)
		}
		var found *object.TreeEntry
		for k := range t.Entries {
			if t.Entries[k].Name == name {
				found = &t.Entries[k]
				break
			}
		}
		if found == nil {
			return nil, nil
		}
		if !more {
			if found.Mode != filemode.Dir {
				return []status.TreeEntry{{Path: p, Hash: found.Hash, Mode: found.Mode}}, nil
			}
			sub, err := status.FlattenTree(s.ctx, s.r.Git.Storer, found.Hash)
			if err != nil {
				return nil, err
			}
			for k := range sub {
				sub[k].Path = p + "/" + sub[k].Path
			}
			return sub, nil
		}
		if found.Mode != filemode.Dir {
			return nil, nil
		}
		tree, rest = found.Hash, after
	}
}

// coreConfig is the core.* configuration that decides modes.
type coreConfig struct {
	fileMode bool // core.fileMode: the executable bit matters
	symlinks bool // core.symlinks: symlinks are checked out as links
}

// readCoreConfig reads the repository's core.fileMode and core.symlinks
// (git init records both); they default to true.
func readCoreConfig(r *repo.Repo) coreConfig {
	c := coreConfig{fileMode: true, symlinks: true}
	cfg, err := r.Git.Config()
	if err != nil || cfg.Raw == nil {
		return c
	}
	core := cfg.Raw.Section("core")
	parse := func(key string, def bool) bool {
		if !core.HasOption(key) {
			return def
		}
		v := strings.ToLower(strings.TrimSpace(core.Option(key)))
		switch v {
		case "true", "yes", "on", "":
			return true
		case "false", "no", "off":
			return false
		}
		if n, err := strconv.Atoi(v); err == nil {
			return n != 0
		}
		return def
	}
	c.fileMode = parse("filemode", true)
	c.symlinks = parse("symlinks", true)
	return c
}

// worktreeMode is the mode git records for a worktree file with this Lstat,
// given the existing entry (nil when untracked), or 0 for something git
// does not track.
func (c coreConfig) worktreeMode(fi os.FileInfo, existing *index.Entry) filemode.FileMode {
	m := fi.Mode()
	switch {
	case m&os.ModeSymlink != 0:
		return filemode.Symlink
	case m.IsRegular():
		if existing != nil {
			if !c.symlinks && existing.Mode == filemode.Symlink {
				return filemode.Symlink
			}
			if !c.fileMode && (existing.Mode == filemode.Regular || existing.Mode == filemode.Executable) {
				return existing.Mode
			}
		}
		if c.fileMode && m&0o100 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	}
	return 0
}

// writeMode is the mode to write a file of git mode m with.
func (c coreConfig) writeMode(m filemode.FileMode) filemode.FileMode {
	if m == filemode.Symlink && !c.symlinks {
		return filemode.Regular
	}
	return m
}

// confinePaths confines every path argument; at least one is required.
func confinePaths(r *repo.Repo, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, &repo.ArgumentError{Reason: "at least one path is required"}
	}
	out := make([]string, 0, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		c, err := r.Confine(p)
		if err != nil {
			return nil, err
		}
		if err := repo.CheckNoSymlinkParent(r, c); err != nil {
			return nil, err
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// lstat returns the Lstat of a worktree path, nil when nothing is there
// (or a parent is not a directory).
func lstat(r *repo.Repo, p string) (os.FileInfo, error) {
	fi, err := os.Lstat(r.Abs(p))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	return fi, nil
}

// blobOf stores the worktree content of p (Lstat fi) as a blob, the way
// `git add` would: line endings converted by core.autocrlf and attributes.
func (s *session) blobOf(p string, fi os.FileInfo) (plumbing.Hash, error) {
	content, err := s.worktreeContent(p, fi)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", p, err)
	}
	return repo.WriteBlob(s.r.Git.Storer, content)
}

// worktreeContent reads the worktree file p (Lstat fi) as git would store
// it: a symlink's target, or a file's bytes after line-ending conversion.
func (s *session) worktreeContent(p string, fi os.FileInfo) ([]byte, error) {
	content, err := repo.ReadWorktreeBlob(s.r.Abs(p), fi)
	if err != nil || !fi.Mode().IsRegular() {
		return content, err
	}
	return s.conv.Clean(p, content, func() ([]byte, bool) {
		e := s.stage0(p)
		if e == nil {
			return nil, false
		}
		b, err := repo.ReadBlob(s.r.Git.Storer, e.Hash)
		return b, err == nil
	}), nil
}

// cleanFor returns the content of e's worktree file as git add would
// store it (for the racy-entry check of the index lock).
func (s *session) cleanFor(e *index.Entry, content []byte) []byte {
	return s.conv.Clean(e.Name, content, func() ([]byte, bool) {
		b, err := repo.ReadBlob(s.r.Git.Storer, e.Hash)
		return b, err == nil
	})
}

// indexFile returns the content of the regular file p in the session's
// index (a .gitattributes file the worktree lacks).
func (s *session) indexFile(p string) ([]byte, bool) {
	e := s.stage0(p)
	if e == nil || (e.Mode != filemode.Regular && e.Mode != filemode.Executable) {
		return nil, false
	}
	b, err := repo.ReadBlob(s.r.Git.Storer, e.Hash)
	return b, err == nil
}

// refreshStat fills e's stat data from its worktree file when the file
// holds exactly e's content and mode, and clears it otherwise, so that a
// later status compares the file by content only when it must.
func (s *session) refreshStat(e *index.Entry) {
	repo.ClearStat(e)
	if e.Mode == filemode.Submodule {
		return
	}
	fi, err := lstat(s.r, e.Name)
	if err != nil || fi == nil || s.cfg.worktreeMode(fi, e) != e.Mode {
		return
	}
	content, err := s.worktreeContent(e.Name, fi)
	if err == nil && repo.BlobHash(content) == e.Hash {
		repo.FillStat(e, fi)
	}
}

// isNestedRepo reports whether the worktree directory p holds a repository
// of its own (a submodule or an embedded clone).
func isNestedRepo(r *repo.Repo, p string) bool {
	_, err := os.Lstat(filepath.Join(r.Abs(p), ".git"))
	return err == nil
}

// nestedHead returns the commit checked out in the nested repository p.
func nestedHead(ctx context.Context, r *repo.Repo, p string) (plumbing.Hash, error) {
	nested, err := repo.OpenWorktree(ctx, r.Abs(p))
	if err != nil {
		return plumbing.ZeroHash, &PathspecError{Path: p, Reason: "is a nested repository that cannot be read: " + err.Error()}
	}
	head, err := nested.Git.Head()
	if err != nil {
		return plumbing.ZeroHash, &PathspecError{Path: p, Reason: "is a nested repository without a commit checked out"}
	}
	return head.Hash(), nil
}
