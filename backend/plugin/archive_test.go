package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one tar entry of a test archive.
type entry struct {
	name     string
	typ      byte
	body     string
	linkname string
	size     int64 // the header's size when body is empty (0: len(body))
}

func file(name, body string) entry { return entry{name: name, typ: tar.TypeReg, body: body} }

// tarball builds a tar archive of es, gzipped when gz.
func tarball(t testing.TB, gz bool, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		size := int64(len(e.body))
		if e.size != 0 {
			size = e.size
		}
		hdr := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.linkname, Mode: 0o644, Size: size, Format: tar.FormatPAX}
		if e.typ != tar.TypeReg {
			hdr.Size = 0
		}
		if e.typ == tar.TypeXGlobalHeader {
			hdr = &tar.Header{Typeflag: e.typ, PAXRecords: map[string]string{"comment": "meith"}, Format: tar.FormatPAX}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg && e.body != "" {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if !gz {
		return buf.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	return z.Bytes()
}

// sandbox is a folder with the extraction folder "dest" and a sibling
// "outside" that must stay empty.
type sandbox struct{ top, dest, outside string }

func newSandbox(t testing.TB) sandbox {
	top := t.TempDir()
	s := sandbox{top: top, dest: filepath.Join(top, "dest"), outside: filepath.Join(top, "outside")}
	for _, d := range []string{s.dest, s.outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// untouched fails when anything but dest and outside is in top, or
// anything is in outside.
func (s sandbox) untouched(t testing.TB) {
	t.Helper()
	ents, _ := os.ReadDir(s.top)
	for _, e := range ents {
		if e.Name() != "dest" && e.Name() != "outside" && e.Name() != "archive.tgz" {
			t.Errorf("extraction wrote %s outside its folder", e.Name())
		}
	}
	if ents, _ := os.ReadDir(s.outside); len(ents) != 0 {
		t.Errorf("extraction wrote %v outside its folder", ents)
	}
}

// only fails when dest holds anything but regular files and folders.
func (s sandbox) onlyFilesAndFolders(t testing.TB) {
	t.Helper()
	filepath.WalkDir(s.dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			t.Errorf("extraction made %s of type %v", p, d.Type())
		}
		return nil
	})
}

func (s sandbox) write(t testing.TB, data []byte) string {
	t.Helper()
	p := filepath.Join(s.top, "archive.tgz")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var smallLimits = Limits{MaxArchiveBytes: 64 << 10, MaxFiles: 3, MaxFileBytes: 1 << 10, MaxTotalBytes: 2 << 10}

// TestExtractHostile: archives that try to write outside their folder, or
// to hold more than files and folders, or to exceed the limits, are refused
// as a whole with INVALID, and nothing is written outside the folder.
func TestExtractHostile(t *testing.T) {
	for _, tt := range hostileArchives(t) {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			err := Extract(s.write(t, tt.data), s.dest, tt.lim)
			if CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Extract = %v; want INVALID with %q", err, tt.err)
			}
			s.untouched(t)
			s.onlyFilesAndFolders(t)
		})
	}
}

// hostileArchive is an archive Extract must refuse with an INVALID error
// holding err.
type hostileArchive struct {
	name string
	data []byte
	lim  Limits
	err  string
}

func hostileArchives(t testing.TB) []hostileArchive {
	big := strings.Repeat("x", 1<<10+1)
	return []hostileArchive{
		{"zip-slip", tarball(t, true, file("../evil.txt", "x")), DefaultLimits, "leaves it"},
		{"zip-slip deeper", tarball(t, true, file("a/b/../../../evil.txt", "x")), DefaultLimits, "leaves it"},
		{"zip-slip through a folder entry", tarball(t, false, entry{name: "../x/", typ: tar.TypeDir}), DefaultLimits, "leaves it"},
		{"absolute path", tarball(t, true, file("/tmp/evil.txt", "x")), DefaultLimits, "absolute path"},
		{"backslash", tarball(t, true, file(`..\evil.txt`, "x")), DefaultLimits, "backslash"},
		{"symlink", tarball(t, true, file("index.html", "x"), entry{name: "link", typ: tar.TypeSymlink, linkname: "/etc/passwd"}), DefaultLimits, "symbolic link"},
		{"symlink then write through it", tarball(t, true, entry{name: "out", typ: tar.TypeSymlink, linkname: "../outside"}, file("out/evil.txt", "x")),
			DefaultLimits, "symbolic link"},
		{"hard link", tarball(t, true, file("a", "x"), entry{name: "b", typ: tar.TypeLink, linkname: "/etc/passwd"}), DefaultLimits, "hard link"},
		{"char device", tarball(t, true, entry{name: "null", typ: tar.TypeChar}), DefaultLimits, "device or pipe"},
		{"block device", tarball(t, true, entry{name: "sda", typ: tar.TypeBlock}), DefaultLimits, "device or pipe"},
		{"fifo", tarball(t, true, entry{name: "pipe", typ: tar.TypeFifo}), DefaultLimits, "device or pipe"},
		{"too many files", tarball(t, true, file("a", "1"), file("b", "2"), file("c", "3"), file("d", "4")), smallLimits, "more than 3 files"},
		{"too many folders", tarball(t, false, entry{name: "a/", typ: tar.TypeDir}, entry{name: "b/", typ: tar.TypeDir},
			entry{name: "c/", typ: tar.TypeDir}, entry{name: "d/", typ: tar.TypeDir}), smallLimits, "more than 3 folders"},
		{"oversize file", tarball(t, true, file("big", big)), smallLimits, "larger than 1 KB"},
		{"oversize in all", tarball(t, true, file("a", big[:1000]), file("b", big[:1000]), file("c", big[:1000])), smallLimits, "in all"},
		{"oversize archive", tarball(t, false, file("a", strings.Repeat("y", 70<<10))), Limits{MaxArchiveBytes: 64 << 10, MaxFiles: 3, MaxFileBytes: 1 << 20, MaxTotalBytes: 1 << 20},
			"larger than 64 KB"},
		{"a name twice", tarball(t, true, file("a", "1"), file("a", "2")), DefaultLimits, "more than once"},
		{"a file in place of a folder", tarball(t, true, file("a", "1"), file("a/b", "2")), DefaultLimits, "cannot be made"},
		{"a folder in place of a file", tarball(t, true, entry{name: "a/", typ: tar.TypeDir}, file("a", "2")), DefaultLimits, "cannot be written"},
		{"cut short", tarball(t, false, file("a", strings.Repeat("z", 4096)))[:1024], DefaultLimits, "cut short"},
		{"not an archive", []byte("hello, this is not a tar archive at all, not even close to one........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................"),
			DefaultLimits, "not a valid tar"},
		{"not gzip", []byte{0x1f, 0x8b, 0, 0, 0}, DefaultLimits, "not a valid gzip"},
		{"empty", tarball(t, true), DefaultLimits, "empty"},
	}
}

// TestExtract: a gzipped and a plain tar unpack their files and folders,
// with private modes.
func TestExtract(t *testing.T) {
	for _, gz := range []bool{true, false} {
		s := newSandbox(t)
		data := tarball(t, gz, entry{name: "./", typ: tar.TypeDir}, entry{name: "package/", typ: tar.TypeDir},
			file("package/plugin.json", demoManifest), file("./package/index.html", "<p>hi</p>"), file("package/dist/app.js", "1"),
			entry{name: "package/empty/", typ: tar.TypeDir}, entry{name: "pax_global_header", typ: tar.TypeXGlobalHeader})
		if err := Extract(s.write(t, data), s.dest, DefaultLimits); err != nil {
			t.Fatalf("gz %v: %v", gz, err)
		}
		for name, want := range map[string]string{"package/plugin.json": demoManifest, "package/index.html": "<p>hi</p>", "package/dist/app.js": "1"} {
			p := filepath.Join(s.dest, name)
			b, err := os.ReadFile(p)
			fi, _ := os.Stat(p)
			if err != nil || string(b) != want || fi.Mode().Perm() != 0o600 {
				t.Errorf("gz %v: %s = %q %v %v", gz, name, b, fi.Mode(), err)
			}
		}
		if fi, err := os.Stat(filepath.Join(s.dest, "package", "empty")); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("gz %v: empty folder %v %v", gz, fi, err)
		}
		if got := archiveRoot(s.dest); got != filepath.Join(s.dest, "package") {
			t.Errorf("archiveRoot = %s, want the package folder", got)
		}
		s.untouched(t)
	}
	if _, err := os.Stat("/nonexistent"); err == nil {
		t.Skip()
	}
	if err := Extract("/nonexistent/x.tgz", t.TempDir(), DefaultLimits); CodeOf(err) != CodeNotFound {
		t.Errorf("a missing archive: %v, want NOT_FOUND", err)
	}
	if err := Extract(t.TempDir(), t.TempDir(), DefaultLimits); CodeOf(err) != CodeInvalid {
		t.Errorf("a folder as the archive: %v, want INVALID", err)
	}
}

// TestWriteFuzzSeeds writes the seed corpus of FuzzExtract
// (testdata/fuzz/FuzzExtract): every hostile archive of TestExtractHostile
// and valid ones. It runs only with MEITH_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("MEITH_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set MEITH_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzExtract")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzExtract")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{
		"valid-tgz":      tarball(t, true, entry{name: "package/", typ: tar.TypeDir}, file("package/plugin.json", demoManifest), file("package/index.html", "<p>hi</p>")),
		"valid-tar":      tarball(t, false, file("plugin.json", demoManifest), file("index.html", "x"), entry{name: "dist/", typ: tar.TypeDir}, file("dist/a.js", "1")),
		"valid-pax-glob": tarball(t, false, entry{name: "g", typ: tar.TypeXGlobalHeader}, file("a", "1")),
	}
	for _, h := range hostileArchives(t) {
		if len(h.data) <= 64<<10 {
			seeds[strings.ReplaceAll(h.name, " ", "-")] = h.data
		}
	}
	for name, data := range seeds {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzExtract: whatever the bytes, Extract writes nothing outside its
// folder, makes only files and folders within the limits, and either
// succeeds or fails with an INVALID error. The seed corpus (testdata/fuzz)
// holds a valid archive of each kind and the hostile ones of
// TestExtractHostile.
func FuzzExtract(f *testing.F) {
	f.Add(tarball(f, true, file("plugin.json", demoManifest), file("index.html", "x")))
	f.Add(tarball(f, false, entry{name: "d/", typ: tar.TypeDir}, file("d/a", "1")))
	f.Add(tarball(f, true, file("../evil", "x")))
	f.Add(tarball(f, false, entry{name: "l", typ: tar.TypeSymlink, linkname: "../outside"}, file("l/x", "1")))
	f.Add(tarball(f, false, file("a", "1"), entry{name: "b", typ: tar.TypeLink, linkname: "a"}))
	lim := Limits{MaxArchiveBytes: 1 << 20, MaxFiles: 20, MaxFileBytes: 64 << 10, MaxTotalBytes: 256 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newSandbox(t)
		err := Extract(s.write(t, data), s.dest, lim)
		if err != nil && CodeOf(err) != CodeInvalid {
			t.Fatalf("Extract = %v, want nil or INVALID", err)
		}
		s.untouched(t)
		files, dirs := 0, 0
		var total int64
		filepath.WalkDir(s.dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == s.dest {
				return err
			}
			switch {
			case d.IsDir():
				dirs++
			case d.Type().IsRegular():
				files++
				fi, _ := d.Info()
				if fi.Size() > lim.MaxFileBytes {
					t.Errorf("%s has %d bytes", p, fi.Size())
				}
				total += fi.Size()
			default:
				t.Errorf("extraction made %s of type %v", p, d.Type())
			}
			return nil
		})
		if files > lim.MaxFiles || total > lim.MaxTotalBytes {
			t.Errorf("extraction made %d files of %d bytes", files, total)
		}
	})
}
