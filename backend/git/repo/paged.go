package repo

import (
	"encoding/binary"
	"errors"
	"io"
	"sync/atomic"
)

// ErrOutOfRange says that a PagedFile was asked for bytes past its end.
var ErrOutOfRange = errors.New("read past the end of the file")

// PagedFile reads a large repository file (a pack index, a commit-graph)
// a page at a time, each page once, into private memory: what a call
// touches is read, nothing else, and a file truncated under us gives an
// error instead of the SIGBUS a memory map would. Any number of
// goroutines may read at once.
type PagedFile struct {
	f     *RegularFile
	size  int64
	psize int64
	pages []atomic.Pointer[[]byte]
}

// NewPagedFile reads f in pages of pageSize bytes.
func NewPagedFile(f *RegularFile, pageSize int) *PagedFile {
	size := f.Stat().Size()
	ps := int64(pageSize)
	return &PagedFile{f: f, size: size, psize: ps, pages: make([]atomic.Pointer[[]byte], (size+ps-1)/ps)}
}

// Size is the file's size when it was opened.
func (pf *PagedFile) Size() int64 { return pf.size }

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

// At returns the n bytes at off. The slice is shared (a copy only when
// the bytes cross a page): callers must not modify it.
func (pf *PagedFile) At(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off > pf.size-int64(n) {
		return nil, ErrOutOfRange
	}
	if n == 0 {
		return nil, nil
	}
	first, last := off/pf.psize, (off+int64(n)-1)/pf.psize
	if first == last {
		p, err := pf.page(first)
		if err != nil {
			return nil, err
		}
		s := off - first*pf.psize
		return p[s : s+int64(n)], nil
	}
	out := make([]byte, 0, n)
	for i := first; i <= last; i++ {
		p, err := pf.page(i)
		if err != nil {
			return nil, err
		}
		s, e := int64(0), int64(len(p))
		if i == first {
			s = off - first*pf.psize
		}
		if i == last {
			e = off + int64(n) - last*pf.psize
		}
		out = append(out, p[s:e]...)
	}
	return out, nil
}

// Uint32 returns the big-endian uint32 at off.
func (pf *PagedFile) Uint32(off int64) (uint32, error) {
	b, err := pf.At(off, 4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

var _ io.Closer = (*PagedFile)(nil)

// Close closes the file.
func (pf *PagedFile) Close() error { return pf.f.Close() }
