package repo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// ErrOutOfRange says that a PagedFile was asked for bytes past its end.
var ErrOutOfRange = errors.New("read past the end of the file")

// ErrFileChanged says that a mapped repository file shrank while it was
// read (the access faulted and was stopped).
var ErrFileChanged = errors.New("file truncated while it was read")

// PagedFile gives random access to a large repository file (a pack index,
// a commit-graph), for any number of goroutines at once, reading only
// what is touched. Where the system can, the file is mapped into memory
// (as git maps these files): nothing is copied until asked for, and the
// pages come from the page cache. A file truncated under the mapping would
// make an access fault (SIGBUS); every access runs with
// debug.SetPanicOnFault and turns such a fault into ErrFileChanged, so a
// hostile repository cannot crash the process this way. Accessors copy
// what they read into the caller's memory, so no slice of the mapping
// outlives the access that checked it. Where the file cannot be mapped,
// it is read a page at a time, each page once, into private memory.
type PagedFile struct {
	f    *RegularFile
	size int64
	m    []byte // the mapping, or nil

	psize int64
	pages []atomic.Pointer[[]byte]
}

// NewPagedFile opens f for random access (pageSize is the unit of reads
// when f cannot be mapped). The PagedFile owns f: it is closed (and the
// mapping released) once the PagedFile is unreachable.
func NewPagedFile(f *RegularFile, pageSize int) *PagedFile {
	if pf := mapPagedFile(f); pf != nil {
		return pf
	}
	size := f.Stat().Size()
	pf := &PagedFile{f: f, size: size, psize: int64(pageSize)}
	pf.pages = make([]atomic.Pointer[[]byte], (size+pf.psize-1)/pf.psize)
	runtime.AddCleanup(pf, func(f *RegularFile) { f.Close() }, f)
	return pf
}

// mapPagedFile maps f; nil (and f untouched) when it cannot be mapped.
func mapPagedFile(f *RegularFile) *PagedFile {
	size := f.Stat().Size()
	m, err := mapFile(f, size)
	if err != nil || m == nil {
		return nil
	}
	pf := &PagedFile{f: f, size: size, m: m}
	runtime.AddCleanup(pf, func(r mapped) { r.release() }, mapped{m: m, f: f})
	return pf
}

// mapped is what a mapping's cleanup releases.
type mapped struct {
	m []byte
	f *RegularFile
}

func (r mapped) release() {
	unmapFile(r.m)
	r.f.Close()
}

// readerAt is io.ReaderAt over a mapped PagedFile (each read is checked
// as ReadAt checks it).
type readerAt struct{ pf *PagedFile }

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	n := min(int64(len(p)), r.pf.size-off)
	if n <= 0 {
		return 0, io.EOF
	}
	if err := r.pf.ReadAt(p[:n], off); err != nil {
		return 0, err
	}
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// Size is the file's size when it was opened.
func (pf *PagedFile) Size() int64 { return pf.size }

func (pf *PagedFile) check(off int64, n int) error {
	if off < 0 || n < 0 || off > pf.size-int64(n) {
		return ErrOutOfRange
	}
	return nil
}

// faulted turns the panic of a faulting access into ErrFileChanged (and
// lets any other panic go on).
func faulted(r any, path string) error {
	if e, ok := r.(runtime.Error); ok {
		if _, isFault := r.(interface{ Addr() uintptr }); isFault {
			return fmt.Errorf("%s: %w (%v)", path, ErrFileChanged, e)
		}
	}
	panic(r)
}

// ReadAt copies len(p) bytes at off into p.
func (pf *PagedFile) ReadAt(p []byte, off int64) (err error) {
	if err := pf.check(off, len(p)); err != nil {
		return err
	}
	if pf.m != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				err = faulted(r, pf.f.f.Name())
			}
		}()
		copy(p, pf.m[off:])
		return nil
	}
	for len(p) > 0 {
		i := off / pf.psize
		page, err := pf.page(i)
		if err != nil {
			return err
		}
		n := copy(p, page[off-i*pf.psize:])
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// At returns a copy of the n bytes at off.
func (pf *PagedFile) At(off int64, n int) ([]byte, error) {
	if err := pf.check(off, n); err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if err := pf.ReadAt(out, off); err != nil {
		return nil, err
	}
	return out, nil
}

// Uint32 returns the big-endian uint32 at off.
func (pf *PagedFile) Uint32(off int64) (uint32, error) {
	var b [4]byte
	if err := pf.ReadAt(b[:], off); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b[:]), nil
}

// Compare compares the len(key) bytes at off with key, like bytes.Compare.
func (pf *PagedFile) Compare(off int64, key []byte) (c int, err error) {
	if err := pf.check(off, len(key)); err != nil {
		return 0, err
	}
	if pf.m != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				err = faulted(r, pf.f.f.Name())
			}
		}()
		return bytes.Compare(pf.m[off:off+int64(len(key))], key), nil
	}
	var buf [32]byte
	b := buf[:0]
	if len(key) > len(buf) {
		b = make([]byte, len(key))
	} else {
		b = buf[:len(key)]
	}
	if err := pf.ReadAt(b, off); err != nil {
		return 0, err
	}
	return bytes.Compare(b, key), nil
}

func (pf *PagedFile) page(i int64) ([]byte, error) {
	if p := pf.pages[i].Load(); p != nil {
		return *p, nil
	}
	n := min(pf.psize, pf.size-i*pf.psize)
	b := make([]byte, n)
	if err := readFullAt(pf.f, b, i*pf.psize); err != nil {
		return nil, err
	}
	pf.pages[i].CompareAndSwap(nil, &b) // a racing reader's copy is as good
	return *pf.pages[i].Load(), nil
}
