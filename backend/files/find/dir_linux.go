//go:build linux && (amd64 || arm64)

package find

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory: its entries are read with getdents and
// stat'ed or opened relative to its descriptor (no path lookups).
type dirHandle struct{ fd int }

// direntBufs are the getdents buffers of the walk's workers.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// openDir opens the directory abs without following a symbolic link in
// its last element; a directory replaced by a link or a file fails.
func openDir(abs string) (dirHandle, error) {
	for {
		fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{fd: -1}, err
		}
		return dirHandle{fd: fd}, nil
	}
}

func (h dirHandle) close() { unix.Close(h.fd) }

// valid reports whether h is an open folder.
func (h dirHandle) valid() bool { return h.fd >= 0 }

// entries lists the directory (without "." and ".."). The names point into
// a buffer of their own that keeps each name's terminating NUL, so stat
// and open can hand them to the kernel without copying.
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
		// written again. A record takes at least 24 bytes.
		b := append([]byte(nil), buf[:n]...)
		if out == nil {
			out = make([]dirent, 0, n/24+1)
		}
		for len(b) >= 19 {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			b = b[reclen:]
			nul := -1
			for i, c := range name {
				if c == 0 {
					nul = i
					break
				}
			}
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

// stat lstats a name from entries inside the directory (the name's NUL
// follows it in memory).
func (h dirHandle) stat(name string) (fileInfo, error) {
	var st unix.Stat_t
	p := unsafe.Pointer(unsafe.StringData(name))
	for {
		_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(h.fd), uintptr(p), uintptr(unsafe.Pointer(&st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return fileInfo{}, errno
		}
		return infoOf(&st), nil
	}
}

func infoOf(st *unix.Stat_t) fileInfo {
	var t uint8
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		t = dtFile
	case unix.S_IFDIR:
		t = dtDir
	case unix.S_IFLNK:
		t = dtLink
	default:
		t = dtOther
	}
	return fileInfo{typ: t, size: st.Size, mtimeMs: st.Mtim.Sec*1000 + st.Mtim.Nsec/1e6}
}

// openSub opens the folder rel (relative to h, "a/b") without following
// a symbolic link in its last element.
func (h dirHandle) openSub(rel string) (dirHandle, error) {
	for {
		fd, err := unix.Openat(h.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{fd: -1}, err
		}
		return dirHandle{fd: fd}, nil
	}
}

// firstRead is how much readFile asks for before it knows a file's size:
// most source files fit, and are read with one open, one read and one
// close.
const firstRead = 64 << 10

// readFile reads the regular file name of the folder (a name from
// entries, or one followed by a NUL in memory) into *buf when it is at
// most max bytes. The file is opened without following a link and without
// blocking, so a named pipe or device that took the place of a listed file
// is never waited on. It returns the content (a prefix of *buf, which
// grows as needed), or skip when the file is not a regular file, is larger
// than max, or cannot be read.
//
// A file that fits in the first read (a read that returns less than asked
// is the end of a regular file) costs no stat; a larger one is stat'ed
// and read to its end, or skipped unread past max.
func (h dirHandle) readFile(name string, max int64, buf *[]byte) (content []byte, skip bool) {
	p := unsafe.Pointer(unsafe.StringData(name))
	var fd int
	for {
		r, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(h.fd), uintptr(p),
			uintptr(unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return nil, true
		}
		fd = int(r)
		break
	}
	defer unix.Close(fd)
	if cap(*buf) < firstRead {
		*buf = make([]byte, firstRead)
	}
	b := (*buf)[:cap(*buf)]
	n, err := readRetry(fd, b[:firstRead])
	if err != nil {
		return nil, true // EAGAIN: a named pipe with a writer
	}
	if n < firstRead {
		return b[:n], false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > max {
		return nil, true // a device, or too large
	}
	size := int(st.Size)
	if size > len(b) {
		*buf = make([]byte, size, size+size/4)
		copy(*buf, b[:n])
		b = (*buf)[:size]
	}
	for n < size {
		m, err := readRetry(fd, b[n:size])
		if err != nil {
			return nil, true
		}
		if m == 0 {
			break // shrank since fstat
		}
		n += m
	}
	return b[:n], false
}

func readRetry(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}
