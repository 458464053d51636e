package status

import (
	"encoding/binary"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory: entries are listed with getdents and
// stat'ed relative to the directory's descriptor (no path lookups).
type dirHandle struct{ fd int }

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func openDir(root, dir string) (dirHandle, error) {
	fd, err := unix.Open(filepath.Join(root, filepath.FromSlash(dir)), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return dirHandle{fd: -1}, err
	}
	return dirHandle{fd: fd}, nil
}

func (h dirHandle) close() { unix.Close(h.fd) }

// entries lists the directory (without "." and ".."). The names point
// into a buffer of their own that keeps each name's terminating NUL, so
// lstat can pass them to the kernel without copying.
func (h dirHandle) entries() ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(h.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		// A private copy: the names below alias it and it is never
		// written again.
		b := append([]byte(nil), buf[:n]...)
		for len(b) >= 19 {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			nul := -1
			for i, c := range name {
				if c == 0 {
					nul = i
					break
				}
			}
			b = b[reclen:]
			if nul <= 0 || (nul == 1 && name[0] == '.') || (nul == 2 && name[0] == '.' && name[1] == '.') {
				continue
			}
			var t uint8
			switch typ {
			case unix.DT_REG:
				t = dtFile
			case unix.DT_DIR:
				t = dtDir
			case unix.DT_LNK:
				t = dtLink
			case unix.DT_UNKNOWN:
				t = dtUnknown
			default:
				t = dtOther
			}
			out = append(out, dirent{name: unsafe.String(&name[0], nul), typ: t})
		}
	}
}

// lstat stats a name (from entries) inside the directory without
// following symlinks.
func (h dirHandle) lstat(name string) (fsStat, error) {
	var st unix.Stat_t
	if err := fstatatNoFollow(h.fd, name, &st); err != nil {
		return fsStat{}, err
	}
	return fsStat{
		st: Stat{
			CtimeSec: uint32(st.Ctim.Sec), CtimeNsec: uint32(st.Ctim.Nsec),
			MtimeSec: uint32(st.Mtim.Sec), MtimeNsec: uint32(st.Mtim.Nsec),
			Dev: uint32(st.Dev), Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid,
			Size: uint32(st.Size),
		},
		mode: st.Mode,
		size: st.Size,
	}, nil
}
