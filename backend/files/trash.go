package files

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// trash.go: deleted files and folders are moved to <userData>/trash/
// <timestamp>-<name>, with a note of where they came from in
// trash/.info/<entry>.json, so a person can find them and workspace_undo
// can put them back. The trash keeps 7 days and 500 MB by default: after
// each delete, and when the runtime starts ([Engine.PruneTrash]), older
// entries and the oldest beyond the size are dropped. A
// file or folder larger than the whole trash is not deleted at all (it
// could not be kept). Across file systems the entry is copied, then the
// original removed.

// errNotInTrash says a trash entry is gone (dropped by the bounds, or
// removed by hand).
var errNotInTrash = errors.New("not in the trash any more")

// errTooBig stops a size walk past its limit.
var errTooBig = errors.New("over the limit")

// infoDir is the folder of the notes about the trash entries.
const infoDir = ".info"

// trashInfo is the note about a trash entry.
type trashInfo struct {
	OriginalPath string `json:"originalPath"`
	DeletedAt    int64  `json:"deletedAt"` // ms since the epoch
	Type         string `json:"type"`
	Bytes        int64  `json:"bytes"`
}

// trash is the bounded trash folder.
type trash struct {
	mu       sync.Mutex
	dir      string
	maxAge   time.Duration
	maxBytes int64
	now      func() time.Time
}

// open makes (0700) and opens the trash folder.
func (t *trash) open() (*dir, error) {
	if err := os.MkdirAll(filepath.Join(t.dir, infoDir), 0o700); err != nil {
		return nil, err
	}
	canon, err := filepath.EvalSymlinks(t.dir)
	if err != nil {
		return nil, err
	}
	return openDir(canon)
}

// entryName is the trash entry of name deleted now: <timestamp>-<name>,
// within the length a file name may have.
func (t *trash) entryName(name string, attempt int) string {
	stamp := t.now().UTC().Format("20060102-150405.000")
	if attempt > 0 {
		stamp += fmt.Sprintf("-%d", attempt)
	}
	const maxName = 240 // the note adds ".json"; NAME_MAX is 255
	if room := maxName - len(stamp) - 1; len(name) > room {
		name = name[:room]
		for len(name) > 0 && !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	return stamp + "-" + name
}

// put moves name of d (abs, rel for messages) to the trash and returns the
// entry's name. A file or folder over the trash's size is refused
// (KindTooLarge).
func (t *trash) put(ctx context.Context, d *dir, name, abs, rel string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok, err := d.lstat(name)
	if err != nil {
		return "", ioFail("look at", rel, err)
	}
	if !ok {
		return "", failf(KindNotFound, nil, "no such file or folder: %s", rel)
	}
	size, err := treeSize(ctx, d, name, t.maxBytes)
	if errors.Is(err, errTooBig) {
		return "", failf(KindTooLarge, err, "%s is over %s, more than meith's trash keeps, so it could not be restored: delete it outside meith if you mean it",
			rel, sizeText(t.maxBytes))
	}
	if err != nil {
		return "", ioFail("measure", rel, err)
	}
	td, err := t.open()
	if err != nil {
		return "", failf(KindIO, err, "open meith's trash %s: %s", t.dir, pathErrText(err))
	}
	defer td.close()
	info := trashInfo{OriginalPath: abs, DeletedAt: t.now().UnixMilli(), Type: typeOf(st.Mode), Bytes: size}
	note, _ := json.Marshal(info)
	var entry string
	for attempt := 0; ; attempt++ {
		entry = t.entryName(name, attempt)
		notePath := filepath.Join(td.path, infoDir, entry+".json")
		if err := atomicfile.WriteFile(notePath, note, 0o600); err != nil {
			return "", failf(KindIO, err, "write to meith's trash %s: %s", t.dir, pathErrText(err))
		}
		err = renameNoReplace(d, name, td, entry)
		if errors.Is(err, unix.EEXIST) && attempt < 100 {
			os.Remove(notePath)
			continue
		}
		if errors.Is(err, unix.EXDEV) {
			err = t.copyAcross(ctx, d, name, td, entry)
		}
		if err != nil {
			os.Remove(notePath)
			return "", ioFail("move to meith's trash:", rel, err)
		}
		break
	}
	_ = td.sync()
	_ = d.sync()
	t.prune(td, entry)
	return entry, nil
}

// copyAcross copies name of from to entry of to (another file system) and
// removes the original; a failed copy leaves the original and no partial
// copy.
func (t *trash) copyAcross(ctx context.Context, from *dir, name string, to *dir, entry string) error {
	if err := copyTree(ctx, from, name, to, entry); err != nil {
		_ = removeAllAt(to, entry)
		return err
	}
	if err := removeAllAt(from, name); err != nil {
		return fmt.Errorf("copied, but the original could not be removed: %w", err)
	}
	return nil
}

// restore moves the trash entry to name of d (which must be free).
func (t *trash) restore(ctx context.Context, entry string, d *dir, name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	td, err := t.open()
	if err != nil {
		return err
	}
	defer td.close()
	if _, ok, err := td.lstat(entry); err != nil {
		return err
	} else if !ok {
		return errNotInTrash
	}
	err = renameNoReplace(td, entry, d, name)
	if errors.Is(err, unix.EXDEV) {
		err = t.copyAcross(ctx, td, entry, d, name)
	}
	if err != nil {
		return err
	}
	os.Remove(filepath.Join(td.path, infoDir, entry+".json"))
	_ = d.sync()
	_ = td.sync()
	return nil
}

// prune drops the entries older than the maximum age and, newest first,
// those beyond the maximum size; keep (just trashed) always stays. Notes
// without an entry go too.
func (t *trash) prune(td *dir, keep string) {
	names, err := td.names()
	if err != nil {
		return
	}
	type item struct {
		name  string
		at    int64
		bytes int64
	}
	var items []item
	present := map[string]bool{}
	for _, n := range names {
		if n == infoDir {
			continue
		}
		present[n] = true
		it := item{name: n, at: -1, bytes: -1}
		if b, err := readSmall(filepath.Join(td.path, infoDir, n+".json")); err == nil {
			var info trashInfo
			if json.Unmarshal(b, &info) == nil {
				it.at, it.bytes = info.DeletedAt, info.Bytes
			}
		}
		if it.at < 0 {
			if st, ok, err := td.lstat(n); err == nil && ok {
				it.at = st.Mtim.Nano() / 1e6
			}
		}
		if it.bytes < 0 {
			it.bytes, _ = treeSize(context.Background(), td, n, t.maxBytes)
		}
		items = append(items, it)
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Or(cmp.Compare(b.at, a.at), strings.Compare(b.name, a.name)) })
	cutoff := t.now().Add(-t.maxAge).UnixMilli()
	var total int64
	for _, it := range items {
		total += it.bytes
		if it.name == keep || (it.at >= cutoff && total <= t.maxBytes) {
			continue
		}
		if removeAllAt(td, it.name) == nil {
			os.Remove(filepath.Join(td.path, infoDir, it.name+".json"))
			total -= it.bytes
			delete(present, it.name)
		}
	}
	if notes, err := os.ReadDir(filepath.Join(td.path, infoDir)); err == nil {
		for _, n := range notes {
			if e, ok := strings.CutSuffix(n.Name(), ".json"); ok && !present[e] {
				os.Remove(filepath.Join(td.path, infoDir, n.Name()))
			}
		}
	}
}

// pruneExisting prunes the trash if it exists (it is not made).
func (t *trash) pruneExisting() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := os.Lstat(t.dir); err != nil {
		return
	}
	td, err := t.open()
	if err != nil {
		return
	}
	defer td.close()
	t.prune(td, "")
}

// readSmall reads a file of at most 64 KiB.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

// treeSize adds up the sizes of name of d and, for a folder, everything
// under it, without following links; errTooBig once over limit.
func treeSize(ctx context.Context, d *dir, name string, limit int64) (int64, error) {
	var total int64
	var walk func(d *dir, name string) error
	walk = func(d *dir, name string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, ok, err := d.lstat(name)
		if err != nil || !ok {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			total += st.Size
			if total > limit {
				return errTooBig
			}
			return nil
		}
		sub, err := d.sub(name)
		if err != nil {
			return err
		}
		defer sub.close()
		names, err := sub.names()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := walk(sub, n); err != nil {
				return err
			}
		}
		return nil
	}
	err := walk(d, name)
	return total, err
}

// copyTree copies name of from to toName of to, with modes and times,
// links as links; named pipes, sockets and devices hold no content and are
// skipped.
func copyTree(ctx context.Context, from *dir, name string, to *dir, toName string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, ok, err := from.lstat(name)
	if err != nil || !ok {
		return err
	}
	times := []unix.Timespec{st.Atim, st.Mtim}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		in, err := unix.Openat(from.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: from.abs(name), Err: err}
		}
		inf := os.NewFile(uintptr(in), from.abs(name))
		defer inf.Close()
		out, err := unix.Openat(to.fd, toName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return &os.PathError{Op: "create", Path: to.abs(toName), Err: err}
		}
		outf := os.NewFile(uintptr(out), to.abs(toName))
		defer outf.Close()
		if _, err := io.Copy(outf, inf); err != nil {
			return err
		}
		if err := unix.Fchmod(out, st.Mode&0o7777); err != nil {
			return err
		}
		if err := outf.Sync(); err != nil {
			return err
		}
	case unix.S_IFDIR:
		if err := unix.Mkdirat(to.fd, toName, 0o700); err != nil {
			return &os.PathError{Op: "mkdir", Path: to.abs(toName), Err: err}
		}
		fs, err := from.sub(name)
		if err != nil {
			return err
		}
		defer fs.close()
		ts, err := to.sub(toName)
		if err != nil {
			return err
		}
		defer ts.close()
		names, err := fs.names()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := copyTree(ctx, fs, n, ts, n); err != nil {
				return err
			}
		}
		if err := unix.Fchmod(ts.fd, st.Mode&0o7777); err != nil {
			return err
		}
		_ = ts.sync()
	case unix.S_IFLNK:
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(from.fd, name, buf)
		if err != nil {
			return &os.PathError{Op: "readlink", Path: from.abs(name), Err: err}
		}
		if err := unix.Symlinkat(string(buf[:n]), to.fd, toName); err != nil {
			return &os.PathError{Op: "symlink", Path: to.abs(toName), Err: err}
		}
	default:
		return nil
	}
	_ = unix.UtimesNanoAt(to.fd, toName, times, unix.AT_SYMLINK_NOFOLLOW)
	return nil
}

// removeAllAt removes name of d and everything under it, never following a
// link.
func removeAllAt(d *dir, name string) error {
	st, ok, err := d.lstat(name)
	if err != nil || !ok {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		sub, err := d.sub(name)
		if err != nil {
			return err
		}
		names, err := sub.names()
		if err == nil {
			for _, n := range names {
				if err = removeAllAt(sub, n); err != nil {
					break
				}
			}
		}
		sub.close()
		if err != nil {
			return err
		}
		if err := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); err != nil {
			return &os.PathError{Op: "remove", Path: d.abs(name), Err: err}
		}
		return nil
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: d.abs(name), Err: err}
	}
	return nil
}
