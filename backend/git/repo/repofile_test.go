package repo

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// specialFiles makes one of each kind of file a hostile repository can put
// where meith expects a regular file, and returns their paths by name.
func specialFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", p("socket"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for name, target := range map[string]string{"link-to-fifo": p("fifo"), "link-to-zero": "/dev/zero", "link-to-regular": p("regular")} {
		if err := os.Symlink(target, p(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(p("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("regular"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file of a terabyte: nothing on disk, but a whole-file read
	// would allocate all of it.
	f, err := os.Create(p("sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return map[string]string{
		"fifo": p("fifo"), "socket": p("socket"), "dir": p("dir"), "regular": p("regular"), "sparse": p("sparse"),
		"link-to-fifo": p("link-to-fifo"), "link-to-zero": p("link-to-zero"), "link-to-regular": p("link-to-regular"),
		"dev-zero": "/dev/zero", "dev-null": os.DevNull, "missing": p("missing"),
	}
}

func TestReadRegularRefusesWhatIsNotARegularFile(t *testing.T) {
	files := specialFiles(t)
	tests := []struct {
		file string
		// what ReadRegular and ReadRegularNoFollow give: "" for the
		// content "hello\n", "empty" for no content, else "pipe", "socket", "dir", "char", "link",
		// "large" or "missing".
		follow, noFollow string
	}{
		{"regular", "", ""},
		{"fifo", "pipe", "pipe"},
		{"socket", "socket", "socket"},
		{"dir", "dir", "dir"},
		{"dev-zero", "char", "char"},
		{"dev-null", "empty", "empty"}, // as git reads GIT_CONFIG_GLOBAL=/dev/null
		{"sparse", "large", "large"},
		{"link-to-fifo", "pipe", "link"},
		{"link-to-zero", "char", "link"},
		{"link-to-regular", "", "link"},
		{"missing", "missing", "missing"},
	}
	check := func(t *testing.T, what string, b []byte, err error, want string) {
		t.Helper()
		var nr *NotRegularFileError
		var tl *FileTooLargeError
		got := ""
		switch {
		case err == nil && want == "empty":
			if len(b) != 0 {
				t.Errorf("%s = %q, want nothing", what, b)
			}
			return
		case err == nil:
			if string(b) != "hello\n" || want != "" {
				t.Errorf("%s = %q, want the file's content", what, b)
			}
			return
		case errors.Is(err, fs.ErrNotExist):
			got = "missing"
		case errors.As(err, &tl):
			got = "large"
			if tl.Limit != 1<<20 || !strings.Contains(err.Error(), "1 MiB") {
				t.Errorf("%s: %v, want the 1 MiB limit named", what, err)
			}
		case errors.As(err, &nr):
			switch m := nr.Mode; {
			case m&fs.ModeNamedPipe != 0:
				got = "pipe"
			case m&fs.ModeSocket != 0:
				got = "socket"
			case m&fs.ModeCharDevice != 0:
				got = "char"
			case m&fs.ModeSymlink != 0:
				got = "link"
			case m.IsDir():
				got = "dir"
			}
			if !IsNotRegularFile(err) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v is not reported as not a regular file", what, err)
			}
		default:
			got = "other: " + err.Error()
		}
		if got != want {
			t.Errorf("%s = %v (%s), want %s", what, err, got, want)
		}
		if got != "missing" && !strings.Contains(err.Error(), files[strings.TrimSuffix(strings.SplitN(what, "(", 2)[1], ")")]) {
			t.Errorf("%s: %v does not name the file", what, err)
		}
	}
	for _, tt := range tests {
		path := files[tt.file]
		b, err := ReadRegular(path, 1<<20)
		check(t, "ReadRegular("+tt.file+")", b, err, tt.follow)
		b, err = ReadRegularNoFollow(path, 1<<20)
		check(t, "ReadRegularNoFollow("+tt.file+")", b, err, tt.noFollow)
	}
}

// TestRegularFileStopsAtItsLimit: a file that grows past the limit after
// it was opened is not read beyond it.
func TestRegularFileStopsAtItsLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "growing")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(p, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(p, []byte("0123456789abcdefghij"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if !IsFileTooLarge(err) || len(b) != 16 {
		t.Errorf("reading a file grown past the limit = %d bytes, %v; want 16 bytes and a FileTooLargeError", len(b), err)
	}
	if b, err := ReadRegular(p, 20); err != nil || string(b) != "0123456789abcdefghij" {
		t.Errorf("ReadRegular at exactly the limit = %q, %v", b, err)
	}
}

// TestOpenRefusesSpecialGitFiles: the files go-git reads when it opens a
// repository and reads objects go through the guarded file system too.
func TestOpenRefusesSpecialGitFiles(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	gittest.Write(t, dir, "a.txt", "a\n", 0o644)
	gittest.Git(t, dir, "add", "a.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "one")
	blob := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD:a.txt"))

	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// A loose object replaced by a named pipe: go-git's read fails at once.
	obj := filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(obj, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Git.Storer.EncodedObject(plumbing.BlobObject, plumbing.NewHash(blob)); err == nil {
		t.Error("reading an object that is a named pipe succeeded")
	}

	for _, name := range []string{"HEAD", "config"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, ".git", name)
			saved, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(p, saved, 0o644)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Open(context.Background(), dir)
			if !IsNotRegularFile(err) || !strings.Contains(err.Error(), p) {
				t.Errorf("Open with %s a named pipe = %v, want a NotRegularFileError naming it", name, err)
			}
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			_, err = Open(context.Background(), dir)
			if !IsNotRegularFile(err) {
				t.Errorf("Open with %s a link to /dev/zero = %v, want a NotRegularFileError", name, err)
			}
			os.Remove(p)
		})
	}
}

// TestOpenWorktreeOfNestedRepository opens exactly the given directory,
// and a .git that is a named pipe is no repository (never read).
func TestOpenWorktreeOfNestedRepository(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	gittest.Write(t, dir, "a.txt", "a\n", 0o644)
	gittest.Git(t, dir, "add", "a.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "one")
	nested := filepath.Join(dir, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorktree(context.Background(), nested); !IsNotRepo(err) {
		t.Errorf("OpenWorktree(dir without .git) = %v, want a NotRepoError (not the parent's repository)", err)
	}
	if err := syscall.Mkfifo(filepath.Join(nested, ".git"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorktree(context.Background(), nested); !IsNotRepo(err) {
		t.Errorf("OpenWorktree(.git a named pipe) = %v, want a NotRepoError", err)
	}
	r, err := OpenWorktree(context.Background(), dir)
	if err != nil || r.Root != dir {
		t.Fatalf("OpenWorktree(root) = %+v, %v", r, err)
	}
	if _, err := r.Git.Head(); err != nil {
		t.Errorf("HEAD of the opened repository: %v", err)
	}
}
