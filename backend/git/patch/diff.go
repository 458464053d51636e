package patch

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
)

// Change is one group of changed lines: OldLines lines of the old side
// starting at line index OldStart (0-based) were replaced by NewLines lines of
// the new side starting at NewStart. A pure insertion has OldLines 0 and
// OldStart at the old line it is inserted before; a pure deletion has
// NewLines 0 likewise.
type Change struct {
	OldStart, OldLines int
	NewStart, NewLines int
}

// DiffOptions tunes the line diff. The zero value is git's default.
type DiffOptions struct {
	// NoIndentHeuristic turns off the indent heuristic, like
	// "git diff --no-indent-heuristic". It only moves ambiguous groups of
	// changes; the counts never change.
	NoIndentHeuristic bool
}

// SplitLines splits b into lines that keep their "\n" terminator (a "\r"
// before it stays part of the line). The last line has no terminator when b
// does not end in "\n". The lines share b's memory.
func SplitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	lines := make([][]byte, 0, bytes.Count(b, []byte{'\n'})+1)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, b[:len(b):len(b)])
			break
		}
		lines = append(lines, b[:i+1:i+1])
		b = b[i+1:]
	}
	return lines
}

// Diff compares two sequences of lines the way git's default diff algorithm
// (xdiff's Myers with its heuristics and the indent heuristic) does and
// returns the changed groups in order. Lines are compared byte for byte.
func Diff(old, new [][]byte) []Change {
	changes, _ := DiffContext(context.Background(), old, new, DiffOptions{})
	return changes
}

// DiffContext is Diff with options and cancellation: for very large inputs it
// stops and returns ctx's error once ctx is done.
func DiffContext(ctx context.Context, old, new [][]byte, opts DiffOptions) ([]Change, error) {
	e, err := runDiff(ctx, func(e *diffEnv) { e.f1.setRecs(old); e.f2.setRecs(new) })
	if err != nil {
		return nil, err
	}
	defer e.release()
	e.f1.compact(&e.f2, !opts.NoIndentHeuristic)
	e.f2.compact(&e.f1, !opts.NoIndentHeuristic)
	return e.script(), nil
}

// DiffBytes is Diff of two texts cut into lines as SplitLines cuts them,
// without building the line slices (blame diffs thousands of versions of
// a file).
func DiffBytes(old, new []byte) []Change {
	e, err := runDiff(context.Background(), func(e *diffEnv) { e.f1.setData(old); e.f2.setData(new) })
	if err != nil {
		return nil // only a cancelled context fails
	}
	defer e.release()
	e.f1.compact(&e.f2, true)
	e.f2.compact(&e.f1, true)
	return e.script()
}

// xfile is one side of a comparison, following xdiff's xdfile_t.
type xfile struct {
	// The lines are either recs, or data cut at the offsets off (line i is
	// data[off[i]:off[i+1]]), which keeps the hot path free of pointers.
	recs  [][]byte
	data  []byte
	off   []int
	n     int
	class []int32 // equivalence class of each line (equal bytes, equal class)
	// chg marks changed lines; chg[i+1] is line i, and chg[0] and chg[n+1]
	// are always false sentinels.
	chg []bool
	// rindex and rclass list the lines that take part in the Myers
	// comparison (the others were trimmed as common or discarded as
	// certainly changed).
	rindex       []int32
	rclass       []int32
	dstart, dend int
}

func (f *xfile) rec(i int) []byte {
	if f.recs != nil {
		return f.recs[i]
	}
	return f.data[f.off[i]:f.off[i+1]]
}

func (f *xfile) changed(i int) bool { return f.chg[i+1] }

// diffEnv holds one comparison's state; its buffers are pooled.
type diffEnv struct {
	f1, f2 xfile
	// kvdf and kvdb are the forward and backward furthest-reaching vectors,
	// indexed by diagonal + kbase.
	kvdf, kvdb []int
	kbase      int
	mxcost     int
	done       <-chan struct{}
	ctx        context.Context
	steps      int
	// classifier state
	slots      []int32 // class+1 per hash slot; 0 is empty
	hashes     []uint64
	reps       []int32 // a line of each class: i on side 1, -(i+1) on side 2
	cnt1, cnt2 []int32
	dis        []byte
}

const (
	xdlMaxCostMin  = 256
	xdlHeurMinCost = 256
	xdlSnakeCnt    = 20
	xdlKHeur       = 4
	xdlMaxEqLimit  = 1024
	xdlSimscanWin  = 100
	xdlKpdisRun    = 4
	lineMax        = math.MaxInt
	// Environments for more lines than this are not kept for reuse.
	poolMaxLines = 1 << 20
)

var (
	envPool  = sync.Pool{New: func() any { return new(diffEnv) }}
	hashSeed = maphash.MakeSeed()
)

// resize returns s with length n and zeroed contents, reusing its memory
// when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// release returns e to the pool, dropping every reference to caller data.
func (e *diffEnv) release() {
	if e.f1.n+e.f2.n > poolMaxLines {
		return
	}
	for _, f := range []*xfile{&e.f1, &e.f2} {
		f.recs, f.data = nil, nil
	}
	e.ctx, e.done = nil, nil
	envPool.Put(e)
}

// runDiff prepares both sides and marks the changed lines (before
// compaction). Set the sides' lines with setRecs or setData first via the
// callback; the caller must release the returned env.
func runDiff(ctx context.Context, set func(e *diffEnv)) (*diffEnv, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	e := envPool.Get().(*diffEnv)
	e.ctx, e.done, e.steps = ctx, ctx.Done(), 0
	set(e)
	nclass := e.classify()
	e.trimEnds()
	e.cleanupRecords(nclass)

	n1, n2 := len(e.f1.rindex), len(e.f2.rindex)
	ndiags := n1 + n2 + 3
	e.kvdf = resize(e.kvdf, ndiags)
	e.kvdb = resize(e.kvdb, ndiags)
	e.kbase = n2 + 1
	e.mxcost = bogosqrt(ndiags)
	if e.mxcost < xdlMaxCostMin {
		e.mxcost = xdlMaxCostMin
	}
	if err := e.recsCmp(0, n1, 0, n2, false); err != nil {
		e.release()
		return nil, fmt.Errorf("diff: %w", err)
	}
	return e, nil
}

func (f *xfile) setRecs(recs [][]byte) {
	f.recs, f.data, f.n = recs, nil, len(recs)
	if recs == nil {
		f.recs = [][]byte{}
	}
}

// setData splits data into lines by offsets.
func (f *xfile) setData(data []byte) {
	f.recs, f.data = nil, data
	f.off = append(f.off[:0], 0)
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			i = len(data)
		} else {
			i += j + 1
		}
		f.off = append(f.off, i)
	}
	f.n = len(f.off) - 1
}

// classify gives equal lines of both sides equal small integers.
func (e *diffEnv) classify() int {
	size := 16
	for size < 2*(e.f1.n+e.f2.n)+2 {
		size <<= 1
	}
	e.slots = resize(e.slots, size)
	e.hashes, e.reps = e.hashes[:0], e.reps[:0]
	mask := uint64(size - 1)
	for side, f := range [2]*xfile{&e.f1, &e.f2} {
		f.class = resize(f.class, f.n)
		f.chg = resize(f.chg, f.n+2)
		for i := 0; i < f.n; i++ {
			line := f.rec(i)
			h := maphash.Bytes(hashSeed, line)
			for s := h & mask; ; s = (s + 1) & mask {
				c := e.slots[s]
				if c == 0 {
					id := int32(len(e.hashes))
					e.hashes = append(e.hashes, h)
					rep := int32(i)
					if side == 1 {
						rep = -int32(i) - 1
					}
					e.reps = append(e.reps, rep)
					e.slots[s] = id + 1
					f.class[i] = id
					break
				}
				if id := c - 1; e.hashes[id] == h && bytes.Equal(e.repLine(id), line) {
					f.class[i] = id
					break
				}
			}
		}
	}
	return len(e.hashes)
}

func (e *diffEnv) repLine(class int32) []byte {
	if r := e.reps[class]; r < 0 {
		return e.f2.rec(int(-r - 1))
	}
	return e.f1.rec(int(e.reps[class]))
}

func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// trimEnds skips the common head and tail (xdl_trim_ends).
func (e *diffEnv) trimEnds() {
	c1, c2 := e.f1.class, e.f2.class
	n1, n2 := len(c1), len(c2)
	lim := min(n1, n2)
	i := 0
	for i < lim && c1[i] == c2[i] {
		i++
	}
	e.f1.dstart, e.f2.dstart = i, i
	lim -= i
	j := 0
	for j < lim && c1[n1-1-j] == c2[n2-1-j] {
		j++
	}
	e.f1.dend = n1 - j - 1
	e.f2.dend = n2 - j - 1
}

// cleanupRecords discards lines that have no match on the other side, and
// lines with very many matches that sit in runs of discarded lines, marking
// them changed right away (xdl_cleanup_records).
func (e *diffEnv) cleanupRecords(nclass int) {
	e.cnt1 = resize(e.cnt1, nclass)
	e.cnt2 = resize(e.cnt2, nclass)
	for _, c := range e.f1.class {
		e.cnt1[c]++
	}
	for _, c := range e.f2.class {
		e.cnt2[c]++
	}
	e.dis = resize(e.dis, e.f1.n+e.f2.n+2)
	dis1, dis2 := e.dis[:e.f1.n+1], e.dis[e.f1.n+1:]
	discardable(&e.f1, e.cnt2, dis1)
	discardable(&e.f2, e.cnt1, dis2)
	e.f1.reduce(dis1)
	e.f2.reduce(dis2)
}

func discardable(f *xfile, other []int32, dis []byte) {
	mlim := bogosqrt(f.n)
	if mlim > xdlMaxEqLimit {
		mlim = xdlMaxEqLimit
	}
	for i := f.dstart; i <= f.dend; i++ {
		nm := int(other[f.class[i]])
		switch {
		case nm == 0:
			dis[i] = 0
		case nm >= mlim:
			dis[i] = 2
		default:
			dis[i] = 1
		}
	}
}

func (f *xfile) reduce(dis []byte) {
	f.rindex, f.rclass = f.rindex[:0], f.rclass[:0]
	for i := f.dstart; i <= f.dend; i++ {
		if dis[i] == 1 || (dis[i] == 2 && !cleanMmatch(dis, i, f.dstart, f.dend)) {
			f.rindex = append(f.rindex, int32(i))
			f.rclass = append(f.rclass, f.class[i])
		} else {
			f.chg[i+1] = true
		}
	}
}

// cleanMmatch reports whether the multi-match line i sits inside a run of
// lines that have no match, so that it can be discarded too
// (xdl_clean_mmatch).
func cleanMmatch(dis []byte, i, s, e int) bool {
	if i-s > xdlSimscanWin {
		s = i - xdlSimscanWin
	}
	if e-i > xdlSimscanWin {
		e = i + xdlSimscanWin
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*xdlKpdisRun < rpdis1+rdis1
}

func (e *diffEnv) cancelled() error {
	select {
	case <-e.done:
		return e.ctx.Err()
	default:
		return nil
	}
}

// recsCmp is xdl_recs_cmp: divide and conquer over the reduced records.
func (e *diffEnv) recsCmp(off1, lim1, off2, lim2 int, needMin bool) error {
	h1, h2 := e.f1.rclass, e.f2.rclass
	for off1 < lim1 && off2 < lim2 && h1[off1] == h2[off2] {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && h1[lim1-1] == h2[lim2-1] {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			e.f2.chg[e.f2.rindex[off2]+1] = true
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			e.f1.chg[e.f1.rindex[off1]+1] = true
		}
	default:
		e.steps++
		if e.steps&1023 == 0 {
			if err := e.cancelled(); err != nil {
				return err
			}
		}
		i1, i2, minLo, minHi, err := e.split(off1, lim1, off2, lim2, needMin)
		if err != nil {
			return err
		}
		if err := e.recsCmp(off1, i1, off2, i2, minLo); err != nil {
			return err
		}
		return e.recsCmp(i1, lim1, i2, lim2, minHi)
	}
	return nil
}

// split is xdl_split: it runs the forward and backward Myers searches from
// both corners of the box until they meet (the middle snake), or until
// xdiff's heuristics decide that a good-enough split point was found.
func (e *diffEnv) split(off1, lim1, off2, lim2 int, needMin bool) (s1, s2 int, minLo, minHi bool, err error) {
	h1, h2 := e.f1.rclass, e.f2.rclass
	kb := e.kbase
	kvdf, kvdb := e.kvdf, e.kvdb
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid

	kvdf[kb+fmid] = off1
	kvdb[kb+bmid] = lim1

	for ec := 1; ; ec++ {
		if ec&63 == 0 {
			if err := e.cancelled(); err != nil {
				return 0, 0, false, false, err
			}
		}
		gotSnake := false

		if fmin > dmin {
			fmin--
			kvdf[kb+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			kvdf[kb+fmax+1] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if kvdf[kb+d-1] >= kvdf[kb+d+1] {
				i1 = kvdf[kb+d-1] + 1
			} else {
				i1 = kvdf[kb+d+1]
			}
			prev1 := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && h1[i1] == h2[i2] {
				i1++
				i2++
			}
			if i1-prev1 > xdlSnakeCnt {
				gotSnake = true
			}
			kvdf[kb+d] = i1
			if odd && bmin <= d && d <= bmax && kvdb[kb+d] <= i1 {
				return i1, i2, true, true, nil
			}
		}

		if bmin > dmin {
			bmin--
			kvdb[kb+bmin-1] = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			kvdb[kb+bmax+1] = lineMax
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if kvdb[kb+d-1] < kvdb[kb+d+1] {
				i1 = kvdb[kb+d-1]
			} else {
				i1 = kvdb[kb+d+1] - 1
			}
			prev1 := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && h1[i1-1] == h2[i2-1] {
				i1--
				i2--
			}
			if prev1-i1 > xdlSnakeCnt {
				gotSnake = true
			}
			kvdb[kb+d] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= kvdf[kb+d] {
				return i1, i2, true, true, nil
			}
		}

		if needMin {
			continue
		}

		// Heuristic: once the cost is high and a long snake was seen, take
		// an "interesting" diagonal that ends in a snake of xdlSnakeCnt.
		if gotSnake && ec > xdlHeurMinCost {
			best := 0
			for d := fmax; d >= fmin; d -= 2 {
				dd := d - fmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kvdf[kb+d]
				i2 := i1 - d
				v := (i1 - off1) + (i2 - off2) - dd
				if v > xdlKHeur*ec && v > best &&
					off1+xdlSnakeCnt <= i1 && i1 < lim1 &&
					off2+xdlSnakeCnt <= i2 && i2 < lim2 {
					for k := 1; h1[i1-k] == h2[i2-k]; k++ {
						if k == xdlSnakeCnt {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, true, false, nil
			}
			best = 0
			for d := bmax; d >= bmin; d -= 2 {
				dd := d - bmid
				if dd < 0 {
					dd = -dd
				}
				i1 := kvdb[kb+d]
				i2 := i1 - d
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > xdlKHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-xdlSnakeCnt &&
					off2 < i2 && i2 <= lim2-xdlSnakeCnt {
					for k := 0; h1[i1+k] == h2[i2+k]; k++ {
						if k == xdlSnakeCnt-1 {
							best = v
							s1, s2 = i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, false, true, nil
			}
		}

		// Enough is enough: take the furthest-reaching path found so far.
		if ec >= e.mxcost {
			fbest, fbest1 := -1, -1
			for d := fmax; d >= fmin; d -= 2 {
				i1 := min(kvdf[kb+d], lim1)
				i2 := i1 - d
				if lim2 < i2 {
					i1 = lim2 + d
					i2 = lim2
				}
				if fbest < i1+i2 {
					fbest = i1 + i2
					fbest1 = i1
				}
			}
			bbest, bbest1 := lineMax, lineMax
			for d := bmax; d >= bmin; d -= 2 {
				i1 := max(off1, kvdb[kb+d])
				i2 := i1 - d
				if i2 < off2 {
					i1 = off2 + d
					i2 = off2
				}
				if i1+i2 < bbest {
					bbest = i1 + i2
					bbest1 = i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return fbest1, fbest - fbest1, true, false, nil
			}
			return bbest1, bbest - bbest1, false, true, nil
		}
	}
}

// script turns the changed marks into the list of change groups.
func (e *diffEnv) script() []Change {
	var out []Change
	n1, n2 := e.f1.n, e.f2.n
	i1, i2 := 0, 0
	for i1 < n1 || i2 < n2 {
		if e.f1.changed(i1) || e.f2.changed(i2) {
			s1, s2 := i1, i2
			for e.f1.changed(i1) {
				i1++
			}
			for e.f2.changed(i2) {
				i2++
			}
			out = append(out, Change{OldStart: s1, OldLines: i1 - s1, NewStart: s2, NewLines: i2 - s2})
			continue
		}
		i1++
		i2++
	}
	return out
}
