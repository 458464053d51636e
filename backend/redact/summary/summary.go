// Package summary writes the redacted, compact JSON summaries of tool
// arguments and results that meith stores and shows: the audit log's
// argsSummary and resultSummary (backend/audit) and the arguments of an
// approval request (backend/permission). The rules go by key (secret keys,
// text payload keys) and by the shape of a whole string (bearer tokens,
// private keys, long random tokens); the secrets inside any other string are
// found by the value scanner of backend/redact before the string is cut.
//
// It is a leaf of the redaction family: it imports only protocol and redact.
package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
)

// The limits of the redaction rules (original §4.4).
const (
	// MaxStringLen is the longest string kept whole; longer ones are cut.
	MaxStringLen = 240
	// MaxDepth is the deepest object kept; deeper ones become
	// [DeepObjectMarker]. The top-level value is at depth 0 and every object
	// or array adds one level.
	MaxDepth = 6
	// MaxArrayItems is how many items of an array are kept.
	MaxArrayItems = 50
	// MaxSummaryLen caps the final JSON summary.
	MaxSummaryLen = 2000
)

// The markers that replace redacted values.
const (
	RedactedMarker       = "[REDACTED]"
	DeepObjectMarker     = "[REDACTED_DEEP_OBJECT]"
	UnserializableMarker = "[UNSERIALIZABLE]"
	truncatedSuffix      = "...[truncated]"
)

// Of returns the redacted, compact JSON summary of v: what the audit log
// stores as argsSummary and an approval request shows as its arguments. v is
// marshalled with encoding/json unless it is a [json.RawMessage], which is
// used as is (an empty one is null; [OfJSON] takes the bytes without the
// interface). The rules are those of the original's summarizePayload:
//
//   - the value of a key matching /(token|password|passwd|secret|api[_-]?key|
//     authorization|credential|private[_-]?key|access[_-]?key)/i becomes
//     "[REDACTED]" at any depth, whatever its type; array items inherit the key
//     of their array;
//   - a string under a key content|data|body|source|newText|text
//     (case-insensitive) becomes "[REDACTED_TEXT <len> chars]";
//   - a string that looks sensitive becomes "[REDACTED]": "bearer" +
//     whitespace + 12 or more token characters, a "-----BEGIN … PRIVATE
//     KEY-----" header, or 32+ characters of [A-Za-z0-9+/=_.,:-] with at
//     least 12 distinct ones;
//   - other strings longer than 240 are cut to 240 + "...[truncated N chars]"
//     where N is the number of characters cut;
//   - objects deeper than 6 levels become "[REDACTED_DEEP_OBJECT]"; arrays
//     keep their first 50 items;
//   - the summary is capped at 2000 characters + "...[truncated]";
//   - a value that cannot be marshalled (or invalid JSON) gives
//     "[UNSERIALIZABLE]".
//
// Object keys keep the order of the input JSON (Go maps marshal sorted), and
// numbers keep their JSON text. Lengths count UTF-16 code units, exactly as
// JavaScript's String.length does in the original, so an emoji counts 2; cuts
// never split a character.
//
// Only the first JSON value of the input is read, and reading stops once the
// summary is certainly over the cap: what follows is neither summarized nor
// checked.
func Of(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return OfJSON(raw)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return UnserializableMarker
	}
	return OfJSON(raw)
}

// OfJSON is [Of] of the JSON text raw.
func OfJSON(raw []byte) string {
	if len(bytes.TrimSpace(raw)) == 0 { // Unicode spaces too, as ever
		raw = []byte("null")
	}
	s := newSummarizer(raw)
	defer s.free()
	if err := s.value(nil, 0, 0); err != nil && err != errFull {
		return UnserializableMarker
	}
	return s.result()
}

// OfResult summarizes the envelope {ok, content} or {ok, error} exactly as
// [Of] would the envelope marshalled with encoding/json, without marshalling
// it: the content is summarized in place. The audit log stores it as
// resultSummary.
func OfResult(r protocol.ToolResult) string {
	if !r.OK {
		s := newSummarizer(nil)
		defer s.free()
		s.out = append(s.out, `{"ok":false`...)
		if r.Error != nil {
			raw, err := json.Marshal(r.Error)
			if err != nil {
				return UnserializableMarker
			}
			s.in = raw
			s.out = append(s.out, `,"error":`...)
			if err := s.value(keyError, 1, 0); err == errFull {
				return s.result()
			} else if err != nil {
				return UnserializableMarker
			}
		}
		s.out = append(s.out, '}')
		return s.result()
	}
	s := newSummarizer(r.Content)
	defer s.free()
	s.out = append(s.out, `{"ok":true`...)
	if len(r.Content) > 0 { // omitempty
		s.out = append(s.out, `,"content":`...)
		// Marshalling checks the whole content (json.Valid), so it must be
		// valid here too, also where the summary does not read it.
		err := s.value(keyContent, 1, 0)
		switch {
		case err == errFull:
			if !json.Valid(r.Content) {
				return UnserializableMarker
			}
			return s.result()
		case err != nil:
			return UnserializableMarker
		}
		s.skipSpace()
		if s.pos != len(s.in) || (s.deep && !json.Valid(r.Content)) {
			return UnserializableMarker
		}
	}
	s.out = append(s.out, '}')
	return s.result()
}

// The keys of the result envelope that OfResult writes itself.
var (
	keyContent = []byte("content")
	keyError   = []byte("error")
)

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// errFull stops a summary early once it is certainly over MaxSummaryLen: the
// capped result is a prefix of the output, so the rest need not be built.
var errFull = errors.New("summary is full")

// errSyntax is any JSON syntax error: which one does not matter, the
// summary is then [UnserializableMarker].
var errSyntax = errors.New("invalid JSON")

// fullBytes is a byte length past which the output certainly has more than
// MaxSummaryLen UTF-16 units (a UTF-8 character has at most 3 bytes per unit).
const fullBytes = 3*MaxSummaryLen + 3

// deepSkip is the nesting of a skipped value past which OfResult
// checks the content with json.Valid, whose nesting limit (10,000) the
// summary does not apply itself.
const deepSkip = 1000

// summarizer reads JSON from in and writes the redacted summary to out, in
// one pass and without building values: a hand-written reader that accepts
// and rejects exactly what encoding/json's Decoder.Token does, value by value
// (ref_test.go compares the two).
type summarizer struct {
	in   []byte
	pos  int
	out  []byte
	str  []byte // the decoded string value, reused
	red  []byte // the redacted string value, reused
	deep bool   // a skipped value nested deeper than deepSkip
	// flag reports that the last value written was a string that is a
	// secret-looking flag (--password): the next item of its array is
	// its value.
	flag bool
}

var summarizers = sync.Pool{New: func() any { return &summarizer{out: make([]byte, 0, 1024)} }}

// newSummarizer returns a summarizer reading in.
func newSummarizer(in []byte) *summarizer {
	s := summarizers.Get().(*summarizer)
	s.in = in
	return s
}

// free returns s to the pool, unless it grew large.
func (s *summarizer) free() {
	if cap(s.out) > 64<<10 || cap(s.str) > 64<<10 || cap(s.red) > 64<<10 {
		return
	}
	*s = summarizer{out: s.out[:0], str: s.str[:0], red: s.red[:0]}
	summarizers.Put(s)
}

// result returns the output capped at MaxSummaryLen units.
func (s *summarizer) result() string {
	out := s.out
	if len(out) <= MaxSummaryLen { // bytes >= units
		return string(out)
	}
	if cut := cutUnits(out, MaxSummaryLen); len(cut) < len(out) {
		return string(cut) + truncatedSuffix
	}
	return string(out)
}

// skipSpace advances past JSON whitespace.
func (s *summarizer) skipSpace() {
	for s.pos < len(s.in) && isSpace(s.in[s.pos]) {
		s.pos++
	}
}

// peek returns the next non-space byte, or false at the end of the input.
func (s *summarizer) peek() (byte, bool) {
	s.skipSpace()
	if s.pos >= len(s.in) {
		return 0, false
	}
	return s.in[s.pos], true
}

// sep consumes the separator sep (':' after a key, ',' between items; 0
// for none) that precedes a value.
func (s *summarizer) sep(sep byte) error {
	if sep == 0 {
		return nil
	}
	if c, ok := s.peek(); !ok || c != sep {
		return errSyntax
	}
	s.pos++
	return nil
}

// value reads one JSON value under key (the nearest object key, nil at the
// top), preceded by sep, at depth, and writes its redacted form.
func (s *summarizer) value(key []byte, depth int, sep byte) error {
	if len(s.out) > fullBytes {
		return errFull
	}
	if len(key) > 0 && isSecretKey(key) {
		if err := s.skip(sep); err != nil {
			return err
		}
		s.out = append(s.out, `"`+RedactedMarker+`"`...)
		return nil
	}
	if err := s.sep(sep); err != nil {
		return err
	}
	c, ok := s.peek()
	if !ok {
		return errSyntax
	}
	switch c {
	case '{':
		if depth > MaxDepth {
			if err := s.skip(0); err != nil {
				return err
			}
			s.out = append(s.out, `"`+DeepObjectMarker+`"`...)
			return nil
		}
		s.pos++
		return s.object(depth)
	case '[':
		s.pos++
		return s.array(key, depth)
	case '"':
		str, plain, err := s.readString(false)
		if err != nil {
			return err
		}
		s.redactString(key, str, plain)
		return nil
	}
	start := s.pos
	if err := s.scalar(); err != nil {
		return err
	}
	s.out = append(s.out, s.in[start:s.pos]...)
	return nil
}

// object writes the members of an object whose '{' was read.
func (s *summarizer) object(depth int) error {
	s.out = append(s.out, '{')
	for first := true; ; first = false {
		c, ok := s.peek()
		switch {
		case !ok || c == ']':
			return errSyntax
		case c == '}':
			s.pos++
			s.out = append(s.out, '}')
			return nil
		case !first:
			if c != ',' {
				return errSyntax
			}
			s.pos++
			if c, ok = s.peek(); !ok {
				return errSyntax
			}
		}
		if c != '"' {
			return errSyntax
		}
		key, plain, err := s.readString(true)
		if err != nil {
			return err
		}
		if !first {
			s.out = append(s.out, ',')
		}
		s.appendString(key, plain)
		s.out = append(s.out, ':')
		if err := s.value(key, depth+1, ':'); err != nil {
			return err
		}
	}
}

// array writes the first MaxArrayItems items of an array whose '[' was read;
// the items inherit key.
func (s *summarizer) array(key []byte, depth int) error {
	s.out = append(s.out, '[')
	flag := false // the item before is a secret-looking flag
	for i := 0; ; i++ {
		c, ok := s.peek()
		switch {
		case !ok || c == '}':
			return errSyntax
		case c == ']':
			s.pos++
			s.out = append(s.out, ']')
			return nil
		}
		var sep byte
		if i > 0 {
			sep = ','
		}
		if i >= MaxArrayItems {
			if err := s.skip(sep); err != nil {
				return err
			}
			continue
		}
		if err := s.sep(sep); err != nil {
			return err
		}
		if i > 0 {
			s.out = append(s.out, ',')
		}
		afterFlag := flag
		c, _ = s.peek()
		flag = false
		if afterFlag && c == '"' && !(len(key) > 0 && isSecretKey(key)) {
			// The value of a flag such as --password in an argv.
			if len(s.out) > fullBytes {
				return errFull
			}
			if _, _, err := s.readString(false); err != nil {
				return err
			}
			s.out = append(s.out, `"`+RedactedMarker+`"`...)
			continue
		}
		s.flag = false
		if err := s.value(key, depth+1, 0); err != nil {
			return err
		}
		flag = c == '"' && s.flag
	}
}

// skip consumes sep and one whole value, checking its syntax, without
// writing it. It keeps its own stack of open containers, so that no input
// nests the Go stack.
func (s *summarizer) skip(sep byte) error {
	if err := s.sep(sep); err != nil {
		return err
	}
	var (
		buf   [64]byte
		stack = buf[:0] // the open containers: '{' or '['
	)
	for {
		// A value.
		c, ok := s.peek()
		if !ok {
			return errSyntax
		}
		switch c {
		case '{', '[':
			s.pos++
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			if c, ok := s.peek(); ok && c == end {
				s.pos++
				break
			}
			stack = append(stack, c)
			if len(stack) > deepSkip {
				s.deep = true
			}
			if c == '{' {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, _, err := s.readString(false); err != nil {
				return err
			}
		default:
			if err := s.scalar(); err != nil {
				return err
			}
		}
		// After a value: close containers until one goes on.
		for {
			if len(stack) == 0 {
				return nil
			}
			c, ok := s.peek()
			if !ok {
				return errSyntax
			}
			top := stack[len(stack)-1]
			if c == ',' {
				s.pos++
				if top == '{' {
					if err := s.skipKey(); err != nil {
						return err
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				s.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			return errSyntax
		}
	}
}

// skipKey consumes an object key and its colon.
func (s *summarizer) skipKey() error {
	if c, ok := s.peek(); !ok || c != '"' {
		return errSyntax
	}
	if _, _, err := s.readString(false); err != nil {
		return err
	}
	return s.sep(':')
}

// scalar consumes a number, true, false or null, checking its syntax.
func (s *summarizer) scalar() error {
	in, p := s.in, s.pos
	lit := func(word string) error {
		if len(in)-p < len(word) || string(in[p:p+len(word)]) != word {
			return errSyntax
		}
		s.pos = p + len(word)
		return nil
	}
	digits := func() int {
		n := 0
		for p < len(in) && in[p] >= '0' && in[p] <= '9' {
			p++
			n++
		}
		return n
	}
	if p >= len(in) {
		return errSyntax
	}
	switch in[p] {
	case 't':
		return lit("true")
	case 'f':
		return lit("false")
	case 'n':
		return lit("null")
	case '-':
		p++
	}
	// -? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?
	switch {
	case p < len(in) && in[p] == '0':
		p++
	case digits() == 0:
		return errSyntax
	}
	if p < len(in) && in[p] == '.' {
		p++
		if digits() == 0 {
			return errSyntax
		}
	}
	if p < len(in) && (in[p] == 'e' || in[p] == 'E') {
		p++
		if p < len(in) && (in[p] == '+' || in[p] == '-') {
			p++
		}
		if digits() == 0 {
			return errSyntax
		}
	}
	s.pos = p
	return nil
}

// readString reads the string at s.pos (its opening quote) and returns its
// value, decoded as encoding/json does (invalid UTF-8 and lone surrogates
// become U+FFFD). plain reports that the value is the raw text of the
// string, all printable ASCII, which a JSON encoder writes back unchanged.
// The value aliases the input when plain; otherwise it is s.str, reused by
// the next call, unless keep asks for a copy of its own.
func (s *summarizer) readString(keep bool) (str []byte, plain bool, err error) {
	in := s.in
	start := s.pos + 1
	i := start
	for ; i < len(in); i++ {
		c := in[i]
		if c == '"' {
			s.pos = i + 1
			return in[start:i], true, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	// Decode the rest.
	out := append(s.str[:0], in[start:i]...)
	for {
		if i >= len(in) {
			return nil, false, errSyntax
		}
		c := in[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.str = out
			if keep {
				out = append([]byte(nil), out...)
			}
			return out, false, nil
		case c < 0x20:
			return nil, false, errSyntax
		case c < utf8.RuneSelf && c != '\\':
			out = append(out, c)
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(in[i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte
			i += size
		default: // an escape
			if i+1 >= len(in) {
				return nil, false, errSyntax
			}
			switch e := in[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(in[i:])
				if r < 0 {
					return nil, false, errSyntax
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2 := hex4(in[i:]); r2 >= 0 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return nil, false, errSyntax
			}
			i += 2
		}
	}
}

// hex4 returns the rune of the escape \uXXXX at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendString writes str as a JSON string; plain (see readString) writes it
// as it is.
func (s *summarizer) appendString(str []byte, plain bool) {
	if plain {
		s.out = append(s.out, '"')
		s.out = append(s.out, str...)
		s.out = append(s.out, '"')
		return
	}
	s.out = AppendJSONString(s.out, str, false)
}

// redactString applies the string rules to str found under key.
func (s *summarizer) redactString(key, str []byte, plain bool) {
	n := len(str)
	if !plain {
		n = units(str)
	}
	switch {
	case len(key) > 0 && isTextKey(key):
		s.out = append(s.out, `"[REDACTED_TEXT `...)
		s.out = strconv.AppendInt(s.out, int64(n), 10)
		s.out = append(s.out, ` chars]"`...)
		return
	case looksSensitive(str, n):
		s.out = append(s.out, `"`+RedactedMarker+`"`...)
		return
	}
	// The secrets inside the string, before it is cut: a cut must not
	// leave half a secret that the scanner would no longer recognize.
	if red, ok := redact.Append(s.red[:0], str); ok {
		s.red = red
		str = red
		if n = len(str); !plain { // the markers are plain ASCII
			n = units(str)
		}
	}
	switch {
	case n > MaxStringLen:
		kept := cutUnits(str, MaxStringLen)
		s.appendString(kept, plain)
		s.out = s.out[:len(s.out)-1] // reopen the string
		s.out = append(s.out, "...[truncated "...)
		s.out = strconv.AppendInt(s.out, int64(n-units(kept)), 10)
		s.out = append(s.out, ` chars]"`...)
	default:
		s.appendString(str, plain)
		s.flag = len(str) > 1 && str[0] == '-' && redact.IsSecretFlag(string(str))
	}
}

// Clip bounds a string a client chose (a tool name, a cwd hint) to
// [MaxStringLen] UTF-16 units, cut as summaries cut strings ("...[truncated
// N chars]"), so one call cannot write a megabyte into a log. It does not
// redact: callers pass the string through the value scanner first.
func Clip(v string) string {
	if len(v) <= MaxStringLen {
		return v
	}
	if n := units([]byte(v)); n > MaxStringLen {
		kept := cutUnits([]byte(v), MaxStringLen)
		return string(kept) + "...[truncated " + strconv.Itoa(n-units(kept)) + " chars]"
	}
	return v
}

// looksSensitive reports whether str (of n UTF-16 units) looks like a bearer
// token, a private key or a long random token.
func looksSensitive(str []byte, n int) bool {
	return hasBearer(str) || hasPrivateKey(str) || isRandomToken(str, n)
}

// units returns the length of the UTF-8 text str in UTF-16 code units
// (JavaScript's length): one per character, two for one outside the BMP.
func units(str []byte) int {
	n := 0
	for _, b := range str {
		switch {
		case b < 0x80:
			n++
		case b >= 0xF0: // starts a 4-byte character: a surrogate pair
			n += 2
		case b >= 0xC0: // starts a 2- or 3-byte character
			n++
		}
	}
	return n
}

// cutUnits returns the longest prefix of str of at most max UTF-16 units that
// does not split a character.
func cutUnits(str []byte, max int) []byte {
	n := 0
	for i := 0; i < len(str); {
		r, size := utf8.DecodeRune(str[i:])
		w := utf16.RuneLen(r) // 1 or 2: decoding yields no surrogates
		if n+w > max {
			return str[:i]
		}
		n += w
		i += size
	}
	return str
}

// AppendJSONString appends src as a JSON string exactly as encoding/json
// writes a string (with or without HTML escaping): invalid UTF-8 becomes
// \ufffd, and U+2028 and U+2029 are always escaped. Summaries are written
// with it; the audit log encodes its entries with it too, so that they are
// byte for byte what json.Marshal writes.
func AppendJSONString[T string | []byte](dst []byte, src T, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		// Convert only a few bytes, which stay on the stack.
		c, size := utf8.DecodeRuneInString(string(src[i:min(len(src), i+utf8.UTFMax)]))
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}
