package patch

import (
	"bytes"
	"context"
)

// binarySniffLen is how much of a blob git looks at to decide that it is
// binary (FIRST_FEW_BYTES in git's xdiff-interface.c).
const binarySniffLen = 8000

// IsBinary reports whether git treats content as binary: it has a NUL byte
// in its first 8000 bytes (git's buffer_is_binary). Attributes that force a
// file to text or binary are the caller's business.
func IsBinary(content []byte) bool {
	if len(content) > binarySniffLen {
		content = content[:binarySniffLen]
	}
	return bytes.IndexByte(content, 0) >= 0
}

// Counts returns the added and deleted line counts between two versions of a
// file exactly as "git diff --numstat" reports them. If either side is binary
// the counts are 0 and binary is true (numstat prints "-\t-").
func Counts(old, new []byte) (additions, deletions int, binary bool) {
	additions, deletions, binary, _ = CountsContext(context.Background(), old, new)
	return additions, deletions, binary
}

// CountsContext is Counts with cancellation for very large inputs.
func CountsContext(ctx context.Context, old, new []byte) (additions, deletions int, binary bool, err error) {
	if IsBinary(old) || IsBinary(new) {
		return 0, 0, true, nil
	}
	if bytes.Equal(old, new) {
		return 0, 0, false, nil
	}
	e, err := runDiff(ctx, func(e *diffEnv) { e.f1.setData(old); e.f2.setData(new) })
	if err != nil {
		return 0, 0, false, err
	}
	defer e.release()
	// Compaction only slides changes, it never changes how many lines are
	// marked, so the counts can be read before it.
	for _, c := range e.f1.chg {
		if c {
			deletions++
		}
	}
	for _, c := range e.f2.chg {
		if c {
			additions++
		}
	}
	return additions, deletions, false, nil
}
