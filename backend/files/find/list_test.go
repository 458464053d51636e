package find

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// files returns the paths of the file entries, and dirs those of the
// folders, in the listing's order.
func split(es []Entry) (files, dirs []string) {
	for _, e := range es {
		if e.Type == "file" {
			files = append(files, e.Path)
		} else {
			dirs = append(dirs, e.Path)
		}
	}
	return files, dirs
}

func lines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// gitFiles is what git lists: `git ls-files -co --exclude-standard`, less
// symbolic links (meith skips them) and the untracked files under
// IgnoredFolders (meith skips those folders unless they hold tracked
// files; git has no such list).
func gitFiles(t *testing.T, dir string) []string {
	t.Helper()
	tracked := map[string]bool{}
	for _, p := range lines(gittest.Git(t, dir, "ls-files", "-c")) {
		tracked[p] = true
	}
	var out []string
	for _, p := range lines(gittest.Git(t, dir, "ls-files", "-co", "--exclude-standard")) {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err != nil || !fi.Mode().IsRegular() {
			continue // a symlink, a deleted tracked file, a nested repository's folder
		}
		if !tracked[p] && underIgnoredFolder(p) {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func underIgnoredFolder(p string) bool {
	parts := strings.Split(p, "/")
	return slices.ContainsFunc(parts[:len(parts)-1], IsIgnoredFolder)
}

// ignoreFixture is a repository with every kind of ignore rule.
func ignoreFixture(t *testing.T) string {
	t.Helper()
	dir := gittest.NewRepo(t)
	w := func(p, s string) { gittest.Write(t, dir, p, s, 0o644) }
	w(".gitignore", "*.log\n!keep.log\nbuild/\n/anchored.txt\ndocs/**/*.tmp\n**/cache\ndeep/**\n!deep/keep/\nsecret*\n!secret-but-public.md\nlib/*.gen\n")
	w("sub/.gitignore", "*.txt\n!important.txt\n/local-only\n")
	w("sub/nested/.gitignore", "!*.txt\n")
	excludes := filepath.Join(t.TempDir(), "global-ignore")
	if err := os.WriteFile(excludes, []byte("*.globalign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "core.excludesFile", excludes)
	for _, p := range []string{
		"a.log", "keep.log", "x/y/z.log", "x/keep.log", "build/out.o", "src/build/out.o", "build-not-dir.txt",
		"anchored.txt", "sub/anchored.txt", "docs/a/b/c.tmp", "docs/c.tmp", "other/c.tmp",
		"cache/x", "a/b/cache/y", "cachefile", "deep/a/b.txt", "deep/keep/x.txt",
		"secret.env", "secret-but-public.md", "dir/secret-file", "lib/a.gen", "lib/x/b.gen", "x/lib/c.gen",
		"sub/a.txt", "sub/important.txt", "sub/local-only", "sub/x/local-only", "sub/nested/b.txt", "sub/nested/c.md",
		"excluded-by-info", "sub/excluded-by-info", "z.globalign", "visible.md", "src/main.go", "a.b/x", "a/x", "a0",
		"node_modules/pkg/index.js", "src/node_modules/dep/x.js", ".cache/blob", "coverage/lcov.info",
		"dist/app.js", "dist/untracked.js", "out/o.txt",
	} {
		w(p, "x\n")
	}
	// Tracked files stay listed where an ignore rule or a fixed folder
	// matches them; their untracked neighbours do not.
	w("tracked-ignored/keep.txt", "k\n")
	gittest.Git(t, dir, "add", "-f", "tracked-ignored/keep.txt", ".gitignore", "dist/app.js", "build/out.o")
	gittest.Git(t, dir, "commit", "-q", "-m", "one")
	w(".git/info/exclude", "excluded-by-info\ntracked-ignored/\n")
	w("tracked-ignored/new.txt", "n\n")
	// Links and special files are never listed.
	gittest.Symlink(t, dir, "link-to-src", "src")
	gittest.Symlink(t, dir, "src/link.go", "main.go")
	if err := syscall.Mkfifo(filepath.Join(dir, "src", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListRecursiveMatchesGit(t *testing.T) {
	gittest.Isolate(t)
	dir := ignoreFixture(t)
	res, err := List(context.Background(), ListOptions{Root: dir, Base: dir, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	files, dirs := split(res.Entries)
	if want := gitFiles(t, dir); !slices.Equal(files, want) {
		t.Errorf("files\n%s\nwant (git ls-files -co --exclude-standard)\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	for _, must := range []string{"dist/app.js", "build/out.o", "tracked-ignored/keep.txt", "keep.log", "sub/nested/b.txt"} {
		if !slices.Contains(files, must) {
			t.Errorf("%s is not listed", must)
		}
	}
	for _, never := range []string{"node_modules/pkg/index.js", "dist/untracked.js", "src/pipe", "src/link.go", "tracked-ignored/new.txt"} {
		if slices.Contains(files, never) {
			t.Errorf("%s is listed", never)
		}
	}
	// Every folder that holds a listed file is listed; a listed folder is
	// not ignored by git unless it holds tracked files.
	for _, f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			if !slices.Contains(dirs, d) {
				t.Errorf("folder %s of %s is not listed", d, f)
			}
		}
	}
	for _, d := range dirs {
		if slices.Contains([]string{"link-to-src", "node_modules", "src/node_modules", ".cache", "coverage", "out"}, d) {
			t.Errorf("folder %s is listed", d)
		}
		if _, _, err := gittest.Run(dir, nil, nil, "check-ignore", "-q", d); err == nil &&
			strings.TrimSpace(gittest.Git(t, dir, "ls-files", "-c", d)) == "" {
			t.Errorf("folder %s is ignored by git and holds no tracked file, yet listed", d)
		}
	}
	if !slices.Contains(dirs, "empty") || !slices.Contains(dirs, "empty/inner") {
		t.Errorf("empty folders are not listed: %v", dirs)
	}
	// Folders first, then files; each group in byte order of the paths.
	if !slices.IsSorted(dirs) || !slices.IsSorted(files) {
		t.Errorf("not in byte order:\n%v\n%v", dirs, files)
	}
	if n := len(dirs); n > 0 && res.Entries[n-1].Type != "dir" || res.Entries[n].Type != "file" {
		t.Errorf("folders do not come first")
	}
	if res.Truncated {
		t.Error("truncated without a limit")
	}
}

// The table of ignore cases, each its own small repository, checked
// against git.
func TestListIgnoreCasesMatchGit(t *testing.T) {
	gittest.Isolate(t)
	for _, tc := range []struct {
		name  string
		files map[string]string // path → content; ".gitignore" files are rules
		setup func(t *testing.T, dir string)
	}{
		{name: "negation re-includes a file", files: map[string]string{".gitignore": "*.txt\n!b.txt\n", "a.txt": "", "b.txt": "", "c.md": ""}},
		{name: "a negation cannot re-include under an ignored folder", files: map[string]string{".gitignore": "d/\n!d/x.txt\n", "d/x.txt": "", "e/x.txt": ""}},
		{name: "nested .gitignore overrides its parent", files: map[string]string{".gitignore": "*.gen\n", "a/.gitignore": "!*.gen\n", "a/x.gen": "", "b/y.gen": ""}},
		{name: "anchored and directory-only patterns", files: map[string]string{".gitignore": "/top.txt\nbin/\n", "top.txt": "", "s/top.txt": "", "bin/x": "", "s/bin/y": "", "s/bin.txt": ""}},
		{name: "double star", files: map[string]string{".gitignore": "a/**/z\n**/tmp/*.o\n", "a/z": "", "a/b/c/z": "", "x/tmp/q.o": "", "tmp/r.o": "", "tmp/r.c": ""}},
		{name: "info/exclude", files: map[string]string{"local.cfg": "", "keep.cfg": ""}, setup: func(t *testing.T, dir string) {
			gittest.Write(t, dir, ".git/info/exclude", "local.cfg\n", 0o644)
		}},
		{name: "core.excludesFile", files: map[string]string{"a.swp": "", "a.go": ""}, setup: func(t *testing.T, dir string) {
			p := filepath.Join(t.TempDir(), "ignore")
			os.WriteFile(p, []byte("*.swp\n"), 0o644)
			gittest.Git(t, dir, "config", "core.excludesFile", p)
		}},
		{name: "tracked file matching a pattern stays", files: map[string]string{".gitignore": "*.lock\n", "yarn.lock": "", "other.lock": ""}, setup: func(t *testing.T, dir string) {
			gittest.Git(t, dir, "add", "-f", "yarn.lock")
		}},
		{name: "tracked files in an ignored folder stay", files: map[string]string{".gitignore": "vendor/\n", "vendor/a/keep.go": "", "vendor/a/drop.go": "", "vendor/b/drop.go": ""}, setup: func(t *testing.T, dir string) {
			gittest.Git(t, dir, "add", "-f", "vendor/a/keep.go")
		}},
		{name: "escaped and spaced patterns", files: map[string]string{".gitignore": "\\#hash\nspace.txt   \n\\!bang\n", "#hash": "", "space.txt": "", "!bang": "", "ok": ""}},
		{name: "character classes", files: map[string]string{".gitignore": "[ab].x\n[!c]?.y\n", "a.x": "", "c.x": "", "dd.y": "", "ce.y": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gittest.NewRepo(t)
			for p, c := range tc.files {
				gittest.Write(t, dir, p, c, 0o644)
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			res, err := List(context.Background(), ListOptions{Root: dir, Base: dir, Recursive: true})
			if err != nil {
				t.Fatal(err)
			}
			files, _ := split(res.Entries)
			if want := gitFiles(t, dir); !slices.Equal(files, want) {
				t.Errorf("files %v, want (git) %v", files, want)
			}
		})
	}
}

// A repository inside the listed folder brings its own ignore rules; a
// folder that is no repository has only the fixed folders.
func TestListNestedRepositoryAndPlainFolder(t *testing.T) {
	gittest.Isolate(t)
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := func(p string) { gittest.Write(t, top, p, "x\n", 0o644) }
	for _, p := range []string{"notes.txt", "build/out.bin", "node_modules/a/b.js", "app/src/main.go", "app/build/out.bin", "app/debug.log", "app/node_modules/c.js"} {
		w(p)
	}
	gittest.Git(t, filepath.Join(top, "app"), "init", "-q")
	gittest.Write(t, top, "app/.gitignore", "build/\n*.log\n", 0o644)
	res, err := List(context.Background(), ListOptions{Root: top, Base: top, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := split(res.Entries)
	want := []string{"app/.gitignore", "app/src/main.go", "build/out.bin", "notes.txt"}
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	// The nested repository's own view agrees with git.
	res, err = List(context.Background(), ListOptions{Root: filepath.Join(top, "app"), Base: filepath.Join(top, "app"), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	files, _ = split(res.Entries)
	if want := gitFiles(t, filepath.Join(top, "app")); !slices.Equal(files, want) {
		t.Errorf("app: files %v, want (git) %v", files, want)
	}
}

func TestListOneFolder(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	gittest.Write(t, dir, ".gitignore", "*.log\n", 0o644)
	gittest.Write(t, dir, "b.txt", "hello", 0o644)
	gittest.Write(t, dir, "A.txt", "", 0o644)
	gittest.Write(t, dir, "z/inner.txt", "", 0o644)
	gittest.Write(t, dir, "a.b/x", "", 0o644)
	gittest.Write(t, dir, "a/x", "", 0o644)
	gittest.Write(t, dir, "debug.log", "", 0o644)
	gittest.Write(t, dir, "node_modules/m.js", "", 0o644)
	mtime := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	os.Chtimes(filepath.Join(dir, "b.txt"), mtime, mtime)

	res, err := List(context.Background(), ListOptions{Root: dir, Base: dir, Stat: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.Type+" "+e.Path+" "+e.Name)
	}
	want := []string{"dir a a", "dir a.b a.b", "dir z z", "file .gitignore .gitignore", "file A.txt A.txt", "file b.txt b.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("entries\n%v\nwant\n%v", got, want)
	}
	for _, e := range res.Entries {
		switch {
		case e.Type == "dir" && (e.Size != nil || e.MtimeMs != nil):
			t.Errorf("folder %s has a size or mtime", e.Path)
		case e.Name == "b.txt" && (e.Size == nil || *e.Size != 5 || e.MtimeMs == nil || *e.MtimeMs != mtime.UnixMilli()):
			t.Errorf("b.txt: size %v mtime %v, want 5 and %d", e.Size, e.MtimeMs, mtime.UnixMilli())
		}
	}

	// includeIgnored: the ignored entries and .git too (never entered).
	res, err = List(context.Background(), ListOptions{Root: dir, Base: dir, IncludeIgnored: true, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	files, dirs := split(res.Entries)
	for _, must := range []string{"debug.log", "node_modules/m.js"} {
		if !slices.Contains(files, must) {
			t.Errorf("includeIgnored: %s missing from %v", must, files)
		}
	}
	if !slices.Contains(dirs, ".git") || slices.ContainsFunc(files, func(p string) bool { return strings.HasPrefix(p, ".git/") }) {
		t.Errorf("includeIgnored: .git must be listed and not entered: %v %v", dirs, files)
	}
}

// A sub-folder is listed with paths relative to the base (the cwd), its
// parents' .gitignore rules applying; a folder asked for by name is listed
// even when it is ignored.
func TestListSubFolder(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	gittest.Write(t, dir, ".gitignore", "*.tmp\ngen/\n", 0o644)
	for _, p := range []string{"pkg/a.go", "pkg/a.tmp", "pkg/sub/b.go", "gen/out.go", "gen/x/y.go"} {
		gittest.Write(t, dir, p, "", 0o644)
	}
	res, err := List(context.Background(), ListOptions{Root: filepath.Join(dir, "pkg"), Base: dir, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	files, dirs := split(res.Entries)
	if !slices.Equal(files, []string{"pkg/a.go", "pkg/sub/b.go"}) || !slices.Equal(dirs, []string{"pkg/sub"}) {
		t.Errorf("pkg: files %v dirs %v", files, dirs)
	}
	res, err = List(context.Background(), ListOptions{Root: filepath.Join(dir, "gen"), Base: filepath.Join(dir, "pkg"), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := split(res.Entries); !slices.Equal(files, []string{"../gen/out.go", "../gen/x/y.go"}) {
		t.Errorf("gen from pkg: files %v", files)
	}
}

// maxEntries cuts breadth first: the shallow levels whole, the level that
// overflows cut folders first then paths in byte order.
func TestListMaxEntries(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/1", "a/2", "a/3", "b/1", "c/d/1", "c/d/2", "top1", "top2"} {
		gittest.Write(t, dir, p, "", 0o644)
	}
	for _, tc := range []struct {
		max       int
		want      []string
		truncated bool
	}{
		{max: 5, want: []string{"a", "b", "c", "top1", "top2"}, truncated: true},
		{max: 4, want: []string{"a", "b", "c", "top1"}, truncated: true},
		{max: 7, want: []string{"a", "b", "c", "c/d", "top1", "top2", "a/1"}, truncated: true},
		{max: 11, want: []string{"a", "b", "c", "c/d", "top1", "top2", "a/1", "a/2", "a/3", "b/1", "c/d/1"}, truncated: true},
		{max: 12, want: []string{"a", "b", "c", "c/d", "top1", "top2", "a/1", "a/2", "a/3", "b/1", "c/d/1", "c/d/2"}, truncated: false},
		{max: 13, want: []string{"a", "b", "c", "c/d", "top1", "top2", "a/1", "a/2", "a/3", "b/1", "c/d/1", "c/d/2"}, truncated: false},
	} {
		res, err := List(context.Background(), ListOptions{Root: dir, Base: dir, Recursive: true, MaxEntries: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		files, dirs := split(res.Entries)
		got := append(dirs, files...)
		want := append([]string(nil), tc.want...)
		wantFiles, wantDirs := []string{}, []string{}
		for _, p := range want {
			if fi, _ := os.Stat(filepath.Join(dir, p)); fi.IsDir() {
				wantDirs = append(wantDirs, p)
			} else {
				wantFiles = append(wantFiles, p)
			}
		}
		slices.Sort(wantDirs)
		slices.Sort(wantFiles)
		if w := append(wantDirs, wantFiles...); !slices.Equal(got, w) || res.Truncated != tc.truncated {
			t.Errorf("max %d: %v truncated %v, want %v truncated %v", tc.max, got, res.Truncated, w, tc.truncated)
		}
	}
}

func TestListCancelled(t *testing.T) {
	dir := t.TempDir()
	gittest.Write(t, dir, "a/b/c", "", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := List(ctx, ListOptions{Root: dir, Base: dir, Recursive: true}); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Errorf("List with a cancelled context = %v, want context.Canceled", err)
	}
}

// The Ignorer and Folders agree with List, path by path.
func TestIgnorerAndFoldersAgreeWithList(t *testing.T) {
	gittest.Isolate(t)
	dir := ignoreFixture(t)
	res, err := List(context.Background(), ListOptions{Root: dir, Base: dir, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	var listedDirs []string
	for _, e := range res.Entries {
		listed[e.Path] = true
		if e.Type == "dir" {
			listedDirs = append(listedDirs, e.Path)
		}
	}
	ig := NewIgnorer(context.Background(), dir)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || d.Type()&os.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
			return nil
		}
		if got := ig.Ignored(rel, d.IsDir()); got != !listed[rel] {
			t.Errorf("Ignored(%s) = %v, but listed = %v", rel, got, listed[rel])
		}
		return nil
	})
	folders, truncated, err := Folders(context.Background(), dir, 0)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	if !slices.Equal(folders, listedDirs) {
		t.Errorf("Folders = %v, want the listed folders %v", folders, listedDirs)
	}
	some, truncated, err := Folders(context.Background(), dir, 3)
	if err != nil || !truncated || len(some) != 3 {
		t.Errorf("Folders(max 3) = %v, %v, %v", some, truncated, err)
	}
}
