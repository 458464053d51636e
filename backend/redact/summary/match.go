package summary

import (
	"bytes"
	"math/bits"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/redact"
)

// The redaction rules' patterns, matched by hand on the hot path. Each
// matcher accepts exactly the language of the regular expression in its
// comment; ref_test.go checks them against those expressions.
//
// Case-insensitive matching follows Go's regexp (?i), which folds with
// unicode.SimpleFold: besides the ASCII pairs, KELVIN SIGN (U+212A) matches
// k and LATIN SMALL LETTER LONG S (U+017F) matches s. No other rune folds to
// an ASCII letter.

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s []byte) bool {
	for _, b := range s {
		if b >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasFold reports whether s begins with p, a lowercase ASCII word, ignoring
// ASCII case. For a letter p[j], s[j]|0x20 == p[j] holds exactly for its
// two cases.
func hasFold(s []byte, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if s[j]|0x20 != p[j] {
			return false
		}
	}
	return true
}

// isSecretKey matches a key whose value is always redacted
// ([redact.IsSecretKey]):
//
//	(?i)(token|password|passwd|secret|api[_-]?key|authorization|credential|private[_-]?key|access[_-]?key)
func isSecretKey(key []byte) bool { return redact.IsSecretKey(key) }

// isTextKey matches a key whose string values are large text payloads:
//
//	(?i)^(content|data|body|source|newText|text|prompt|systemPrompt)$
func isTextKey(key []byte) bool {
	if len(key) < 4 || len(key) > 12*utf8.UTFMax { // 4 to 12 runes
		return false
	}
	if !isASCII(key) {
		key = redact.FoldRunes(key)
	}
	switch len(key) {
	case 4:
		return hasFold(key, "data") || hasFold(key, "body") || hasFold(key, "text")
	case 6:
		return hasFold(key, "source") || hasFold(key, "prompt")
	case 7:
		return hasFold(key, "content") || hasFold(key, "newtext")
	case 12:
		return hasFold(key, "systemprompt")
	}
	return false
}

// hasBearer matches "bearer", whitespace and 12 or more token characters
// (RFC 6750's b64token) anywhere in s:
//
//	(?i)bearer\s+[A-Za-z0-9\-._~+/]{12,}
//
// \s is [\t\n\f\r ]; under (?i) the class also holds U+017F and U+212A.
func hasBearer(s []byte) bool {
	const minLen = len("bearer") + 1 + 12
	for i := 0; i+minLen <= len(s); i++ {
		if s[i]|0x20 != 'b' || !hasFold(s[i+1:], "earer") {
			continue
		}
		j := i + 6
		for j < len(s) && isRESpace(s[j]) {
			j++
		}
		if j == i+6 {
			continue
		}
		n := 0
		for j < len(s) && n < 12 {
			if b := s[j]; b < utf8.RuneSelf {
				if !bearerChar[b] {
					break
				}
				j++
			} else {
				r, size := utf8.DecodeRune(s[j:])
				if r != '\u017f' && r != '\u212a' {
					break
				}
				j += size
			}
			n++
		}
		if n == 12 {
			return true
		}
	}
	return false
}

// isRESpace reports whether b is in regexp's \s, [\t\n\f\r ].
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// bearerChar is the ASCII part of [A-Za-z0-9\-._~+/].
var bearerChar = asciiSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")

// tokenChar is [A-Za-z0-9+/=_.,:-], the characters of a token-like string.
var tokenChar = asciiSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.,:-")

// asciiSet returns the set of chars.
func asciiSet(chars string) (set [utf8.RuneSelf]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

// hasPrivateKey matches a PEM private key header anywhere in s:
//
//	-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----
//
// After "-----BEGIN " the class run must end with "PRIVATE KEY" and be
// followed by "-----": '-' is not in the class, so the run cannot go on
// past where the header's closing dashes begin.
func hasPrivateKey(s []byte) bool {
	const begin, name, dashes = "-----BEGIN ", "PRIVATE KEY", "-----"
	for {
		i := bytes.Index(s, []byte(begin))
		if i < 0 {
			return false
		}
		s = s[i+len(begin):] // "-----BEGIN " has no border: matches cannot overlap
		m := 0
		for m < len(s) && (s[m] >= 'A' && s[m] <= 'Z' || s[m] >= '0' && s[m] <= '9' || s[m] == ' ') {
			m++
		}
		if m >= len(name) && string(s[m-len(name):m]) == name && bytes.HasPrefix(s[m:], []byte(dashes)) {
			return true
		}
	}
}

// isRandomToken reports whether s, of n UTF-16 units, is 32 or more
// characters of ^[A-Za-z0-9+/=_.,:-]+$ with at least 12 distinct ones.
func isRandomToken(s []byte, n int) bool {
	if n < 32 {
		return false
	}
	var seen [2]uint64 // the class is ASCII, below 128
	for _, b := range s {
		if b >= utf8.RuneSelf || !tokenChar[b] {
			return false
		}
		seen[b>>6] |= 1 << (b & 63)
	}
	return bits.OnesCount64(seen[0])+bits.OnesCount64(seen[1]) >= 12
}
