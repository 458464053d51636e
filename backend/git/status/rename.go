package status

import (
	"context"
	"github.com/meith-dev/meith/backend/git/patch"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Rename scores, as in git's diffcore: a score is a fraction of maxScore.
const (
	maxScore         = patch.MaxScore
	minRenameScore   = patch.DefaultRenameScore                     // git's default -M50%
	minBasenameScore = minRenameScore + (maxScore-minRenameScore)/2 // 75% for same-basename pairs
	candidatesPerDst = 4
)

// renamePair says that the added path dst is the deleted path src renamed,
// with score (maxScore for identical content).
type renamePair struct {
	src, dst int // indices into the deleted and added lists
	score    int
}

// renameFile is one side of a rename candidate.
type renameFile struct {
	path string
	hash plumbing.Hash
	mode uint32
	used bool

	loaded bool
	size   int
	counts patch.Fingerprint // diffcore-delta chunk counts
}

// detectRenames pairs deleted and added files the way git status does
// (diffcore-rename with renames only): identical content first, then
// files with the same unique basename at ≥ 75% similarity, then the best
// remaining pairs at ≥ 50%, skipping the inexact steps when there are more
// than limit×limit candidate pairs.
func detectRenames(ctx context.Context, s storer.EncodedObjectStorer, srcs, dsts []*renameFile, limit int) []renamePair {
	var pairs []renamePair
	dstDone := make([]bool, len(dsts))

	// Exact renames: the same blob; the first unused source with the same
	// basename wins, else the first unused one.
	byHash := make(map[plumbing.Hash][]int)
	for i, f := range srcs {
		byHash[f.hash] = append(byHash[f.hash], i)
	}
	for di, dst := range dsts {
		best, bestScore := -1, -1
		for _, si := range byHash[dst.hash] {
			src := srcs[si]
			if src.used {
				continue
			}
			if (src.mode&sIFMT != sIFREG || dst.mode&sIFMT != sIFREG) && src.mode != dst.mode {
				continue
			}
			score := 1
			if basenameSame(src.path, dst.path) {
				score++
			}
			if score > bestScore {
				best, bestScore = si, score
				if score == 2 {
					break
				}
			}
		}
		if best >= 0 {
			srcs[best].used = true
			dstDone[di] = true
			pairs = append(pairs, renamePair{src: best, dst: di, score: maxScore})
		}
	}

	remaining := func() (ss, ds []int) {
		for i, f := range srcs {
			if !f.used {
				ss = append(ss, i)
			}
		}
		for i := range dsts {
			if !dstDone[i] {
				ds = append(ds, i)
			}
		}
		return
	}
	ss, ds := remaining()
	if len(ss) == 0 || len(ds) == 0 {
		return pairs
	}

	// Files whose basename is unique among the remaining sources and
	// destinations are tried together first.
	srcBase := make(map[string]int)
	for _, i := range ss {
		b := basename(srcs[i].path)
		if _, dup := srcBase[b]; dup {
			srcBase[b] = -1
		} else {
			srcBase[b] = i
		}
	}
	dstBase := make(map[string]int)
	for _, i := range ds {
		b := basename(dsts[i].path)
		if _, dup := dstBase[b]; dup {
			dstBase[b] = -1
		} else {
			dstBase[b] = i
		}
	}
	for _, si := range ss {
		b := basename(srcs[si].path)
		di, ok := dstBase[b]
		if !ok || di < 0 || srcBase[b] != si || dstDone[di] {
			continue
		}
		if score := similarity(ctx, s, srcs[si], dsts[di], minBasenameScore); score >= minBasenameScore {
			srcs[si].used = true
			dstDone[di] = true
			pairs = append(pairs, renamePair{src: si, dst: di, score: score})
		}
	}

	ss, ds = remaining()
	if len(ss) == 0 || len(ds) == 0 {
		return pairs
	}
	if limit <= 0 {
		limit = 32767
	}
	if !((len(ds) <= limit || len(ss) <= limit) && uint64(len(ds))*uint64(len(ss)) <= uint64(limit)*uint64(limit)) {
		return pairs
	}

	// The similarity matrix: the best few sources per destination, then
	// greedily the most similar pairs first.
	type cand struct {
		src, dst  int
		score     int
		nameScore int
	}
	better := func(a, b cand) bool { // a sorts before b
		if (a.dst < 0) != (b.dst < 0) {
			return b.dst < 0
		}
		if a.score != b.score {
			return a.score > b.score
		}
		return a.nameScore > b.nameScore
	}
	var mx []cand
	for _, di := range ds {
		if ctx.Err() != nil {
			return pairs
		}
		m := [candidatesPerDst]cand{}
		for k := range m {
			m[k].dst = -1
		}
		for _, si := range ss {
			c := cand{src: si, dst: di, score: similarity(ctx, s, srcs[si], dsts[di], minRenameScore)}
			if basenameSame(srcs[si].path, dsts[di].path) {
				c.nameScore = 1
			}
			worst := 0
			for k := 1; k < candidatesPerDst; k++ {
				if better(m[worst], m[k]) {
					worst = k
				}
			}
			if better(c, m[worst]) {
				m[worst] = c
			}
		}
		mx = append(mx, m[:]...)
	}
	sort.SliceStable(mx, func(i, j int) bool { return better(mx[i], mx[j]) })
	for _, c := range mx {
		if c.dst < 0 || c.score < minRenameScore {
			break
		}
		if dstDone[c.dst] || srcs[c.src].used {
			continue
		}
		srcs[c.src].used = true
		dstDone[c.dst] = true
		pairs = append(pairs, renamePair{src: c.src, dst: c.dst, score: c.score})
	}
	return pairs
}

func basename(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// basenameSame is git's basename_same.
func basenameSame(a, b string) bool { return basename(a) == basename(b) }

// similarity is git's estimate_similarity: the share of the larger file's
// bytes found in chunks common to both, 0 for non-regular files or sizes
// too different to reach minScore.
func similarity(ctx context.Context, s storer.EncodedObjectStorer, src, dst *renameFile, minScore int) int {
	if src.mode&sIFMT != sIFREG || dst.mode&sIFMT != sIFREG {
		return 0
	}
	if !src.loaded {
		src.load(s)
	}
	if !dst.loaded {
		dst.load(s)
	}
	if src.counts == nil || dst.counts == nil {
		return 0
	}
	return patch.Similarity(src.size, dst.size, src.counts, dst.counts, minScore)
}

// maxRenameBlob is the largest blob whose content rename detection
// reads (the size of git's core.bigFileThreshold default). git reads any
// size here; meith does not, so a hostile repository's huge, highly
// compressed blob costs no memory: such a file is paired only when its
// content is identical (the exact-rename pass compares ids).
const maxRenameBlob = 512 << 20

// load reads the blob and computes its diffcore-delta chunk counts:
// chunks end at a newline or after 64 bytes, CR of CRLF is skipped in
// text, and each chunk hash counts its length.
func (f *renameFile) load(s storer.EncodedObjectStorer) {
	f.loaded = true
	obj, err := s.EncodedObject(plumbing.BlobObject, f.hash)
	if err != nil || obj.Size() > maxRenameBlob {
		return
	}
	rd, err := obj.Reader()
	if err != nil {
		return
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return
	}
	f.size = len(b)
	f.counts = patch.NewFingerprint(b)
}

// RenameCandidate is a deleted (source) or added (destination) file for
// [DetectRenames]: its path, blob and git mode.
type RenameCandidate struct {
	Path string
	Hash plumbing.Hash
	Mode uint32
}

// Rename says that destination Dst is source Src renamed; Score is out of
// [patch.MaxScore] (MaxScore: identical content).
type Rename struct {
	Src, Dst, Score int
}

// DetectRenames pairs deleted and added files with git's diffcore-rename
// (renames only, -M50%), as git status and git diff do; limit is
// diff.renameLimit (0: git's own fallback). It is the detection the status
// engine uses, for callers that compare two trees (git_show).
func DetectRenames(ctx context.Context, s storer.EncodedObjectStorer, srcs, dsts []RenameCandidate, limit int) []Rename {
	sf := make([]*renameFile, len(srcs))
	for i, c := range srcs {
		sf[i] = &renameFile{path: c.Path, hash: c.Hash, mode: c.Mode}
	}
	df := make([]*renameFile, len(dsts))
	for i, c := range dsts {
		df[i] = &renameFile{path: c.Path, hash: c.Hash, mode: c.Mode}
	}
	pairs := detectRenames(ctx, s, sf, df, limit)
	out := make([]Rename, len(pairs))
	for i, p := range pairs {
		out[i] = Rename{Src: p.src, Dst: p.dst, Score: p.score}
	}
	return out
}
