package status

import "strings"

// Results of wildmatch, as in git's wildmatch.c: abortAll and
// abortToStarStar cut the backtracking short.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch matches text against a git glob pattern. With pathname set,
// "*" and "?" do not match "/", and "**" between slashes matches any number
// of directories (git's WM_PATHNAME). It follows git's wildmatch.c.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(text) {
			tc = text[ti]
		}
		switch pc {
		case '\\':
			// A literal match with the next character.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := !pathname
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')) {
					// "**/" may match no directory at all: try the rest
					// of the pattern right here.
					if pi < len(p) && p[pi] == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = !pathname
				}
			}
			if pi == len(p) {
				// A trailing "**" matches everything; a trailing "*" only
				// what has no more slashes.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// One "*" followed by a slash matches up to the next
				// slash.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				// The slash is matched by the loop's next step.
				continue
			}
			for {
				if ti >= len(text) {
					break
				}
				// Skip ahead to the next occurrence of a literal that
				// follows the star.
				if !isGlobSpecial(p[pi]) {
					lit := p[pi]
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != lit {
						ti++
					}
					if ti >= len(text) || text[ti] != lit {
						return wmNoMatch
					}
				}
				m := dowild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			pi++
			if pi >= len(p) {
				return wmAbortAll
			}
			pc = p[pi]
			if pc == '^' {
				pc = '!'
			}
			negated := pc == '!'
			if negated {
				pi++
				if pi >= len(p) {
					return wmAbortAll
				}
				pc = p[pi]
			}
			var prev byte
			matched := false
			for {
				if pc == '\\' {
					pi++
					if pi >= len(p) {
						return wmAbortAll
					}
					pc = p[pi]
					if tc == pc {
						matched = true
					}
				} else if pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']' {
					pi++
					pc = p[pi]
					if pc == '\\' {
						pi++
						if pi >= len(p) {
							return wmAbortAll
						}
						pc = p[pi]
					}
					if tc <= pc && tc >= prev {
						matched = true
					}
					pc = 0 // so that prev becomes 0
				} else if pc == '[' && pi+1 < len(p) && p[pi+1] == ':' {
					s := pi + 2
					j := s
					for j < len(p) && p[j] != ']' {
						j++
					}
					if j >= len(p) {
						return wmAbortAll
					}
					if j-s-1 < 0 || p[j-1] != ':' {
						// No ":]": a plain "[" in the set.
						pc = '['
						if tc == pc {
							matched = true
						}
					} else {
						pi = j
						ok, valid := charClass(p[s:j-1], tc)
						if !valid {
							return wmAbortAll
						}
						if ok {
							matched = true
						}
						pc = 0
					}
				} else if tc == pc {
					matched = true
				}
				prev = pc
				pi++
				if pi >= len(p) {
					return wmAbortAll
				}
				pc = p[pi]
				if pc == ']' {
					break
				}
			}
			if matched == negated || (pathname && tc == '/') {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// charClass tests c against a POSIX class name ("alpha", …); valid is
// false for an unknown class.
func charClass(name string, c byte) (match, valid bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 32 || c == 127, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 32 && c < 127, true
	case "lower":
		return isLower, true
	case "print":
		return c >= 32 && c < 127, true
	case "punct":
		return c > 32 && c < 127 && !isUpper && !isLower && !isDigit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
