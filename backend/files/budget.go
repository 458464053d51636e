package files

import (
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
)

// budget.go: every result must fit in one socket frame. A result too
// large to send is replaced by TOOL_FAILED after the change was made, and
// the caller would believe a done change failed; so the engine measures
// the JSON its results carry (text whose escapes are long, such as '<',
// six bytes in JSON, can grow six times) and keeps them within a frame: a
// read is cut shorter (truncated), a write, patch or undo leaves the
// contents out of its undo entry (the history keeps them), and a patch
// whose before and after cannot fit is refused before anything changes.

// resultSlackBytes is the room a result leaves in a frame for the
// envelope, the paths and the other fields.
const resultSlackBytes = 64 << 10

// maxResultTextBytes is how much JSON text (escaped, quoted) one result
// may carry.
const maxResultTextBytes = protocol.MaxFrameBytes - resultSlackBytes

// jsonTextLen is the length of s as encoding/json writes it: quoted, with
// its escapes (HTML characters included, as json.Marshal escapes them).
func jsonTextLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		w, size := nextJSONLen(s[i:])
		n += w
		i += size
	}
	return n
}

// nextJSONLen is the JSON length of the first character of s (non-empty)
// and its size in s.
func nextJSONLen(s string) (w, size int) {
	if b := s[0]; b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			return 2, 1
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			return 6, 1 // \u00XX
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
		return 6, size // \ufffd, \u2028, \u2029
	}
	return size, size
}

// jsonPtrLen is jsonTextLen of *s, or the length of null.
func jsonPtrLen(s *string) int {
	if s == nil {
		return len("null")
	}
	return jsonTextLen(*s)
}

// cutToJSONBudget returns the longest prefix of s, cut at a character
// boundary, whose JSON text is at most budget bytes, and whether it had
// to cut.
func cutToJSONBudget(s string, budget int) (string, bool) {
	n := 2
	for i := 0; i < len(s); {
		w, size := nextJSONLen(s[i:])
		if n+w > budget {
			return s[:i], true
		}
		n += w
		i += size
	}
	return s, false
}

// withinResult leaves the contents out of u (a copy for a result) when,
// with the other text of the result (other bytes of JSON), they would not
// fit in a frame.
func withinResult(u UndoEntry, other int) UndoEntry {
	if other+jsonPtrLen(u.PreviousContent)+jsonPtrLen(u.NewContent) > maxResultTextBytes {
		u.PreviousContent, u.NewContent, u.ContentOmitted = nil, nil, true
	}
	return u
}
