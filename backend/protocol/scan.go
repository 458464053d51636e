package protocol

import (
	"encoding/json"
	"unicode/utf8"
)

// The socket reads a frame per call, so the common frames are decoded by a
// scanner written for them instead of reflection: scanClient accepts the
// plain shape that clients write (the known keys once each, strings without
// escapes, protocol 1, an integer timeoutMs) and reports ok false for
// anything else, which then takes the encoding/json path and its precise
// errors. For every frame it accepts it gives what json.Unmarshal gives
// (FuzzScanClient checks that).

// frameScanner reads one JSON value at a time from b.
type frameScanner struct {
	b []byte
	i int
}

func (s *frameScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c (after white space).
func (s *frameScanner) byte(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek returns the next byte after white space (0 at the end).
func (s *frameScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// plainString reads a string without escapes or control characters whose
// bytes are valid UTF-8, as a slice of b.
func (s *frameScanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// uint reads a non-negative integer of at most 18 digits (no sign, fraction
// or exponent).
func (s *frameScanner) uint() (int64, bool) {
	s.ws()
	start, n := s.i, int64(0)
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}

// next starts the next member of an object: after '{' (first) or a member,
// it reads the key and its colon. end is true at the closing brace; ok is
// false on anything else.
func (s *frameScanner) next(first bool) (key []byte, end, ok bool) {
	if s.byte('}') {
		return nil, true, true
	}
	if !first && !s.byte(',') {
		return nil, false, false
	}
	k, ok := s.plainString()
	if !ok || !s.byte(':') {
		return nil, false, false
	}
	return k, false, true
}

// str reads a plain string value into dst.
func (s *frameScanner) str(dst *string) bool {
	v, ok := s.plainString()
	*dst = string(v)
	return ok
}

// rawObject returns the next value, which must be an object, as a slice of
// b. It finds the end by matching brackets outside strings; json.Valid
// checks anything but {}.
func (s *frameScanner) rawObject() ([]byte, bool) {
	if s.peek() != '{' {
		return nil, false
	}
	start, depth := s.i, 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				v := s.b[start:s.i]
				if string(v) != "{}" && !json.Valid(v) {
					return nil, false
				}
				return v, true
			}
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
		}
		s.i++
	}
	return nil, false
}

// scanClient decodes the plain shape of a client frame into w. ok is false
// when the frame is anything else (a duplicate or unknown key, an escape,
// null, another protocol, a number that is not a plain integer…).
func scanClient(raw []byte) (w wireClient, ok bool) {
	s := frameScanner{b: raw}
	if !s.byte('{') {
		return wireClient{}, false
	}
	var seen uint16
	var ci ClientInfo
	var timeout int64
	for first := true; ; first = false {
		key, end, ok := s.next(first)
		if !ok {
			return wireClient{}, false
		}
		if end {
			break
		}
		var bit uint16
		switch string(key) {
		case "type":
			var v []byte
			v, ok = s.plainString()
			bit, w.Type = 1<<0, internType(v)
		case "protocol":
			v, vok := s.uint()
			one := Version(ProtocolVersion)
			bit, ok, w.Protocol = 1<<1, vok && v == ProtocolVersion, &one
		case "requestId":
			bit, ok = 1<<2, s.str(&w.RequestID)
		case "toolName":
			bit, ok = 1<<3, s.str(&w.ToolName)
		case "arguments":
			v, vok := s.rawObject()
			// raw is the reader's buffer: the arguments get their own.
			bit, ok, w.Arguments = 1<<4, vok, append(json.RawMessage(nil), v...)
		case "timeoutMs":
			timeout, ok = s.uint()
			bit, w.TimeoutMs = 1<<5, &timeout
		case "clientInfo":
			bit, ok, w.ClientInfo = 1<<6, s.clientInfo(&ci), &ci
		default:
			return wireClient{}, false
		}
		if !ok || seen&bit != 0 {
			return wireClient{}, false
		}
		seen |= bit
	}
	s.ws()
	return w, s.i == len(s.b)
}

// clientInfo reads the plain shape of a clientInfo object.
func (s *frameScanner) clientInfo(ci *ClientInfo) bool {
	if !s.byte('{') {
		return false
	}
	var seen uint8
	for first := true; ; first = false {
		key, end, ok := s.next(first)
		if !ok {
			return false
		}
		if end {
			return true
		}
		var bit uint8
		switch string(key) {
		case "caller":
			var v []byte
			v, ok = s.plainString()
			bit, ci.Caller = 1<<0, internCaller(v)
		case "cwd":
			bit, ok = 1<<1, s.str(&ci.Cwd)
		case "sessionId":
			bit, ok = 1<<2, s.str(&ci.SessionID)
		case "spaceId":
			bit, ok = 1<<3, s.str(&ci.SpaceID)
		case "tabId":
			bit, ok = 1<<4, s.str(&ci.TabID)
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// internType returns the frame type v names without allocating for the
// client frames.
func internType(v []byte) string {
	switch string(v) {
	case string(TypeToolCall):
		return string(TypeToolCall)
	case string(TypeCancelToolCall):
		return string(TypeCancelToolCall)
	case string(TypeListTools):
		return string(TypeListTools)
	}
	return string(v)
}

// internCaller returns the caller v names without allocating for the
// known ones.
func internCaller(v []byte) Caller {
	for _, c := range Callers {
		if string(v) == string(c) {
			return c
		}
	}
	return Caller(v)
}
