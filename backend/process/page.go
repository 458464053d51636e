package process

import (
	"unicode/utf8"
)

// MaxLogPageBytes bounds one answer of a process's log ([Manager.LogPage],
// the OutputHandler): the entries' JSON encoding stays under it, so the
// answer fits in one socket frame (8 MiB) with room to spare.
const MaxLogPageBytes = 4 << 20

// outputPageBytes bounds one answer of the OutputHandler (the window
// draws it in one go).
const outputPageBytes = 1 << 20

// entryJSONOverhead bounds the JSON of a LogEntry besides its text's:
// {"seq":N,"stream":"stdout","text":"","ts":N}, and a comma.
const entryJSONOverhead = 96

// LogQuery says which part of a process's log [Manager.LogPage] returns.
type LogQuery struct {
	// After keeps the entries with a greater seq (0: all held).
	After int64
	// Limit keeps the newest Limit of those (0: all).
	Limit int
	// MaxBytes bounds the JSON encoding of the entries returned (0 or
	// more than MaxLogPageBytes: MaxLogPageBytes).
	MaxBytes int
	// Newest keeps the newest entries that fit when they do not all fit;
	// by default the oldest are kept (to page forward with After).
	Newest bool
}

// LogPage is one bounded answer of a process's log.
type LogPage struct {
	// Entries are in seq order.
	Entries []LogEntry `json:"entries"`
	// NextSeq is the seq the next entry will get.
	NextSeq int64 `json:"nextSeq"`
	// Truncated says some of the entries asked for were left out to keep
	// the answer under its byte bound: the newest (ask again with After set
	// to the last entry's seq) or, with Newest, the oldest (ask with After
	// below the first entry's seq).
	Truncated bool `json:"truncated"`
}

// LogPage returns the entries of a dev server or terminal that q asks for,
// at most q.MaxBytes of them (as JSON); at least one entry when any is
// asked for (one entry's JSON is at most 6 × 64 KiB).
func (m *Manager) LogPage(id string, q LogQuery) (LogPage, error) {
	r, _, err := m.ring(id)
	if err != nil {
		return LogPage{}, err
	}
	entries, next := r.since(q.After, q.Limit)
	kept, truncated := fitJSON(entries, q.MaxBytes, q.Newest)
	return LogPage{Entries: kept, NextSeq: next, Truncated: truncated}, nil
}

// fitJSON keeps the oldest (or, with newest, the newest) entries whose JSON
// encoding fits in maxBytes (0: MaxLogPageBytes), at least one, and
// reports whether any were left out.
func fitJSON(entries []LogEntry, maxBytes int, newest bool) ([]LogEntry, bool) {
	if maxBytes <= 0 || maxBytes > MaxLogPageBytes {
		maxBytes = MaxLogPageBytes
	}
	total, n := 0, 0
	for n < len(entries) {
		i := n
		if newest {
			i = len(entries) - 1 - n
		}
		size := entryJSONOverhead + jsonTextLen(entries[i].Text)
		if n > 0 && total+size > maxBytes {
			break
		}
		total += size
		n++
	}
	if n == len(entries) {
		return entries, false
	}
	if newest {
		return entries[len(entries)-n:], true
	}
	return entries[:n], true
}

// jsonTextLen bounds the length of s as a JSON string body encoded by
// encoding/json (HTML-escaped, invalid UTF-8 as \ufffd): at most 6 × len(s).
func jsonTextLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
