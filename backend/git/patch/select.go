package patch

// SelectLines returns the part of h that stages only the selected lines,
// for applying forward (git_stage with a patch): an unselected "-" line
// becomes context (it stays in the file), an unselected "+" line is dropped
// (it is not added), and the header counts are recomputed. selected holds
// indexes into h.Lines; context lines, duplicates and out-of-range indexes
// are ignored.
//
// The old side of the result is the old side of h, so OldStart stays; the
// result is numbered as if it were the file's only hunk (NewStart counts
// from OldStart). Use Select to renumber several hunks of one file.
//
// One case needs more than that rule: an unselected "-" line that is the
// file's last line without newline, followed by selected "+" lines, cannot
// become context (the added lines would continue that line). It is kept as
// "-" and re-added with a newline, so the selected lines land on lines of
// their own.
//
// A result without any "+" or "-" line (HasChanges false) must be left out
// of a patch: git refuses such hunks.
func SelectLines(h Hunk, selected []int) Hunk {
	return selectLines(h, selected, false)
}

// SelectLinesReverse is SelectLines for a patch that will be applied in
// reverse (git_unstage and git_restore with a patch, which take lines out of
// the index or the worktree): an unselected "+" line becomes context (it
// stays), an unselected "-" line is dropped, and the new side (NewStart,
// NewLines) is kept while the old side is recomputed.
func SelectLinesReverse(h Hunk, selected []int) Hunk {
	return selectLines(h, selected, true)
}

func selectLines(h Hunk, selected []int, reverse bool) Hunk {
	sel := make(map[int]bool, len(selected))
	for _, i := range selected {
		sel[i] = true
	}
	keep, drop := Deleted, Added // unselected keep lines become context
	if reverse {
		keep, drop = Added, Deleted
	}
	type out struct {
		Line
		converted bool
	}
	lines := make([]out, 0, len(h.Lines))
	for i, l := range h.Lines {
		switch {
		case l.Kind == Context || (sel[i] && (l.Kind == Deleted || l.Kind == Added)):
			lines = append(lines, out{Line: l})
		case l.Kind == keep:
			lines = append(lines, out{Line: Line{Kind: Context, Text: l.Text}, converted: true})
		}
	}
	res := Hunk{Section: h.Section, Lines: make([]Line, 0, len(lines)+1)}
	for i, l := range lines {
		if l.converted && l.NoNewline() {
			laterDrop := false
			for _, m := range lines[i+1:] {
				if m.Kind == drop {
					laterDrop = true
					break
				}
			}
			if laterDrop {
				withNewline := append(append(make([]byte, 0, len(l.Text)+1), l.Text...), '\n')
				res.Lines = append(res.Lines, Line{Kind: keep, Text: l.Text}, Line{Kind: drop, Text: withNewline})
				continue
			}
		}
		res.Lines = append(res.Lines, l.Line)
	}
	for _, l := range res.Lines {
		switch l.Kind {
		case Context:
			res.OldLines++
			res.NewLines++
		case Deleted:
			res.OldLines++
		case Added:
			res.NewLines++
		}
	}
	if reverse {
		res.NewStart, res.NewLines = h.NewStart, h.NewLines
		res.OldStart = startFor(firstIndex(h.NewStart, h.NewLines), res.OldLines)
	} else {
		res.OldStart, res.OldLines = h.OldStart, h.OldLines
		res.NewStart = startFor(firstIndex(h.OldStart, h.OldLines), res.NewLines)
	}
	return res
}

// firstIndex turns a header start into the 0-based index of the side's first
// line (or of the line a zero-length side sits before).
func firstIndex(start, count int) int {
	if count > 0 {
		return start - 1
	}
	return start
}

// startFor is firstIndex's inverse.
func startFor(index, count int) int {
	if count > 0 {
		return index + 1
	}
	return index
}

// Select builds the partial patch of fp that keeps only the selected lines:
// selected maps a hunk's index in fp.Hunks to indexes into its Lines (see
// SelectLines; reverse selects for a patch applied in reverse, as
// SelectLinesReverse). Hunks without a selected change are left out and the
// others renumbered so that they apply one after the other. ok is false when
// nothing is selected.
//
// A deletion of which only some lines are selected is no longer a deletion
// (the file keeps the other lines); likewise a new file unstaged in part.
func Select(fp FilePatch, selected map[int][]int, reverse bool) (part FilePatch, ok bool) {
	part = fp
	part.Hunks = nil
	whole := true
	for k, h := range fp.Hunks {
		sh := selectLines(h, selected[k], reverse)
		if sh.HasChanges() {
			part.Hunks = append(part.Hunks, sh)
		}
		a, d := h.Counts()
		sa, sd := sh.Counts()
		if a != sa || d != sd || len(sh.Lines) != len(h.Lines) {
			whole = false
		}
	}
	if len(part.Hunks) == 0 {
		return FilePatch{}, false
	}
	if !whole {
		// The index line names blobs that the partial patch does not
		// produce, so it goes.
		part.OldHash, part.NewHash = "", ""
		if !reverse && part.IsDelete {
			part.IsDelete = false
			part.NewMode = part.OldMode
		}
		if reverse && part.IsNew {
			part.IsNew = false
			part.OldMode = part.NewMode
		}
	}
	delta := 0
	for i := range part.Hunks {
		h := &part.Hunks[i]
		if reverse {
			base := firstIndex(h.NewStart, h.NewLines)
			h.OldStart = startFor(base+delta, h.OldLines)
			delta += h.OldLines - h.NewLines
		} else {
			base := firstIndex(h.OldStart, h.OldLines)
			h.NewStart = startFor(base+delta, h.NewLines)
			delta += h.NewLines - h.OldLines
		}
	}
	return part, true
}
