package repo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/helper/chroot"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// go-git reads the same hostile files as meith's own code (HEAD and the
// config when a repository is opened, refs, packed-refs, shallow,
// alternates, objects). It reads them through a billy file system, so the
// repository is opened on guardedOS, which opens every file the way
// OpenRegular does: without blocking, refusing anything but a regular
// file, and refusing the small metadata files over their limits.

// guardedOS is go-billy's OS file system with guarded opens. base is the
// git directory the file system is rooted at; names below it decide the
// size limits.
type guardedOS struct {
	osfs.ChrootOS // under the chroot helper, as go-git's PlainOpen has it
	base          string
}

// newGuardedFS returns a billy file system rooted at dir (symlinks
// resolved, as go-git's own osfs.New does) whose opens are guarded.
func newGuardedFS(dir string) billy.Filesystem {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	return chroot.New(&guardedOS{base: dir}, dir)
}

// OpenFile opens name (a full path) non-blocking, and returns it only if
// it is a regular file within its limit.
func (g *guardedOS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	f, err := g.ChrootOS.OpenFile(name, flag|nonBlockFlag, perm)
	if err != nil {
		return nil, refusal(name, err, true)
	}
	st, ok := f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return f, nil
	}
	fi, err := st.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !readable(fi) {
		f.Close()
		return nil, &NotRegularFileError{Path: name, Mode: fi.Mode()}
	}
	if limit := g.limit(name); limit > 0 && fi.Size() > limit {
		f.Close()
		return nil, &FileTooLargeError{Path: name, Limit: limit}
	}
	return f, nil
}

// Open opens name for reading.
func (g *guardedOS) Open(name string) (billy.File, error) {
	return g.OpenFile(name, os.O_RDONLY, 0)
}

// Create creates or truncates name.
func (g *guardedOS) Create(name string) (billy.File, error) {
	return g.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// limit is the size limit of a metadata file of the git directory, or 0
// for files only the regular-file rule applies to (objects and packs,
// which are large by nature).
func (g *guardedOS) limit(name string) int64 {
	rel, ok := strings.CutPrefix(filepath.ToSlash(name), filepath.ToSlash(g.base)+"/")
	if !ok {
		return 0
	}
	switch {
	case rel == "config" || rel == "config.worktree":
		return MaxTextFileBytes
	case rel == "HEAD" || rel == "ORIG_HEAD" || rel == "MERGE_HEAD" || rel == "commondir" || rel == "gitdir" ||
		strings.HasPrefix(rel, "refs/"):
		return MaxRefFileBytes
	case rel == "packed-refs" || rel == "shallow" || rel == "objects/info/alternates":
		return MaxListFileBytes
	case rel == "index":
		return MaxDataFileBytes
	}
	return 0
}

// openGit opens the go-git repository of a worktree on guarded file
// systems, as git.PlainOpenWithOptions with EnableDotGitCommonDir would
// (which reads the .git file and commondir itself, unguarded).
func openGit(root, gitDir, commonDir string) (*git.Repository, error) {
	dot := newGuardedFS(gitDir)
	var fsys billy.Filesystem = dot
	if commonDir != gitDir {
		fsys = dotgit.NewRepositoryFilesystem(dot, newGuardedFS(commonDir))
	}
	s := &storage{Storage: filesystem.NewStorage(fsys, cache.NewObjectLRUDefault()),
		odb: sharedObjectDB(filepath.Join(commonDir, "objects"))}
	return git.Open(s, newGuardedFS(root))
}
