package patch

import (
	"bytes"
	"errors"
	"fmt"
)

// ApplyError says that a file patch does not apply to the given content.
// Hunk is the 1-based number of the hunk that failed and Header its
// "@@ … @@" header; both are zero values when the file as a whole is the
// problem (a new file that exists, a deletion that leaves content, a binary
// patch).
type ApplyError struct {
	Path   string
	Hunk   int
	Header string
	Reason string
}

// Error implements error.
func (e *ApplyError) Error() string {
	if e.Hunk > 0 {
		return fmt.Sprintf("patch does not apply to %s: hunk #%d (%s) %s", e.Path, e.Hunk, e.Header, e.Reason)
	}
	return fmt.Sprintf("patch does not apply to %s: %s", e.Path, e.Reason)
}

// IsApplyError reports whether err is an *ApplyError.
func IsApplyError(err error) bool {
	var ae *ApplyError
	return errors.As(err, &ae)
}

// Apply applies one file's hunks to old and returns the new content, the way
// "git apply --cached" does without options: reverse swaps the patch's sides
// (unstage, discard). The hunks are applied in order; each must match its
// context and removed lines exactly, first at the position its header states
// (shifted by what the earlier hunks added or removed), then at the nearest
// offset, trying one line later before one line earlier at each distance. A
// hunk that starts at line 1 (or 0) must match at the start of the file, one
// without trailing context at its end; lines written by an earlier hunk
// cannot be matched again. A new file requires empty old content and a
// deletion must leave nothing. On any failure Apply returns an *ApplyError
// and no content. A patch without hunks (mode change, pure rename) returns a
// copy of old.
//
// Apply is stricter than git in one corner: git lets a hunk's last line that
// has no newline match a file line that has one when the hunk has trailing
// context, and then drops that newline; Apply refuses the hunk.
func Apply(old []byte, fp FilePatch, reverse bool) ([]byte, error) {
	path := fp.OldPath
	isNew, isDelete := fp.IsNew, fp.IsDelete
	if reverse {
		path = fp.NewPath
		isNew, isDelete = isDelete, isNew
	}
	if path == "" {
		path = fp.Path()
	}
	if fp.IsBinary {
		return nil, &ApplyError{Path: path, Reason: "binary patches cannot be applied"}
	}
	if isNew && len(old) > 0 {
		return nil, &ApplyError{Path: path, Reason: "the file already exists"}
	}
	img := newImage(old)
	for k, h := range fp.Hunks {
		pre, post, trailing := h.images(reverse)
		oldStart, newStart := h.OldStart, h.NewStart
		if reverse {
			oldStart, newStart = newStart, oldStart
		}
		matchBeginning := oldStart <= 1
		matchEnd := trailing == 0
		pos := 0
		if newStart > 0 {
			pos = newStart - 1
		}
		at := img.find(pre, pos, matchBeginning, matchEnd)
		if at < 0 {
			return nil, &ApplyError{Path: path, Hunk: k + 1, Header: h.rangeHeader(), Reason: "context does not match"}
		}
		img.replace(at, len(pre), post)
	}
	out := img.bytes()
	if isDelete && len(out) > 0 {
		return nil, &ApplyError{Path: path, Reason: "the deletion leaves content in the file"}
	}
	return out, nil
}

// rangeHeader is the header without the section text.
func (h Hunk) rangeHeader() string {
	h.Section = ""
	return h.Header()
}

// images returns the lines a hunk expects (pre) and writes (post), and how
// many context lines end it.
func (h Hunk) images(reverse bool) (pre, post [][]byte, trailing int) {
	del, add := Deleted, Added
	if reverse {
		del, add = Added, Deleted
	}
	for _, l := range h.Lines {
		switch l.Kind {
		case Context:
			pre = append(pre, l.Text)
			post = append(post, l.Text)
			trailing++
		case del:
			pre = append(pre, l.Text)
			trailing = 0
		case add:
			post = append(post, l.Text)
			trailing = 0
		}
	}
	return pre, post, trailing
}

// image is the content being patched, as lines with the lines that hunks
// already wrote marked. It is a gap buffer: hunks usually apply in file
// order, so moving the gap along costs O(n) for the whole patch instead of
// O(n) per hunk.
type image struct {
	lines   [][]byte
	patched []bool
	gs, ge  int // the gap is lines[gs:ge]
}

func newImage(content []byte) *image {
	lines := SplitLines(content)
	return &image{lines: lines, patched: make([]bool, len(lines)), gs: len(lines), ge: len(lines)}
}

func (img *image) len() int { return len(img.lines) - (img.ge - img.gs) }

func (img *image) phys(i int) int {
	if i >= img.gs {
		return i + img.ge - img.gs
	}
	return i
}

// moveGap puts the gap at logical position pos.
func (img *image) moveGap(pos int) {
	if pos < img.gs {
		k := img.gs - pos
		copy(img.lines[img.ge-k:img.ge], img.lines[pos:img.gs])
		copy(img.patched[img.ge-k:img.ge], img.patched[pos:img.gs])
		img.gs, img.ge = pos, img.ge-k
	} else if pos > img.gs {
		k := pos - img.gs
		copy(img.lines[img.gs:pos], img.lines[img.ge:img.ge+k])
		copy(img.patched[img.gs:pos], img.patched[img.ge:img.ge+k])
		img.gs, img.ge = pos, img.ge+k
	}
}

// find looks for pre in the image, starting at line and moving outwards
// (git apply's find_pos); it returns -1 when there is no match.
func (img *image) find(pre [][]byte, line int, matchBeginning, matchEnd bool) int {
	n := img.len()
	if matchBeginning {
		line = 0
	} else if matchEnd {
		line = n - len(pre)
	}
	if line < 0 || line > n {
		line = n
	}
	back, fwd, cur := line, line, line
	for i := 0; ; i++ {
		if img.matchAt(pre, cur, matchBeginning, matchEnd) {
			return cur
		}
		for {
			if back == 0 && fwd == n {
				return -1
			}
			if i&1 != 0 {
				if back == 0 {
					i++
					continue
				}
				back--
				cur = back
			} else {
				if fwd == n {
					i++
					continue
				}
				fwd++
				cur = fwd
			}
			break
		}
	}
}

func (img *image) matchAt(pre [][]byte, at int, matchBeginning, matchEnd bool) bool {
	n := img.len()
	if at+len(pre) > n || (matchEnd && at+len(pre) != n) || (matchBeginning && at != 0) {
		return false
	}
	for k, l := range pre {
		p := img.phys(at + k)
		if img.patched[p] || !bytes.Equal(img.lines[p], l) {
			return false
		}
	}
	return true
}

// replace swaps count lines at at for post, marking them patched.
func (img *image) replace(at, count int, post [][]byte) {
	img.moveGap(at + count)
	img.gs -= count
	if img.ge-img.gs < len(post) {
		n := img.len()
		size := n + len(post) + n/2 + 16
		lines := make([][]byte, size)
		patched := make([]bool, size)
		tail := len(img.lines) - img.ge
		copy(lines, img.lines[:img.gs])
		copy(patched, img.patched[:img.gs])
		copy(lines[size-tail:], img.lines[img.ge:])
		copy(patched[size-tail:], img.patched[img.ge:])
		img.lines, img.patched, img.ge = lines, patched, size-tail
	}
	copy(img.lines[img.gs:], post)
	for k := range post {
		img.patched[img.gs+k] = true
	}
	img.gs += len(post)
}

// bytes returns the image's content.
func (img *image) bytes() []byte {
	size := 0
	for i := 0; i < img.len(); i++ {
		size += len(img.lines[img.phys(i)])
	}
	out := make([]byte, 0, size)
	for _, l := range img.lines[:img.gs] {
		out = append(out, l...)
	}
	for _, l := range img.lines[img.ge:] {
		out = append(out, l...)
	}
	return out
}
