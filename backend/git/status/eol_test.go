package status

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// touch gives files new stat data (an mtime in the past, a new ctime), so
// that git and status must hash them to compare them with the index.
func touch(t *testing.T, dir string, paths ...string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), past, past); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLineEndingsMatchGit: for every configuration of gittest.EOLCases,
// status (Compute and a long-lived Engine) reports what git status does
// for files committed under it, then re-stamped (hashed with the
// conversion), rewritten with the other line ending, added untracked, and
// after the attributes themselves change.
func TestLineEndingsMatchGit(t *testing.T) {
	isolateGit(t)
	// git status must not refresh the index: every re-stamped file is then
	// hashed by both sides each time.
	t.Setenv("GIT_OPTIONAL_LOCKS", "0")
	for _, c := range gittest.EOLCases() {
		t.Run(c.Name, func(t *testing.T) {
			dir := newRepo(t)
			c.Setup(t, dir)
			gittest.WriteEOLFiles(t, dir)
			commitAll(t, dir, "files")
			e := engineFor(t, dir)

			touch(t, dir, gittest.EOLPaths()...)
			checkAgainstGit(t, dir)
			checkEngine(t, e, dir)

			for _, p := range []string{"lf.txt", "crlf.txt", "sub/deep.txt", "sub/in/leaf.dat", "notes.md"} {
				write(t, dir, p, gittest.FlipEOL(gittest.EOLFiles[p]))
			}
			write(t, dir, "new.txt", "new\r\nfile\r\n")
			touch(t, dir, gittest.EOLPaths()...)
			checkAgainstGit(t, dir)
			checkEngine(t, e, dir)

			// Other attributes: the engine must read them again.
			write(t, dir, ".gitattributes", "*.txt text eol=crlf\n*.md -text\n")
			write(t, dir, "sub/.gitattributes", "* text=auto\n")
			touch(t, dir, gittest.EOLPaths()...)
			checkEngine(t, e, dir)
			checkAgainstGit(t, dir)
		})
	}
}

// TestSafeAutocrlfMatchesGit: with text=auto or core.autocrlf, a file
// whose index blob already has CRLF line endings is not converted (git's
// "safe autocrlf"), so a CRLF file committed before the setting stays
// clean, and one committed with LF does not.
func TestSafeAutocrlfMatchesGit(t *testing.T) {
	isolateGit(t)
	t.Setenv("GIT_OPTIONAL_LOCKS", "0")
	for _, cfg := range [][2]string{{"core.autocrlf", "true"}, {"core.autocrlf", "input"}} {
		t.Run(cfg[0]+"="+cfg[1], func(t *testing.T) {
			dir := newRepo(t)
			gittest.WriteEOLFiles(t, dir)
			commitAll(t, dir, "raw")
			run(t, dir, "config", cfg[0], cfg[1])
			e := engineFor(t, dir)
			touch(t, dir, gittest.EOLPaths()...)
			checkAgainstGit(t, dir)
			checkEngine(t, e, dir)
			write(t, dir, "lf.txt", gittest.FlipEOL(gittest.EOLFiles["lf.txt"]))
			write(t, dir, "crlf.txt", "one\r\ntwo\r\nthree\r\nfour\r\n")
			checkAgainstGit(t, dir)
			checkEngine(t, e, dir)
		})
	}
}

// TestWatchedEngineRereadsAttributes: a watched engine re-examines only
// what its watcher reports; a reported .gitattributes change makes it
// read the attributes again and compare the files hashed with the old
// ones again.
func TestWatchedEngineRereadsAttributes(t *testing.T) {
	isolateGit(t)
	t.Setenv("GIT_OPTIONAL_LOCKS", "0")
	dir := newRepo(t)
	gittest.WriteEOLFiles(t, dir)
	commitAll(t, dir, "raw")
	e := engineFor(t, dir)
	e.SetWatched(true)
	checkEngine(t, e, dir)
	touch(t, dir, gittest.EOLPaths()...)
	e.Invalidate(gittest.EOLPaths()...)
	checkEngine(t, e, dir)

	write(t, dir, ".gitattributes", "* text\n*.dat binary\n")
	e.Invalidate(".gitattributes")
	res := checkEngine(t, e, dir)
	if len(res.Unstaged) == 0 {
		t.Errorf("no file changed with * text over committed CRLF files: %+v", res)
	}
}
