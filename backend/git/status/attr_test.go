package status

import (
	"slices"
	"testing"
)

// TestQuotedAttributePatterns: a pattern in double quotes is C-quoted, as
// git's attr.c reads it (unquote_c_style): escapes and octal bytes are
// decoded, the attributes follow the closing quote, and a line whose
// quoting is broken is skipped.
func TestQuotedAttributePatterns(t *testing.T) {
	rules := parseAttributes([]byte("\"with space.txt\" text\n"+
		"\"tab\\there.txt\" -text\n"+
		"\"q\\\"uote.txt\" eol=crlf\n"+
		"\"caf\\303\\251.txt\" binary\n"+
		"\"broken\\q.txt\" text\n"+
		"\"unterminated.txt text\n"+
		"plain.txt text\n"), "", true)
	var got []string
	for _, r := range rules {
		var names []string
		for _, a := range r.assigns {
			names = append(names, a.name)
		}
		got = append(got, r.pat.pattern+" "+names[0])
	}
	want := []string{"with space.txt text", "tab\there.txt text", "q\"uote.txt eol", "café.txt binary", "plain.txt text"}
	if !slices.Equal(got, want) {
		t.Errorf("parseAttributes = %q, want %q", got, want)
	}
}
