package plugin

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Limits bound what [Extract] takes from an archive.
type Limits struct {
	// MaxArchiveBytes bounds the archive file (compressed).
	MaxArchiveBytes int64
	// MaxFiles bounds the regular files, and separately the folders.
	MaxFiles int
	// MaxFileBytes bounds each file.
	MaxFileBytes int64
	// MaxTotalBytes bounds the files together (a small archive can expand
	// a thousandfold).
	MaxTotalBytes int64
}

// DefaultLimits are the original's (reference §8): 50 MB compressed, 2,000
// files, 10 MB per file; and, ours, 200 MB in all.
var DefaultLimits = Limits{MaxArchiveBytes: 50 << 20, MaxFiles: 2000, MaxFileBytes: 10 << 20, MaxTotalBytes: 200 << 20}

// ArchiveExtensions are the archive names a plugin may be installed from.
var ArchiveExtensions = []string{".tgz", ".tar.gz", ".tar"}

// IsArchiveName reports whether name ends with one of [ArchiveExtensions]
// (any case).
func IsArchiveName(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(ArchiveExtensions, func(ext string) bool { return strings.HasSuffix(lower, ext) })
}

// Extract unpacks the tar archive src (gzip-compressed or not, told by its
// first bytes) into the folder dest, which must exist and be empty. Only
// regular files and folders are taken: an absolute name, a ".." element,
// a backslash, a symbolic or hard link, a device, a pipe, any other kind of
// entry, a name given twice, and anything past lim, fail the whole archive
// with a [CodeInvalid] error. Every file is written through an [os.Root]
// on dest (files 0600, folders 0700), so nothing lands outside it whatever
// the archive holds; on failure dest may hold part of the archive and the
// caller removes it.
func Extract(src, dest string, lim Limits) error {
	f, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return archiveOpenError(src, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return archiveOpenError(src, err)
	}
	if !fi.Mode().IsRegular() {
		return invalidf("%s is not a regular file", src)
	}
	if fi.Size() > lim.MaxArchiveBytes {
		return invalidf("%s is larger than %s (the limit for a plugin archive)", src, sizeText(lim.MaxArchiveBytes))
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	return extract(io.LimitReader(f, lim.MaxArchiveBytes+1), root, lim)
}

// extract is [Extract] on a stream.
func extract(in io.Reader, root *os.Root, lim Limits) error {
	counted := &countingReader{r: in}
	br := bufio.NewReader(counted)
	var stream io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return invalidf("The archive is not a valid gzip file: %v", err)
		}
		defer gz.Close()
		stream = gz
	}
	tr := tar.NewReader(stream)
	var files, dirs int
	var total int64
	seen := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if counted.n > lim.MaxArchiveBytes {
			return invalidf("The archive is larger than %s", sizeText(lim.MaxArchiveBytes))
		}
		if err == io.EOF {
			if files == 0 && dirs == 0 {
				return invalidf("The archive is empty")
			}
			return nil
		}
		if err != nil {
			return invalidf("The archive is not a valid tar archive: %v", err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // attributes for what follows, nothing to write
		}
		name, err := entryName(hdr.Name)
		if err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if name == "." {
				continue
			}
			if dirs++; dirs > lim.MaxFiles {
				return invalidf("The archive has more than %d folders", lim.MaxFiles)
			}
			if err := root.MkdirAll(name, 0o700); err != nil {
				return invalidf("The archive's folder %s cannot be made: %v", clip(name, 200), unwrapPath(err))
			}
		case tar.TypeReg:
			if name == "." || seen[name] {
				return invalidf("The archive holds %s more than once", clip(name, 200))
			}
			seen[name] = true
			if files++; files > lim.MaxFiles {
				return invalidf("The archive has more than %d files", lim.MaxFiles)
			}
			if hdr.Size > lim.MaxFileBytes {
				return invalidf("The archive's file %s is larger than %s", clip(name, 200), sizeText(lim.MaxFileBytes))
			}
			if total += hdr.Size; total > lim.MaxTotalBytes {
				return invalidf("The archive's files are larger than %s in all", sizeText(lim.MaxTotalBytes))
			}
			if err := writeEntry(root, name, tr, hdr.Size); err != nil {
				return err
			}
		case tar.TypeSymlink:
			return invalidf("The archive holds a symbolic link (%s): plugin archives may hold only files and folders", clip(name, 200))
		case tar.TypeLink:
			return invalidf("The archive holds a hard link (%s): plugin archives may hold only files and folders", clip(name, 200))
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return invalidf("The archive holds a device or pipe (%s): plugin archives may hold only files and folders", clip(name, 200))
		default:
			return invalidf("The archive holds an entry of an unsupported type (%s): plugin archives may hold only files and folders", clip(name, 200))
		}
	}
}

// entryName checks an entry's name and returns it clean ("." for the
// archive's own folder).
func entryName(name string) (string, error) {
	switch {
	case name == "":
		return "", invalidf("The archive holds an entry without a name")
	case strings.HasPrefix(name, "/"):
		return "", invalidf("The archive holds an absolute path (%s)", clip(name, 200))
	case strings.ContainsAny(name, "\\\x00"):
		return "", invalidf("The archive holds a name with a backslash (%s)", clip(name, 200))
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "", invalidf("The archive holds a path that leaves it (%s)", clip(name, 200))
	}
	return path.Clean(name), nil
}

// writeEntry writes one file of size bytes from r to name in root (its
// folders made first). A name already taken (by a folder) fails.
func writeEntry(root *os.Root, name string, r io.Reader, size int64) error {
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return invalidf("The archive's folder %s cannot be made: %v", clip(dir, 200), unwrapPath(err))
		}
	}
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return invalidf("The archive's file %s cannot be written: %v", clip(name, 200), unwrapPath(err))
	}
	_, err = io.CopyN(out, r, size)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return invalidf("The archive is cut short (in %s)", clip(name, 200))
		}
		var pe *os.PathError
		if errors.As(err, &pe) || errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("write the plugin's file %s: %w", clip(name, 200), err)
		}
		return invalidf("The archive cannot be read (in %s): %v", clip(name, 200), err)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// archiveOpenError is the error of an archive file that cannot be opened.
func archiveOpenError(src string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return notFoundf("Plugin archive %s does not exist", src)
	}
	return &Error{Code: CodeInvalid, Msg: "Plugin archive " + src + " cannot be read: " + unwrapPath(err).Error(), Err: err}
}

// sizeText says n bytes in MB (or KB).
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// archiveRoot is the folder of an extracted archive that holds the plugin:
// the extraction folder, or, when it holds no manifest and nothing but one
// folder (as `npm pack` makes: package/…), that folder.
func archiveRoot(dir string) string {
	for _, name := range []string{ManifestFile, PackageFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return dir
		}
	}
	ents, err := os.ReadDir(dir)
	if err == nil && len(ents) == 1 && ents[0].IsDir() {
		return filepath.Join(dir, ents[0].Name())
	}
	return dir
}
