package summary

// The original implementation of the redaction rules, kept as the oracle of
// the tests that prove the hand-written summarizer and matchers equal to it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"unicode/utf16"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
)

var (
	// refSecretKey matches keys whose values are always redacted, at any depth.
	refSecretKey = regexp.MustCompile(`(?i)(token|password|passwd|secret|api[_-]?key|authorization|credential|private[_-]?key|access[_-]?key)`)
	// refTextKey matches keys whose string values are large text payloads.
	refTextKey = regexp.MustCompile(`(?i)^(content|data|body|source|newText|text|prompt|systemPrompt)$`)
	// refBearer matches "bearer" + whitespace + 12 or more token characters
	// (the b64token alphabet of RFC 6750).
	refBearer = regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9\-._~+/]{12,}`)
	// refPrivateKey matches a PEM private key header.
	refPrivateKey = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)
	// refTokenLike matches strings made only of token characters.
	refTokenLike = regexp.MustCompile(`^[A-Za-z0-9+/=_.,:-]+$`)
)

// refSummarize is the original Summarize, built on json.Decoder.Token and
// regular expressions: the oracle the hand-written one is compared with.
func refSummarize(v any) string {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = []byte("null")
		}
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return UnserializableMarker
		}
		raw = b
	}
	s := refSummarizer{dec: json.NewDecoder(bytes.NewReader(raw))}
	s.dec.UseNumber()
	err := s.value("", 0)
	if err != nil && !errors.Is(err, refErrFull) {
		return UnserializableMarker
	}
	return refCapUnits(s.out.String(), MaxSummaryLen, truncatedSuffix)
}

// refErrFull stops a summary early once it is certainly over MaxSummaryLen: the
// capped result is a prefix of the output, so the rest need not be built.
var refErrFull = errors.New("summary is full")

// refFullBytes is a byte length past which the output certainly has more than
// MaxSummaryLen UTF-16 units (a UTF-8 character has at most 3 bytes per unit).
const refFullBytes = 3*MaxSummaryLen + 3

// refSummarizer streams the input's tokens into the redacted output.
type refSummarizer struct {
	dec  *json.Decoder
	out  bytes.Buffer
	flag bool // the last value was a string that is a secret-looking flag
}

// value reads one JSON value under key (the nearest object key, "" at the
// top) at depth and writes its redacted form.
func (s *refSummarizer) value(key string, depth int) error {
	if s.out.Len() > refFullBytes {
		return refErrFull
	}
	if key != "" && refSecretKey.MatchString(key) {
		if err := s.skip(); err != nil {
			return err
		}
		s.writeString(RedactedMarker)
		return nil
	}
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	return s.valueOf(key, depth, tok)
}

// valueOf writes the redacted form of the value that starts with tok.
func (s *refSummarizer) valueOf(key string, depth int, tok json.Token) error {
	s.flag = false
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			if depth > MaxDepth {
				if err := s.skipRest(1); err != nil {
					return err
				}
				s.writeString(DeepObjectMarker)
				return nil
			}
			defer func() { s.flag = false }() // only a string item is a flag
			return s.object(depth)
		case '[':
			defer func() { s.flag = false }()
			return s.array(key, depth)
		}
		return fmt.Errorf("unexpected %v", t)
	case string:
		red := refRedactString(key, t)
		s.writeString(red)
		s.flag = red == redact.String(t) && redact.IsSecretFlag(red)
	case json.Number:
		s.out.WriteString(t.String())
	case bool:
		if t {
			s.out.WriteString("true")
		} else {
			s.out.WriteString("false")
		}
	case nil:
		s.out.WriteString("null")
	}
	return nil
}

// object writes the members of an object whose '{' was read.
func (s *refSummarizer) object(depth int) error {
	s.out.WriteByte('{')
	for first := true; s.dec.More(); first = false {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		k, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key is %T", tok)
		}
		if !first {
			s.out.WriteByte(',')
		}
		s.writeString(k)
		s.out.WriteByte(':')
		if err := s.value(k, depth+1); err != nil {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // '}'
		return err
	}
	s.out.WriteByte('}')
	return nil
}

// array writes the first MaxArrayItems items of an array whose '[' was read;
// the items inherit key.
func (s *refSummarizer) array(key string, depth int) error {
	s.out.WriteByte('[')
	flag := false // the item before is a secret-looking flag
	for i := 0; s.dec.More(); i++ {
		if i >= MaxArrayItems {
			if err := s.skip(); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			s.out.WriteByte(',')
		}
		afterFlag := flag
		flag = false
		if afterFlag && !refSecretKey.MatchString(key) {
			// The value of a flag such as --password in an argv.
			if s.out.Len() > refFullBytes {
				return refErrFull
			}
			tok, err := s.dec.Token()
			if err != nil {
				return err
			}
			if _, ok := tok.(string); ok {
				s.writeString(RedactedMarker)
				continue
			}
			if err := s.valueOf(key, depth+1, tok); err != nil {
				return err
			}
			continue
		}
		if err := s.value(key, depth+1); err != nil {
			return err
		}
		flag = s.flag
	}
	if _, err := s.dec.Token(); err != nil { // ']'
		return err
	}
	s.out.WriteByte(']')
	return nil
}

// skip consumes one whole value.
func (s *refSummarizer) skip() error {
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return s.skipRest(1)
	}
	return nil
}

// skipRest consumes tokens until depth open containers are closed.
func (s *refSummarizer) skipRest(depth int) error {
	for depth > 0 {
		tok, err := s.dec.Token()
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return nil
}

// writeString writes str as a JSON string, without HTML escaping (as
// JSON.stringify does).
func (s *refSummarizer) writeString(str string) {
	enc := json.NewEncoder(&s.out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(str) // a string always encodes
	s.out.Truncate(s.out.Len() - 1)
}

// refRedactString applies the string rules to str found under key.
func refRedactString(key, str string) string {
	n := refUnits(str)
	switch {
	case key != "" && refTextKey.MatchString(key):
		return fmt.Sprintf("[REDACTED_TEXT %d chars]", n)
	case refLooksSensitive(str, n):
		return RedactedMarker
	}
	// The secrets inside the string, before it is cut.
	str = redact.String(str)
	n = refUnits(str)
	switch {
	case n > MaxStringLen:
		kept := refCutUnits(str, MaxStringLen)
		return kept + fmt.Sprintf("...[truncated %d chars]", n-refUnits(kept))
	}
	return str
}

// refLooksSensitive reports whether str (of n UTF-16 units) looks like a bearer
// token, a private key or a long random token.
func refLooksSensitive(str string, n int) bool {
	if refBearer.MatchString(str) || refPrivateKey.MatchString(str) {
		return true
	}
	if n < 32 || !refTokenLike.MatchString(str) {
		return false
	}
	var seen [128]bool // refTokenLike guarantees ASCII
	distinct := 0
	for i := 0; i < len(str); i++ {
		if !seen[str[i]] {
			seen[str[i]] = true
			distinct++
		}
	}
	return distinct >= 12
}

// refUnits returns the length of str in UTF-16 code units (JavaScript's length).
func refUnits(str string) int {
	n := 0
	for _, r := range str {
		n += utf16.RuneLen(r)
	}
	return n
}

// refCutUnits returns the longest prefix of str of at most max UTF-16 units that
// does not split a character.
func refCutUnits(str string, max int) string {
	n := 0
	for i, r := range str {
		w := utf16.RuneLen(r) // 1 or 2: ranging yields no surrogates
		if n+w > max {
			return str[:i]
		}
		n += w
	}
	return str
}

// refCapUnits returns str when it has at most max UTF-16 units, else its first
// max units followed by suffix.
func refCapUnits(str string, max int, suffix string) string {
	if len(str) <= max { // bytes >= units
		return str
	}
	if cut := refCutUnits(str, max); len(cut) < len(str) {
		return cut + suffix
	}
	return str
}

// refSummarizeResult is the original of OfResult: it marshals the
// envelope {ok, content} or {ok, error} and summarizes that.
func refSummarizeResult(r protocol.ToolResult) string {
	env := struct {
		OK      bool                `json:"ok"`
		Content json.RawMessage     `json:"content,omitempty"`
		Error   *protocol.ErrorInfo `json:"error,omitempty"`
	}{OK: r.OK}
	if r.OK {
		env.Content = r.Content
	} else {
		env.Error = r.Error
	}
	raw, err := json.Marshal(env)
	if err != nil {
		return UnserializableMarker
	}
	return refSummarize(json.RawMessage(raw))
}
