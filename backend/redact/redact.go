// Package redact finds secrets inside strings and replaces them with
// [Marker]. It is the one value scanner that every string meith stores or
// shows goes through: the summaries of the audit log and of approval
// requests (backend/redact/summary), every app log message and value
// (backend/applog), the logs that app_get_logs and app_export_bug_report
// read back, and the messages of validation errors.
//
// [String] finds, anywhere in a string:
//
//   - tokens with a known prefix: GitHub (ghp_, gho_, ghu_, ghs_, ghr_,
//     github_pat_), GitLab (glpat-), Slack (xoxb- and the other xox?-),
//     OpenAI and Anthropic (sk-…), Stripe (sk_live_, rk_test_, …), AWS
//     access key ids (AKIA…, ASIA…), Google API keys (AIza…), npm (npm_),
//     Hugging Face (hf_), PyPI (pypi-), JSON Web Tokens (eyJ….eyJ….…) and
//     the credentials after "Bearer";
//   - the userinfo of a URL that has a password (https://user:pw@host
//     becomes https://[REDACTED]@host);
//   - the value of a name=value pair whose name looks secret ([IsSecretName]):
//     query parameters (?access_token=…&sig=…), environment assignments
//     (GITHUB_TOKEN=…, DB_PASSWORD="…") and --flag=value;
//   - the value after a flag whose name looks secret, in a command line
//     (--password hunter2) and in an argv ([Args]);
//   - the value after a secret-looking name and a colon: "password": "x",
//     token: x, Authorization: Basic x (the scheme is kept), Cookie: … (the
//     rest of the line).
//
// It keeps what is not a secret: PORT=3000, https://example.com/a?page=2,
// --port 3000, git object ids, paths. The scan is one pass over the bytes
// without regular expressions; a string with nothing to redact is returned
// as it is, without allocating. Redacting twice gives the same text as
// redacting once.
//
// The rules err on the side of redacting: a name such as max_tokens or a
// word after "token:" in prose is redacted too.
package redact

import (
	"slices"
	"unicode/utf8"
)

// Marker replaces each secret.
const Marker = "[REDACTED]"

// span is the byte range [start, end) of a secret.
type span struct{ start, end int }

// String returns s with the secrets found in it replaced by [Marker]. It
// returns s itself when there is nothing to redact.
func String(s string) string {
	var buf [8]span
	sp := find(s, buf[:0])
	if len(sp) == 0 {
		return s
	}
	return string(apply(make([]byte, 0, len(s)+len(sp)*len(Marker)), s, sp))
}

// Append appends s, with its secrets replaced by [Marker], to dst and
// reports true; when s holds no secret it returns dst unchanged and false,
// so that the caller can use s itself.
func Append[T string | []byte](dst []byte, s T) ([]byte, bool) {
	var buf [8]span
	sp := find(s, buf[:0])
	if len(sp) == 0 {
		return dst, false
	}
	return apply(dst, s, sp), true
}

// apply appends s to dst with the spans replaced by Marker.
func apply[T string | []byte](dst []byte, s T, sp []span) []byte {
	prev := 0
	for _, x := range sp {
		dst = append(dst, s[prev:x.start]...)
		dst = append(dst, Marker...)
		prev = x.end
	}
	return append(dst, s[prev:]...)
}

// Args returns an argv with its secrets redacted: each element as by
// [String], and the element after a secret-looking flag ([IsSecretFlag],
// such as --password) as a whole. It returns args itself when there is
// nothing to redact, else a copy.
func Args(args []string) []string {
	var out []string
	for i, a := range args {
		r := a
		if i > 0 && a != "" && IsSecretFlag(args[i-1]) {
			r = Marker
		} else {
			r = String(a)
		}
		if r != a && out == nil {
			out = slices.Clone(args)
		}
		if out != nil {
			out[i] = r
		}
	}
	if out == nil {
		return args
	}
	return out
}

// IsSecretFlag reports whether arg is a command-line flag, without a
// value, whose name looks secret ([IsSecretName]): --password, -token,
// --api-key. The argument after it is its value.
func IsSecretFlag(arg string) bool {
	if len(arg) < 2 || arg[0] != '-' {
		return false
	}
	name := arg[1:]
	if name[0] == '-' {
		name = name[1:]
	}
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameChar[name[i]] {
			return false
		}
	}
	return IsSecretName(name)
}

// Value returns a JSON-shaped value (what encoding/json decodes into an
// any: maps, slices, strings, numbers, booleans, nil; also []string) with
// its secrets redacted: the value under a key matching [IsSecretKey]
// becomes [Marker] whatever its type, strings go through [String], and a
// slice is redacted as an argv ([Args]). Maps and slices are copied, never
// changed in place.
func Value(v any) any {
	switch x := v.(type) {
	case string:
		return String(x)
	case []string:
		return Args(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if IsSecretKey(k) {
				out[k] = Marker
			} else {
				out[k] = Value(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		afterFlag := false // the item before is a secret-looking flag
		for i, e := range x {
			str, isStr := e.(string)
			if afterFlag && isStr {
				out[i] = Marker
			} else {
				out[i] = Value(e)
			}
			afterFlag = isStr && IsSecretFlag(str)
		}
		return out
	}
	return v
}

// The byte classes of the scan.
const (
	clsAssign = 1 << iota // '=': name=value
	clsColon              // ':': a URL or name: value
	clsDash               // '-': a flag
	clsPrefix             // the first letter of a known token prefix
)

// class holds the classes of each byte; most bytes have none and cost the
// scan one load.
var class = func() (c [256]uint8) {
	c['='] = clsAssign
	c[':'] = clsColon
	c['-'] = clsDash
	for _, r := range prefixRules {
		c[r.prefix[0]] |= clsPrefix
	}
	for _, b := range []byte("eBb") { // JWT, Bearer
		c[b] |= clsPrefix
	}
	return c
}()

// secondByte filters the token check: for each first byte of a prefix, a
// mask of the second bytes (by their low 6 bits) that prefixes continue
// with, so that most words starting with e, s, g, … are passed over at once.
var secondByte = func() (m [256]uint64) {
	add := func(first, second byte) { m[first] |= 1 << (second & 63) }
	for _, r := range prefixRules {
		add(r.prefix[0], r.prefix[1])
	}
	add('e', 'y') // JWT
	for _, b := range "Bb" {
		for _, e := range "Ee" {
			add(byte(b), byte(e)) // Bearer, in any case
		}
	}
	return m
}()

// find appends the spans of the secrets in s to out, in order and without
// overlaps.
func find[T string | []byte](s T, out []span) []span {
	n := len(s)
	for i := 0; i < n; i++ {
		cls := class[s[i]]
		if cls == 0 {
			continue
		}
		var sp span
		switch {
		case cls&clsAssign != 0:
			sp = assignment(s, i)
		case cls&clsColon != 0:
			if i+2 < n && s[i+1] == '/' && s[i+2] == '/' {
				sp = userinfo(s, i)
			} else {
				sp = colonValue(s, i)
			}
		case cls&clsDash != 0 && (i == 0 || isSpace(s[i-1]) || isQuote(s[i-1])):
			sp = flagValue(s, i)
		}
		if sp.end == 0 && cls&clsPrefix != 0 && (i == 0 || !wordChar[s[i-1]]) &&
			i+1 < n && secondByte[s[i]]&(1<<(s[i+1]&63)) != 0 {
			sp = token(s, i)
		}
		if sp.end > sp.start && string(s[sp.start:sp.end]) != Marker {
			out = append(out, sp)
			i = sp.end - 1
		}
	}
	return out
}

// maxName bounds how far back a name is read before '=' or ':'.
const maxName = 128

// nameBefore returns the start of the run of name characters that ends at
// end (exclusive); it equals end when there is none.
func nameBefore[T string | []byte](s T, end int) int {
	j := end
	for j > 0 && end-j < maxName && nameChar[s[j-1]] {
		j--
	}
	return j
}

// trimDashes drops the one or two dashes of a flag from name.
func trimDashes[T string | []byte](name T) T {
	for k := 0; k < 2 && len(name) > 0 && name[0] == '-'; k++ {
		name = name[1:]
	}
	return name
}

// assignment is the value of a name=value pair whose '=' is at i, when the
// name looks secret.
func assignment[T string | []byte](s T, i int) span {
	j := nameBefore(s, i)
	if j == i || !IsSecretName(trimDashes(s[j:i])) {
		return span{}
	}
	query := j > 0 && (s[j-1] == '?' || s[j-1] == '&' || s[j-1] == '#' || s[j-1] == ';')
	return valueAt(s, i+1, query)
}

// valueAt is the value that starts at p: the inside of a quoted value
// (also an escaped one, \"…\"), else the run up to whitespace or a quote
// (and, in a query, up to the next parameter).
func valueAt[T string | []byte](s T, p int, query bool) span {
	n := len(s)
	if p >= n {
		return span{}
	}
	q := s[p]
	escaped := q == '\\' && p+1 < n && isQuote(s[p+1])
	if escaped {
		p++
		q = s[p]
	}
	if isQuote(q) {
		start := p + 1
		end := start
		for end < n && s[end] != q {
			end++
		}
		if escaped && end > start && s[end-1] == '\\' {
			end--
		}
		return span{start, end}
	}
	end := p
	for end < n && !isSpace(s[end]) && !isQuote(s[end]) && !(query && (s[end] == '&' || s[end] == '#')) {
		end++
	}
	return span{p, end}
}

// wordAfter is the value after the spaces or tabs that follow p (at least
// one).
func wordAfter[T string | []byte](s T, p int) span {
	q := p
	for q < len(s) && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	if q == p {
		return span{}
	}
	return valueAt(s, q, false)
}

// flagValue is the value after a flag that starts at i (a '-' at the start
// of a word), when the flag's name looks secret: --password hunter2.
func flagValue[T string | []byte](s T, i int) span {
	end := i
	for end < len(s) && nameChar[s[end]] {
		end++
	}
	if end < len(s) && !isSpace(s[end]) && !isQuote(s[end]) { // --name=value, or not a flag
		return span{}
	}
	name := trimDashes(s[i:end])
	if len(name) == 0 || !IsSecretName(name) {
		return span{}
	}
	return wordAfter(s, end)
}

// colonValue is the value after a secret-looking name and a colon at i:
// "password": "x", token: x, Authorization: Basic x (the scheme is kept),
// Cookie: … (to the end of the line). A name inside a path (/x/secret:) is
// not one.
func colonValue[T string | []byte](s T, i int) span {
	end := i
	if end > 0 && isQuote(s[end-1]) {
		end--
		if end > 0 && s[end-1] == '\\' { // an escaped quote: {\"password\":…}
			end--
		}
	}
	j := nameBefore(s, end)
	if j == end || (j > 0 && (s[j-1] == '/' || s[j-1] == '\\')) {
		return span{}
	}
	name := s[j:end]
	if !IsSecretName(name) {
		return span{}
	}
	if isCookie(name) {
		p := i + 1
		for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
		e := p
		for e < len(s) && s[e] != '\n' && s[e] != '\r' {
			e++
		}
		return span{p, e}
	}
	v := valueAt(s, skipBlanks(s, i+1), false)
	if v.end > v.start && isAuthScheme(s[v.start:v.end]) {
		if w := wordAfter(s, v.end); w.end > w.start {
			return w
		}
	}
	return v
}

// skipBlanks returns the first index at or after p that is not a space or
// a tab.
func skipBlanks[T string | []byte](s T, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// userinfo is the userinfo of the URL whose "://" starts at i, when it
// holds a password (user:password@host).
func userinfo[T string | []byte](s T, i int) span {
	if i == 0 || !isAlpha(s[i-1]) { // a scheme ends with a letter here
		return span{}
	}
	start := i + 3
	at := -1
	colon := false
	for p := start; p < len(s); p++ {
		c := s[p]
		if c == '/' || c == '?' || c == '#' || isSpace(c) || isQuote(c) || c == '<' || c == '>' {
			break
		}
		switch c {
		case '@':
			at = p
		case ':':
			colon = true
		}
	}
	if at < 0 || !colon {
		return span{}
	}
	// The password is in the userinfo, before the last '@'.
	for p := start; p < at; p++ {
		if s[p] == ':' {
			return span{start, at}
		}
	}
	return span{}
}

// prefixRule is a token that starts with prefix and goes on with at least
// min characters of body.
type prefixRule struct {
	prefix string
	min    int
	body   *[256]bool
}

// prefixRules are the known token formats (the body lengths are lower
// bounds of the real ones, so that a cut token is still found).
var prefixRules = []prefixRule{
	{"ghp_", 20, &alnum}, {"gho_", 20, &alnum}, {"ghu_", 20, &alnum}, {"ghs_", 20, &alnum}, {"ghr_", 20, &alnum},
	{"github_pat_", 20, &wordChar},
	{"glpat-", 16, &tokenBody},
	{"xoxa-", 10, &tokenBody}, {"xoxb-", 10, &tokenBody}, {"xoxe-", 10, &tokenBody}, {"xoxo-", 10, &tokenBody},
	{"xoxp-", 10, &tokenBody}, {"xoxr-", 10, &tokenBody}, {"xoxs-", 10, &tokenBody},
	{"sk-", 20, &tokenBody},
	{"sk_live_", 16, &alnum}, {"sk_test_", 16, &alnum}, {"rk_live_", 16, &alnum}, {"rk_test_", 16, &alnum},
	{"AKIA", 16, &upperDigit}, {"ASIA", 16, &upperDigit},
	{"AIza", 30, &tokenBody},
	{"npm_", 30, &alnum},
	{"hf_", 30, &alnum},
	{"pypi-", 50, &tokenBody},
}

// rulesByFirst holds the prefix rules by the first byte of their prefix.
var rulesByFirst = func() (by [256][]prefixRule) {
	for _, r := range prefixRules {
		by[r.prefix[0]] = append(by[r.prefix[0]], r)
	}
	return by
}()

// token is the known token that starts at i (the start of a word).
func token[T string | []byte](s T, i int) span {
	rest := s[i:]
	switch s[i] {
	case 'e':
		return jwt(s, i)
	case 'B', 'b':
		if hasPrefixFold(rest, "bearer") {
			// Bearer, blanks and 12 or more characters of RFC 6750's b64token.
			p := skipBlanks(s, i+6)
			if p == i+6 {
				return span{}
			}
			e := p
			for e < len(s) && b64token[s[e]] {
				e++
			}
			if e-p >= 12 {
				return span{p, e}
			}
			return span{}
		}
	}
	for _, r := range rulesByFirst[s[i]] {
		if len(rest) < len(r.prefix) || string(rest[:len(r.prefix)]) != r.prefix {
			continue
		}
		e := i + len(r.prefix)
		for e < len(s) && r.body[s[e]] {
			e++
		}
		if e-i-len(r.prefix) >= r.min {
			// The whole token: a body may go on with other token characters.
			for e < len(s) && tokenBody[s[e]] {
				e++
			}
			return span{i, e}
		}
	}
	return span{}
}

// jwt is the JSON Web Token that starts at i: three base64url segments
// joined by dots, the first two starting with eyJ (`{"`), the first two at
// least 10 characters long, the third possibly empty (alg none).
func jwt[T string | []byte](s T, i int) span {
	e := i
	for seg := 0; seg < 3; seg++ {
		p := e
		if seg < 2 && (len(s)-p < 3 || string(s[p:p+3]) != "eyJ") {
			return span{}
		}
		for e < len(s) && tokenBody[s[e]] {
			e++
		}
		if seg < 2 && e-p < 10 {
			return span{}
		}
		if seg < 2 {
			if e >= len(s) || s[e] != '.' {
				return span{}
			}
			e++
		}
	}
	return span{i, e}
}

// IsSecretName reports whether name (of a query parameter, an environment
// variable, a flag or a field) looks secret: it matches [IsSecretKey], is
// one of key, sig, signature, auth, pass, pw, jwt, cookie (any case), or
// ends with one of them after '_', '-' or '.' (SIGNING_KEY, X-Amz-Signature,
// SMTP_PASS). pwd alone is the shell's working directory and stays.
func IsSecretName[T string | []byte](name T) bool {
	if IsSecretKey(name) {
		return true
	}
	// The last word, after the last separator.
	w := name
	for k := len(name) - 1; k >= 0; k-- {
		if c := name[k]; c == '_' || c == '-' || c == '.' {
			w = name[k+1:]
			break
		}
	}
	for _, word := range secretWords {
		if len(w) == len(word) && hasPrefixFold(w, word) {
			return true
		}
	}
	return len(w) < len(name) && len(w) == 3 && hasPrefixFold(w, "pwd")
}

// secretWords are the names (or last words of names) that are secret on
// their own.
var secretWords = []string{"key", "sig", "signature", "auth", "pass", "pw", "jwt", "cookie"}

// isCookie reports whether name is a cookie header (Cookie, Set-Cookie).
func isCookie[T string | []byte](name T) bool {
	return len(name) >= 6 && hasPrefixFold(name[len(name)-6:], "cookie")
}

// isAuthScheme reports whether w is an HTTP authentication scheme that
// precedes the credentials.
func isAuthScheme[T string | []byte](w T) bool {
	for _, scheme := range []string{"basic", "bearer", "token", "digest", "negotiate", "ntlm", "bot"} {
		if len(w) == len(scheme) && hasPrefixFold(w, scheme) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s begins with p, a lowercase ASCII word,
// ignoring ASCII case.
func hasPrefixFold[T string | []byte](s T, p string) bool {
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

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// Byte sets.
var (
	alnum      = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
	upperDigit = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	// wordChar is [A-Za-z0-9_]: a token starts where the byte before is
	// not one.
	wordChar = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
	// tokenBody is [A-Za-z0-9_-].
	tokenBody = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
	// nameChar is what names of parameters, variables and flags are made
	// of.
	nameChar = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
	// b64token is RFC 6750's b64token, with '=' padding.
	b64token = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
)

// byteSet returns the set of chars.
func byteSet(chars string) (set [256]bool) {
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return set
}

// IsSecretKey reports whether a JSON key names a value that is always
// redacted, whatever its type:
//
//	(?i)(token|password|passwd|secret|api[_-]?key|authorization|credential|private[_-]?key|access[_-]?key)
//
// Case-insensitive matching follows Go's regexp (?i), which folds with
// unicode.SimpleFold: besides the ASCII pairs, KELVIN SIGN (U+212A) matches
// k and LATIN SMALL LETTER LONG S (U+017F) matches s.
func IsSecretKey[T string | []byte](key T) bool {
	if len(key) < 5 { // the shortest word, token, has 5 letters
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return isSecretKeyASCII(FoldRunes([]byte(key)))
		}
	}
	return isSecretKeyASCII(key)
}

// isSecretKeyASCII is IsSecretKey of a key of ASCII bytes (or folded
// runes, see FoldRunes).
func isSecretKeyASCII[T string | []byte](key T) bool {
	for i := 0; i+5 <= len(key); i++ {
		rest := key[i+1:]
		switch key[i] | 0x20 {
		case 't':
			if hasPrefixFold(rest, "oken") {
				return true
			}
		case 'p':
			if hasPrefixFold(rest, "asswd") || hasPrefixFold(rest, "assword") ||
				(hasPrefixFold(rest, "rivate") && hasKeySuffix(rest[6:])) {
				return true
			}
		case 's':
			if hasPrefixFold(rest, "ecret") {
				return true
			}
		case 'a':
			if (hasPrefixFold(rest, "pi") && hasKeySuffix(rest[2:])) ||
				hasPrefixFold(rest, "uthorization") ||
				(hasPrefixFold(rest, "ccess") && hasKeySuffix(rest[5:])) {
				return true
			}
		case 'c':
			if hasPrefixFold(rest, "redential") {
				return true
			}
		}
	}
	return false
}

// hasKeySuffix matches the start of s against [_-]?key, case-insensitively.
func hasKeySuffix[T string | []byte](s T) bool {
	if len(s) > 0 && (s[0] == '_' || s[0] == '-') {
		s = s[1:]
	}
	return hasPrefixFold(s, "key")
}

// NoFold stands for a rune that folds to no ASCII character in
// [FoldRunes].
const NoFold = 0xFF

// FoldRunes returns s with one byte per rune: ASCII as it is, U+212A as 'k',
// U+017F as 's', and every other rune (or invalid byte) as [NoFold]. ASCII
// matchers that compare letters with b|0x20 then match the folded bytes
// exactly as regexp's (?i) matches the runes.
func FoldRunes(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			out = append(out, s[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch r {
		case '\u212a':
			out = append(out, 'k')
		case '\u017f':
			out = append(out, 's')
		default:
			out = append(out, NoFold)
		}
		i += size
	}
	return out
}
