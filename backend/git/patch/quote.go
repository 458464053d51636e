package patch

import "strings"

// cqEscape gives the escape letter git's quote_c_style uses for a byte, 1
// for an octal escape, or 0 when the byte is written as is (core.quotePath
// is on, git's default, so bytes from 0x80 up are octal-escaped too).
func cqEscape(c byte) byte {
	switch c {
	case '\a':
		return 'a'
	case '\b':
		return 'b'
	case '\t':
		return 't'
	case '\n':
		return 'n'
	case '\v':
		return 'v'
	case '\f':
		return 'f'
	case '\r':
		return 'r'
	case '"':
		return '"'
	case '\\':
		return '\\'
	}
	if c < 0x20 || c >= 0x7f {
		return 1
	}
	return 0
}

// quotePath writes prefix+name the way git writes a path in a patch header:
// as is, or C-quoted ("a/t\tab\303\251") when name has a byte that needs
// quoting.
func quotePath(prefix, name string) string {
	quote := false
	for i := 0; i < len(name); i++ {
		if cqEscape(name[i]) != 0 {
			quote = true
			break
		}
	}
	if !quote {
		return prefix + name
	}
	var b strings.Builder
	b.WriteByte('"')
	b.WriteString(prefix)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch e := cqEscape(c); e {
		case 0:
			b.WriteByte(c)
		case 1:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + (c>>3)&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// UnquoteC decodes a C-quoted string at the start of s (git's
// unquote_c_style: a quoted path in a patch header, a quoted pattern in
// .gitattributes) and returns it with the rest of s after the closing
// quote; ok is false when s does not start with a well-formed one.
func UnquoteC(s string) (name, rest string, ok bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", s, false
			}
			e := s[i+1]
			i += 2
			switch e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\\', '"':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				if i+1 >= len(s) || !isOctal(s[i]) || !isOctal(s[i+1]) {
					return "", s, false
				}
				b.WriteByte((e-'0')<<6 | (s[i]-'0')<<3 | (s[i+1] - '0'))
				i += 2
			default:
				return "", s, false
			}
		case '\n', 0:
			return "", s, false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", s, false
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
