package patch

// This file follows xdiff's xdl_change_compact: groups of changed lines that
// could be slid up or down over equal lines are moved to one canonical place
// (as low as possible, aligned with a change on the other side if one can be
// reached, or where git's indent heuristic scores best).

// group is a run of changed lines [start, end) in one file; an empty group
// (start == end) sits above the unchanged line at start.
type group struct{ start, end int }

func (f *xfile) groupInit() group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

func (f *xfile) groupNext(g *group) bool {
	if g.end == f.n {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for f.changed(g.end) {
		g.end++
	}
	return true
}

func (f *xfile) groupPrevious(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for f.changed(g.start - 1) {
		g.start--
	}
	return true
}

func (f *xfile) slideDown(g *group) bool {
	if g.end < f.n && f.class[g.start] == f.class[g.end] {
		f.chg[g.start+1] = false
		g.start++
		f.chg[g.end+1] = true
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (f *xfile) slideUp(g *group) bool {
	if g.start > 0 && f.class[g.start-1] == f.class[g.end-1] {
		g.start--
		f.chg[g.start+1] = true
		g.end--
		f.chg[g.end+1] = false
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

func compactBug(what string) {
	panic("patch: internal error in change compaction: " + what)
}

// compact slides the change groups of f; fo is the other file, whose groups
// are walked in step.
func (f *xfile) compact(fo *xfile, indentHeuristic bool) {
	g := f.groupInit()
	og := fo.groupInit()
	for {
		if g.end != g.start {
			var earliestEnd, endMatchingOther, groupsize int
			for {
				groupsize = g.end - g.start
				endMatchingOther = -1
				for f.slideUp(&g) {
					if !fo.groupPrevious(&og) {
						compactBug("group sync broken sliding up")
					}
				}
				earliestEnd = g.end
				if og.end > og.start {
					endMatchingOther = g.end
				}
				for f.slideDown(&g) {
					if !fo.groupNext(&og) {
						compactBug("group sync broken sliding down")
					}
					if og.end > og.start {
						endMatchingOther = g.end
					}
				}
				if groupsize == g.end-g.start {
					break
				}
			}

			switch {
			case g.end == earliestEnd:
				// No shifting was possible.
			case endMatchingOther != -1:
				for og.end == og.start {
					if !f.slideUp(&g) {
						compactBug("match disappeared")
					}
					if !fo.groupPrevious(&og) {
						compactBug("group sync broken sliding to match")
					}
				}
			case indentHeuristic:
				shift := earliestEnd
				if g.end-groupsize-1 > shift {
					shift = g.end - groupsize - 1
				}
				if g.end-indentMaxSliding > shift {
					shift = g.end - indentMaxSliding
				}
				bestShift := -1
				var best splitScore
				for ; shift <= g.end; shift++ {
					var score splitScore
					score.add(f.measureSplit(shift))
					score.add(f.measureSplit(shift - groupsize))
					if bestShift == -1 || score.cmp(best) <= 0 {
						best = score
						bestShift = shift
					}
				}
				for g.end > bestShift {
					if !f.slideUp(&g) {
						compactBug("best shift unreached")
					}
					if !fo.groupPrevious(&og) {
						compactBug("group sync broken sliding to blank line")
					}
				}
			}
		}
		if !f.groupNext(&g) {
			break
		}
		if !fo.groupNext(&og) {
			compactBug("group sync broken moving to next group")
		}
	}
}

const (
	maxIndent         = 200
	maxBlanks         = 20
	indentMaxSliding  = 100
	startOfFilePen    = 1
	endOfFilePen      = 21
	totalBlankWeight  = -30
	postBlankWeight   = 6
	relIndentPen      = -4
	relIndentBlankPen = 10
	relOutdentPen     = 24
	relOutdentBlank   = 17
	relDedentPen      = 23
	relDedentBlankPen = 17
	indentWeight      = 60
)

// isSpace is git's isspace: space, tab, LF and CR only.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// indentOf returns a line's indentation (tabs to multiples of 8), capped at
// maxIndent, or -1 for a blank line.
func indentOf(rec []byte) int {
	ret := 0
	for _, c := range rec {
		if !isSpace(c) {
			return ret
		}
		if c == ' ' {
			ret++
		} else if c == '\t' {
			ret += 8 - ret%8
		}
		if ret >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

type splitMeasurement struct {
	endOfFile  bool
	indent     int
	preBlank   int
	preIndent  int
	postBlank  int
	postIndent int
}

func (f *xfile) measureSplit(split int) splitMeasurement {
	var m splitMeasurement
	n := f.n
	if split >= n {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.indent = indentOf(f.rec(split))
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = indentOf(f.rec(i))
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < n; i++ {
		m.postIndent = indentOf(f.rec(i))
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type splitScore struct{ effectiveIndent, penalty int }

func (s *splitScore) add(m splitMeasurement) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += startOfFilePen
	}
	if m.endOfFile {
		s.penalty += endOfFilePen
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += totalBlankWeight * totalBlank
	s.penalty += postBlankWeight * postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += indent
	switch {
	case indent == -1, m.preIndent == -1:
	case indent > m.preIndent:
		s.penalty += pick(anyBlanks, relIndentBlankPen, relIndentPen)
	case indent == m.preIndent:
	default:
		if m.postIndent != -1 && m.postIndent > indent {
			s.penalty += pick(anyBlanks, relOutdentBlank, relOutdentPen)
		} else {
			s.penalty += pick(anyBlanks, relDedentBlankPen, relDedentPen)
		}
	}
}

func pick(cond bool, a, b int) int {
	if cond {
		return a
	}
	return b
}

func (s splitScore) cmp(o splitScore) int {
	c := 0
	if s.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if s.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return indentWeight*c + (s.penalty - o.penalty)
}
