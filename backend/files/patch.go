package files

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

// Edit replaces the UTF-16 code units [Start, End) of a text with NewText
// (offsets count UTF-16 code units, as JavaScript and CodeMirror do).
type Edit struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	NewText string `json:"newText"`
}

// Apply applies edits to text (valid UTF-8), all or nothing. The offsets
// are those of the original text; the edits may come in any order but
// must satisfy 0 ≤ start ≤ end ≤ length, never overlap, and never split a
// surrogate pair (a character outside the Basic Multilingual Plane, such
// as most emoji, is two UTF-16 units). Insertions at one offset are
// applied in the order given, before a replacement that starts there. A
// refused edit is an *ArgError naming it ("edits[2].start").
func Apply(text string, edits []Edit) (string, error) {
	for i, ed := range edits {
		switch {
		case ed.Start < 0:
			return "", editErr(i, "start", "must be 0 or more")
		case ed.End < ed.Start:
			return "", editErr(i, "end", fmt.Sprintf("(%d) is before start (%d)", ed.End, ed.Start))
		}
	}
	// The distinct offsets, in order, and their byte positions.
	offsets := make([]int, 0, 2*len(edits))
	for _, ed := range edits {
		offsets = append(offsets, ed.Start, ed.End)
	}
	slices.Sort(offsets)
	offsets = slices.Compact(offsets)
	bytePos := make(map[int]int, len(offsets))
	split := map[int]bool{} // the offsets inside a surrogate pair
	next, units := 0, 0
	for b, r := range text {
		for next < len(offsets) && offsets[next] == units {
			bytePos[offsets[next]] = b
			next++
		}
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if w == 2 && next < len(offsets) && offsets[next] == units+1 {
			split[offsets[next]] = true
			next++
		}
		units += w
	}
	for next < len(offsets) && offsets[next] == units {
		bytePos[offsets[next]] = len(text)
		next++
	}
	for i, ed := range edits {
		for _, f := range []struct {
			name string
			off  int
		}{{"start", ed.Start}, {"end", ed.End}} {
			if f.off > units {
				return "", editErr(i, f.name, fmt.Sprintf("(%d) is past the end of the text (%d UTF-16 units)", f.off, units))
			}
			if split[f.off] {
				return "", editErr(i, f.name, fmt.Sprintf("(%d) falls between the two UTF-16 units of a surrogate pair (a character such as an emoji)", f.off))
			}
		}
	}
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if d := edits[a].Start - edits[b].Start; d != 0 {
			return d
		}
		return edits[a].End - edits[b].End
	})
	for k := 1; k < len(order); k++ {
		prev, cur := edits[order[k-1]], edits[order[k]]
		if prev.End > cur.Start {
			return "", editErr(order[k], "start", fmt.Sprintf("overlaps edits[%d] (%d..%d): edits must not overlap", order[k-1], prev.Start, prev.End))
		}
	}
	var sb strings.Builder
	grow := len(text)
	for _, ed := range edits {
		grow += len(ed.NewText)
	}
	sb.Grow(grow)
	at := 0
	for _, i := range order {
		ed := edits[i]
		sb.WriteString(text[at:bytePos[ed.Start]])
		sb.WriteString(ed.NewText)
		at = bytePos[ed.End]
	}
	sb.WriteString(text[at:])
	return sb.String(), nil
}

// editErr is the *ArgError of the field of edits[i].
func editErr(i int, field, reason string) *ArgError {
	return &ArgError{Field: fmt.Sprintf("edits[%d].%s", i, field), Reason: reason}
}

// PatchOptions are the options of [Engine.Patch].
type PatchOptions struct {
	// ExpectedMtimeMs, when set, refuses the patch (KindConflict) unless
	// the file has this modification time (ms).
	ExpectedMtimeMs *int64
}

// PatchResult is the result of [Engine.Patch].
type PatchResult struct {
	// Path is the canonical absolute path patched.
	Path string `json:"path"`
	// RelPath is Path relative to the workspace root.
	RelPath string `json:"relPath"`
	// Before and After are the whole content before and after the edits.
	Before string `json:"before"`
	After  string `json:"after"`
	// Edits are the edits applied, as given.
	Edits []Edit `json:"edits"`
	// MtimeMs is the new modification time.
	MtimeMs int64 `json:"mtimeMs"`
	// Undo is the change as workspace_undo reverts it.
	Undo UndoEntry `json:"undo"`
}

// Patch applies edits (see [Apply]) to the text file at path in s and
// writes the result atomically, all or nothing, as [Engine.Write] does.
// The file must exist, be text and be at most [MaxReadBytes].
func (e *Engine) Patch(ctx context.Context, s Scope, path string, edits []Edit, o PatchOptions) (PatchResult, error) {
	if len(edits) == 0 {
		return PatchResult{}, &ArgError{Field: "edits", Reason: "needs at least one edit"}
	}
	t, err := s.Resolve("path", path)
	if err != nil {
		return PatchResult{}, err
	}
	unlock := e.lock(t.Abs)
	defer unlock()
	e.afterResolve(t.Abs)
	d, name, err := openParent(t, "path")
	if err != nil {
		if IsNotFound(err) {
			return PatchResult{}, failf(KindNotFound, err, "no such file: %s (workspace_write_file creates files)", t.Rel)
		}
		return PatchResult{}, err
	}
	defer d.close()
	prev, err := readAt(d, name, "path", MaxReadBytes, false, e.hooks.beforeOpen)
	switch {
	case err != nil:
		return PatchResult{}, readFail(t.Rel, err)
	case !prev.exists:
		return PatchResult{}, failf(KindNotFound, nil, "no such file: %s (workspace_write_file creates files)", t.Rel)
	case prev.data == nil:
		return PatchResult{}, failf(KindTooLarge, nil, "%s is %s, over the %s a patch applies to: write it whole with workspace_write_file",
			t.Rel, sizeText(prev.size), sizeText(MaxReadBytes))
	case !isText(prev.data):
		return PatchResult{}, binaryFail(t.Rel)
	}
	if err := checkMtime(t.Rel, prev, o.ExpectedMtimeMs); err != nil {
		return PatchResult{}, err
	}
	before := string(prev.data)
	after, err := Apply(before, edits)
	if err != nil {
		return PatchResult{}, err
	}
	if len(after) > MaxWriteBytes {
		return PatchResult{}, &ArgError{Field: "edits", Reason: fmt.Sprintf("would make the file %s, over the %s limit of a file tool write", sizeText(int64(len(after))), sizeText(MaxWriteBytes))}
	}
	// The result carries before, after and the edits: refuse what it could
	// not carry before anything changes (see budget.go).
	text := jsonTextLen(before) + jsonTextLen(after)
	for _, ed := range edits {
		text += jsonTextLen(ed.NewText) + 48 // the offsets and keys
	}
	if text > maxResultTextBytes {
		return PatchResult{}, failf(KindTooLarge, nil, "the result of this patch of %s (the content before and after, and the edits, as JSON: %s) would be over the %s one result may carry; nothing was changed: write the file whole with workspace_write_file",
			t.Rel, sizeText(int64(text)), sizeText(protocol.MaxFrameBytes))
	}
	if err := ctx.Err(); err != nil {
		return PatchResult{}, err
	}
	w, err := replaceAt(d, filepath.Base(t.Abs), t.Rel, []byte(after), prev, e.beforeCommit(t.Abs))
	if err != nil {
		return PatchResult{}, err
	}
	rec := e.contentRecord(OpPatch, t.Abs, prev, []byte(after), nil)
	e.hist.push(t.Abs, rec)
	e.notify(s, ChangeWrite, t.Abs)
	return PatchResult{Path: t.Abs, RelPath: t.Rel, Before: before, After: after, Edits: slices.Clone(edits), MtimeMs: w.mtimeMs,
		Undo: withinResult(rec.entry, text)}, nil
}
