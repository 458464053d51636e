package repo

import (
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// A pack and its index, read the way git reads them but without mapping
// them into memory: the index is read one fan-out bucket at a time, on
// first use, into private memory (a file truncated under us then gives a
// short read, never a SIGBUS), and objects are read from the pack with
// pread, so any number of goroutines can read at once. Nothing is parsed
// into maps: an index bucket is binary-searched as it is on disk, and a
// delta's base is found by its offset, with no reverse index.

// ErrCorruptPack says that a pack or its index does not have git's format.
var ErrCorruptPack = errors.New("corrupt pack")

func corrupt(path, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", path, ErrCorruptPack, fmt.Sprintf(format, args...))
}

// packIndex is an opened .idx file (version 1 or 2), read in pages.
type packIndex struct {
	path    string
	pf      *PagedFile
	version int
	n       uint32
	fanout  [256]uint32
	// Where the tables start: names and offsets (version 2), 64-bit
	// offsets; version 1 has records of offset and name.
	namesAt, offsAt, offs64At int64
	n64                       int64 // entries of the 64-bit offset table
}

const (
	idxV2Magic   = "\xfftOc"
	idxHeaderLen = 8
	fanoutLen    = 256 * 4
	hashLen      = 20
	idxPage      = 4 << 10
)

// openPackIndex opens an index file and checks its layout.
func openPackIndex(path string) (*packIndex, error) {
	f, err := OpenRegular(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	ix := &packIndex{path: path, pf: NewPagedFile(f, idxPage)}
	if err := ix.readHeader(); err != nil {
		return nil, err // the file is closed with its PagedFile
	}
	return ix, nil
}

func (ix *packIndex) readHeader() error {
	size := ix.pf.Size()
	if size < fanoutLen+2*hashLen {
		return corrupt(ix.path, "index too small")
	}
	head, err := ix.pf.At(0, idxHeaderLen)
	if err != nil {
		return err
	}
	fanAt := int64(0)
	if string(head[:4]) == idxV2Magic {
		if v := binary.BigEndian.Uint32(head[4:8]); v != 2 {
			return corrupt(ix.path, "index version %d", v)
		}
		ix.version, fanAt = 2, idxHeaderLen
	} else {
		ix.version = 1
	}
	fan, err := ix.pf.At(fanAt, fanoutLen)
	if err != nil {
		return corrupt(ix.path, "index too small")
	}
	var prev uint32
	for i := range 256 {
		v := binary.BigEndian.Uint32(fan[i*4:])
		if v < prev {
			return corrupt(ix.path, "fan-out table not sorted")
		}
		ix.fanout[i], prev = v, v
	}
	ix.n = prev
	n64 := int64(ix.n)
	switch ix.version {
	case 2:
		ix.namesAt = idxHeaderLen + fanoutLen
		ix.offsAt = ix.namesAt + n64*(hashLen+4) // names, then CRCs
		ix.offs64At = ix.offsAt + n64*4
		rest := size - ix.offs64At - 2*hashLen
		if rest < 0 || rest%8 != 0 {
			return corrupt(ix.path, "index size %d does not fit %d objects", size, ix.n)
		}
		ix.n64 = rest / 8
	case 1:
		if size != fanoutLen+n64*(4+hashLen)+2*hashLen {
			return corrupt(ix.path, "index size %d does not fit %d objects", size, ix.n)
		}
		ix.namesAt = fanoutLen + 4
	}
	return nil
}

// cmpName compares the i-th object name with h.
func (ix *packIndex) cmpName(i uint32, h plumbing.Hash) (int, error) {
	if ix.version == 1 {
		return ix.pf.Compare(ix.namesAt+int64(i)*(4+hashLen), h[:])
	}
	return ix.pf.Compare(ix.namesAt+int64(i)*hashLen, h[:])
}

// find returns the pack offset of object h. Names are uniformly
// distributed, so the search starts where h should be and reads one or
// two pages of names, not the whole fan-out bucket.
func (ix *packIndex) find(h plumbing.Hash) (int64, bool, error) {
	var lo uint32
	if h[0] > 0 {
		lo = ix.fanout[h[0]-1]
	}
	hi := ix.fanout[h[0]]
	if lo >= hi {
		return 0, false, nil
	}
	if n := hi - lo; n > 64 {
		guess := lo + uint32(uint64(n)*uint64(binary.BigEndian.Uint16(h[1:3]))>>16)
		slack := uint32(3*math.Sqrt(float64(n))) + 8
		a, b := max(lo, guess-min(guess, slack)), min(hi-1, guess+slack)
		ca, err := ix.cmpName(a, h)
		if err != nil {
			return 0, false, err
		}
		cb, err := ix.cmpName(b, h)
		if err != nil {
			return 0, false, err
		}
		if ca <= 0 && cb >= 0 {
			lo, hi = a, b+1
		}
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		c, err := ix.cmpName(mid, h)
		if err != nil {
			return 0, false, err
		}
		switch {
		case c == 0:
			return ix.offset(mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

func (ix *packIndex) offset(i uint32) (int64, bool, error) {
	if ix.version == 1 {
		o, err := ix.pf.Uint32(ix.namesAt - 4 + int64(i)*(4+hashLen))
		return int64(o), err == nil, err
	}
	o, err := ix.pf.Uint32(ix.offsAt + int64(i)*4)
	if err != nil {
		return 0, false, err
	}
	if o&0x80000000 == 0 {
		return int64(o), true, nil
	}
	k := int64(o & 0x7fffffff)
	if k >= ix.n64 {
		return 0, false, corrupt(ix.path, "64-bit offset %d out of range", k)
	}
	b, err := ix.pf.At(ix.offs64At+8*k, 8)
	if err != nil {
		return 0, false, err
	}
	off := binary.BigEndian.Uint64(b)
	if off > math.MaxInt64 {
		return 0, false, corrupt(ix.path, "offset out of range")
	}
	return int64(off), true, nil
}

func readFullAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// packFile is one pack of an object store: its index and its data,
// opened on first use and kept open.
type packFile struct {
	db   *objectDB
	base string // full path without ".idx"/".pack"

	once   sync.Once
	err    error
	failed atomic.Bool // open failed (a rescan tries a new packFile)
	idx    *packIndex
	data   io.ReaderAt // the mapped pack (see PagedFile), else the file
	end    int64       // where object data ends (the trailing checksum starts)
}

func (p *packFile) open() error {
	p.once.Do(func() {
		defer func() { p.failed.Store(p.err != nil) }()
		ix, err := openPackIndex(p.base + ".idx")
		if err != nil {
			p.err = err
			return
		}
		f, err := OpenRegular(p.base+".pack", math.MaxInt64)
		if err != nil {
			p.err = err
			return
		}
		var head [12]byte
		if err := readFullAt(f, head[:], 0); err != nil || string(head[:4]) != "PACK" {
			f.Close()
			p.err = corrupt(p.base+".pack", "no pack header")
			return
		}
		if v := binary.BigEndian.Uint32(head[4:8]); v != 2 && v != 3 {
			f.Close()
			p.err = corrupt(p.base+".pack", "pack version %d", v)
			return
		}
		if n := binary.BigEndian.Uint32(head[8:12]); n != ix.n {
			f.Close()
			p.err = corrupt(p.base+".pack", "%d objects, its index has %d", n, ix.n)
			return
		}
		p.idx, p.end = ix, f.Stat().Size()-hashLen
		if pf := mapPagedFile(f); pf != nil {
			p.data = readerAt{pf} // no system call per object, as git maps packs
		} else {
			p.data = f
		}
	})
	return p.err
}

// Pack object types.
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaChain bounds delta chains (git's default depth is 50; a longer
// chain, or a cycle of REF deltas, is a corrupt pack).
const maxDeltaChain = 10000

// objHeader is the header of an object in a pack.
type objHeader struct {
	typ     int
	size    int64
	dataAt  int64 // where its zlib stream starts
	baseOff int64 // OFS_DELTA: the base's offset
	baseRef plumbing.Hash
}

func (p *packFile) header(off int64) (objHeader, error) {
	var buf [32]byte
	if off < 12 || off >= p.end {
		return objHeader{}, corrupt(p.base+".pack", "offset %d out of range", off)
	}
	n, err := p.data.ReadAt(buf[:min(int64(len(buf)), p.end-off)], off)
	if n == 0 && err != nil {
		return objHeader{}, err
	}
	b := buf[:n]
	h := objHeader{typ: int(b[0]>>4) & 7, size: int64(b[0] & 15)}
	i, shift := 1, uint(4)
	for c := b[0]; c&0x80 != 0; {
		if i >= len(b) || shift > 56 {
			return objHeader{}, corrupt(p.base+".pack", "bad object header at %d", off)
		}
		c = b[i]
		i++
		h.size |= int64(c&0x7f) << shift
		shift += 7
	}
	switch h.typ {
	case packCommit, packTree, packBlob, packTag:
	case packOfsDelta:
		if i >= len(b) {
			return objHeader{}, corrupt(p.base+".pack", "bad delta header at %d", off)
		}
		c := b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) || rel > math.MaxInt64>>8 {
				return objHeader{}, corrupt(p.base+".pack", "bad delta offset at %d", off)
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel >= off {
			return objHeader{}, corrupt(p.base+".pack", "delta base out of range at %d", off)
		}
		h.baseOff = off - rel
	case packRefDelta:
		if i+hashLen > len(b) {
			return objHeader{}, corrupt(p.base+".pack", "bad delta header at %d", off)
		}
		copy(h.baseRef[:], b[i:i+hashLen])
		i += hashLen
	default:
		return objHeader{}, corrupt(p.base+".pack", "object type %d at %d", h.typ, off)
	}
	h.dataAt = off + int64(i)
	return h, nil
}

// inflate reads the zlib stream of an object, which inflates to size
// bytes.
func (p *packFile) inflate(h objHeader) ([]byte, error) {
	z := getInflater(p.data, h.dataAt, p.end, h.size)
	defer putInflater(z)
	out, err := z.readSize(h.size)
	if err != nil {
		return nil, fmt.Errorf("%s: object at %d: %w", p.base+".pack", h.dataAt, err)
	}
	return out, nil
}

// object returns the type and content of the object at off, resolving
// deltas. The content is shared (cached): callers must not modify it.
func (p *packFile) object(off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if t, data, ok := objCache.get(p, off); ok {
		return t, data, nil
	}
	// Walk down the chain of deltas to a cached or whole object.
	var chain []objHeader
	var chainOff []int64
	var typ plumbing.ObjectType
	var data []byte
	cur := off
	for {
		if depth+len(chain) > maxDeltaChain {
			return 0, nil, corrupt(p.base+".pack", "delta chain too long at %d", off)
		}
		if len(chain) > 0 {
			if t, d, ok := objCache.get(p, cur); ok {
				typ, data = t, d
				break
			}
		}
		h, err := p.header(cur)
		if err != nil {
			return 0, nil, err
		}
		if h.typ == packOfsDelta {
			chain, chainOff = append(chain, h), append(chainOff, cur)
			cur = h.baseOff
			continue
		}
		if h.typ == packRefDelta {
			chain, chainOff = append(chain, h), append(chainOff, cur)
			t, d, err := p.db.read(h.baseRef, depth+len(chain))
			if err != nil {
				return 0, nil, fmt.Errorf("%s: delta base %s: %w", p.base+".pack", h.baseRef, err)
			}
			typ, data = t, d
			break
		}
		d, err := p.inflate(h)
		if err != nil {
			return 0, nil, err
		}
		typ, data = plumbing.ObjectType(h.typ), d
		if len(chain) > 0 {
			objCache.put(p, cur, typ, data)
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		delta, err := p.inflate(chain[i])
		if err != nil {
			return 0, nil, err
		}
		data, err = applyDelta(data, delta)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: object at %d: %w", p.base+".pack", chainOff[i], err)
		}
		objCache.put(p, chainOff[i], typ, data)
	}
	if len(chain) == 0 {
		objCache.put(p, off, typ, data)
	}
	return typ, data, nil
}

// errBadDelta says that a delta does not apply to its base.
var errBadDelta = errors.New("bad delta")

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaVarint(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errBadDelta
	}
	dstSize, delta, ok := deltaVarint(delta)
	if !ok {
		return nil, errBadDelta
	}
	// Preallocate what the delta says, within reason (a delta cannot
	// produce more than 16 MiB per command byte, so a lying header only
	// grows the slice as the data comes).
	out := make([]byte, 0, min(dstSize, 64<<20))
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for i := range 4 {
				if cmd&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if cmd&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					size |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, errBadDelta
			}
			out = append(out, base[off:off+size]...)
		case cmd != 0:
			n := int(cmd)
			if n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, errBadDelta
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, errBadDelta // reserved
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errBadDelta
	}
	return out, nil
}

func deltaVarint(b []byte) (uint64, []byte, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, b[i+1:], true
		}
	}
	return 0, nil, false
}

// inflater reads one zlib stream from a file at an offset, in chunks
// sized for the object (a small tree or commit costs one small pread).
type inflater struct {
	r        io.ReaderAt
	pos, end int64
	buf      []byte
	i, n     int
	want     int64
	zr       io.ReadCloser
	err      error
}

var inflaters = sync.Pool{New: func() any { return &inflater{buf: make([]byte, 64<<10)} }}

func getInflater(r io.ReaderAt, at, end, size int64) *inflater {
	z := inflaters.Get().(*inflater)
	z.r, z.pos, z.end, z.i, z.n, z.err = r, at, end, 0, 0, nil
	// A zlib stream is at most a little larger than its data.
	z.want = size + size/64 + 64
	return z
}

func putInflater(z *inflater) {
	z.r = nil
	inflaters.Put(z)
}

// ReadByte and Read make the inflater a flate.Reader, so that flate reads
// no further than the stream.
func (z *inflater) ReadByte() (byte, error) {
	if z.i == z.n {
		if err := z.fill(); err != nil {
			return 0, err
		}
	}
	c := z.buf[z.i]
	z.i++
	return c, nil
}

func (z *inflater) Read(p []byte) (int, error) {
	if z.i == z.n {
		if err := z.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, z.buf[z.i:z.n])
	z.i += n
	return n, nil
}

func (z *inflater) fill() error {
	if z.err != nil {
		return z.err
	}
	chunk := int64(len(z.buf))
	if z.want > 0 && z.want < chunk {
		chunk = max(z.want, 512)
	}
	z.want = 0 // later chunks are whole buffers
	chunk = min(chunk, z.end-z.pos)
	if chunk <= 0 {
		z.err = io.ErrUnexpectedEOF
		return z.err
	}
	n, err := z.r.ReadAt(z.buf[:chunk], z.pos)
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		z.err = err
		return err
	}
	z.pos += int64(n)
	z.i, z.n = 0, n
	return nil
}

// readSize inflates the stream, which must give size bytes.
func (z *inflater) readSize(size int64) ([]byte, error) {
	var err error
	if z.zr == nil {
		z.zr, err = zlib.NewReader(z)
	} else {
		err = z.zr.(zlib.Resetter).Reset(z, nil)
	}
	if err != nil {
		return nil, err
	}
	if size <= 64<<20 {
		out := make([]byte, size)
		if _, err := io.ReadFull(z.zr, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	// A large declared size is believed only as the data comes.
	out, err := io.ReadAll(io.LimitReader(z.zr, size))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != size {
		return nil, io.ErrUnexpectedEOF
	}
	return out, nil
}
