package template

import (
	"strings"
	"unicode"
)

// MaxSlugBytes bounds the length of a slug.
const MaxSlugBytes = 64

// Slug turns a project name into a folder and package name: lowercase ASCII
// letters and digits in words joined by single hyphens, at most
// [MaxSlugBytes] long, cut at a word edge where there is one ("My New App"
// → "my-new-app"). Latin letters with
// accents lose them ("Crème Brûlée" → "creme-brulee"), apostrophes vanish
// ("Bob's App" → "bobs-app"), everything else (spaces, punctuation, path
// separators, "..", other scripts) separates words. A name left with nothing
// becomes "meith-app"; a name Windows reserves for a device ("con", "nul",
// "com1", …) gets "-app" added so the folder can be copied anywhere.
func Slug(name string) string {
	var b strings.Builder
	pending := false // a separator was seen since the last word character
	for _, r := range name {
		if b.Len() > MaxSlugBytes {
			break // enough to know where to cut
		}
		if r == '\'' || r == '’' {
			continue
		}
		s := foldRune(r)
		if s == "" {
			pending = true
			continue
		}
		if pending && b.Len() > 0 {
			b.WriteByte('-')
		}
		pending = false
		b.WriteString(s)
	}
	slug := b.String()
	if len(slug) > MaxSlugBytes {
		cut := slug[:MaxSlugBytes]
		if slug[MaxSlugBytes] != '-' { // mid-word: cut at the last word edge, if any
			if i := strings.LastIndexByte(cut, '-'); i > 0 {
				cut = cut[:i]
			}
		}
		slug = strings.TrimSuffix(cut, "-")
	}
	switch {
	case slug == "":
		return "meith-app"
	case reservedNames[slug]:
		return slug + "-app"
	}
	return slug
}

// foldRune returns r as lowercase ASCII letters or digits, or "" when r
// separates words.
func foldRune(r rune) string {
	r = unicode.ToLower(r)
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		return string(r)
	case r < 0x80:
		return ""
	}
	return latinFold[r]
}

// latinFold maps the lowercase letters of Latin-1 and Latin Extended-A to
// ASCII.
var latinFold = func() map[rune]string {
	m := make(map[rune]string)
	for _, e := range []struct{ from, to string }{
		{"àáâãäåāăą", "a"}, {"æ", "ae"}, {"çćĉċč", "c"}, {"ďđð", "d"},
		{"èéêëēĕėęě", "e"}, {"ĝğġģ", "g"}, {"ĥħ", "h"}, {"ìíîïĩīĭįı", "i"},
		{"ĳ", "ij"}, {"ĵ", "j"}, {"ķĸ", "k"}, {"ĺļľŀł", "l"}, {"ñńņňŉŋ", "n"},
		{"òóôõöøōŏő", "o"}, {"œ", "oe"}, {"ŕŗř", "r"}, {"śŝşšſ", "s"}, {"ß", "ss"},
		{"ţťŧ", "t"}, {"þ", "th"}, {"ùúûüũūŭůűų", "u"}, {"ŵ", "w"}, {"ýÿŷ", "y"},
		{"źżž", "z"},
	} {
		for _, r := range e.from {
			m[r] = e.to
		}
	}
	return m
}()

// reservedNames are the device names Windows refuses as file names.
var reservedNames = func() map[string]bool {
	m := map[string]bool{"con": true, "prn": true, "aux": true, "nul": true}
	for _, d := range "123456789" {
		m["com"+string(d)] = true
		m["lpt"+string(d)] = true
	}
	return m
}()
