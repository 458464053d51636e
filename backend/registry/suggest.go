package registry

import (
	"strings"
	"unicode/utf8"
)

// suggest returns the candidate closest to name, or "" when none is close:
// the same name up to case and '-'/'_', else the smallest edit distance (at
// most 3, and less than half the name's length), else a prefix of at least
// three characters either way. Ties go to the earlier candidate.
func suggest(name string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	n := norm(name)
	for _, c := range candidates {
		if norm(c) == n {
			return c
		}
	}
	if len(n) > maxSuggestLen {
		return "" // no registered name is that long; do not pay for the matrix
	}
	best, bestDist := "", 0
	limit := min(3, (len([]rune(n))-1)/2)
	for _, c := range candidates {
		nc := norm(c)
		if d := utf8.RuneCountInString(nc) - utf8.RuneCountInString(n); d > limit || -d > limit {
			continue // the distance is at least the difference in length
		}
		d := levenshtein(n, nc)
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	if len(n) >= 3 {
		for _, c := range candidates {
			if nc := norm(c); strings.HasPrefix(nc, n) || (len(nc) >= 3 && strings.HasPrefix(n, nc)) {
				return c
			}
		}
	}
	return ""
}

// maxSuggestLen bounds the names suggest looks at: tool names and argument
// keys are short, and a client may send a megabyte as a name.
const maxSuggestLen = 128

// levenshtein is the edit distance between a and b, in runes, counting a
// swap of two adjacent runes as one edit (optimal string alignment).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
