package patch

import "bytes"

// Rename similarity after git's diffcore-delta.c: both files are cut into
// chunks ending at a newline or after 64 bytes (the CR of a CRLF is skipped
// in text), each chunk is hashed, and a similarity score is the number of
// bytes of common chunks over the larger file's size, on git's 0..MaxScore
// scale.
const (
	// MaxScore is git's MAX_SCORE: 100 %.
	MaxScore = 60000
	// DefaultRenameScore is git's default rename threshold (-M50%).
	DefaultRenameScore = MaxScore / 2
	fingerprintBase    = 107927
)

// Fingerprint is the chunk-hash histogram of a file: bytes per chunk hash.
type Fingerprint map[uint32]int

// NewFingerprint computes b's fingerprint. A trailing fragment without a
// newline is not counted, as in git.
func NewFingerprint(b []byte) Fingerprint {
	isText := !bytes.Contains(b[:min(len(b), 8000)], []byte{0})
	counts := make(Fingerprint)
	var accum1, accum2 uint32
	n := 0
	for i := 0; i < len(b); i++ {
		c := uint32(b[i])
		if isText && c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			continue
		}
		old1 := accum1
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		counts[(accum1+accum2*0x61)%fingerprintBase] += n
		n = 0
		accum1, accum2 = 0, 0
	}
	return counts
}

// Similarity is git's estimate_similarity for two regular files of the
// given sizes and fingerprints: 0 when the sizes are too different to
// reach minScore or dst is empty, else the common bytes over the larger
// size on the 0..MaxScore scale.
func Similarity(srcSize, dstSize int, src, dst Fingerprint, minScore int) int {
	maxSize, baseSize := max(srcSize, dstSize), min(srcSize, dstSize)
	if uint64(maxSize)*uint64(MaxScore-minScore) < uint64(maxSize-baseSize)*MaxScore || dstSize == 0 {
		return 0
	}
	copied := 0
	for h, sc := range src {
		if dc, ok := dst[h]; ok {
			copied += min(sc, dc)
		}
	}
	return int(uint64(copied) * MaxScore / uint64(maxSize))
}
