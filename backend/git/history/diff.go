package history

// diff.go gives blame the line diff git's blame uses: the common tail is
// trimmed the way xdiff-interface.c does, then backend/git/patch (a port of
// git's xdiff, with the indent heuristic git passes to blame) finds the
// changed regions.

import (
	"bytes"

	"github.com/meith-dev/meith/backend/git/patch"
)

// hunk is one changed region between file a (the old side) and file b: lines
// [startA, startA+countA) of a were replaced by [startB, startB+countB) of b.
// Line numbers are 0-based.
type hunk struct {
	startA, countA, startB, countB int
}

// trimBlock is the block size of the common-tail trim.
const trimBlock = 1024

// diffHunks returns the hunks of a diff from a to b with no context lines,
// the way `git blame` (and `git diff -U0`) computes them.
func diffHunks(a, b []byte) []hunk {
	a, b = trimCommonTail(a, b)
	changes := patch.DiffBytes(a, b)
	out := make([]hunk, len(changes))
	for i, c := range changes {
		out[i] = hunk{startA: c.OldStart, countA: c.OldLines, startB: c.NewStart, countB: c.NewLines}
	}
	return out
}

// trimCommonTail drops identical 1 KiB blocks from the ends of a and b and
// then gives back the part of the last dropped block up to the first line
// end, exactly as xdiff-interface.c does for diffs without context.
func trimCommonTail(a, b []byte) ([]byte, []byte) {
	smaller := min(len(a), len(b))
	trimmed := 0
	for trimBlock+trimmed <= smaller &&
		bytes.Equal(a[len(a)-trimmed-trimBlock:len(a)-trimmed], b[len(b)-trimmed-trimBlock:len(b)-trimmed]) {
		trimmed += trimBlock
	}
	recovered := 0
	ap := len(a) - trimmed
	for recovered < trimmed {
		c := a[ap+recovered]
		recovered++
		if c == '\n' {
			break
		}
	}
	cut := trimmed - recovered
	return a[:len(a)-cut], b[:len(b)-cut]
}
