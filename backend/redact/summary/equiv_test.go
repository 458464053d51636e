package summary

// These tests prove the hand-written summarizer and matchers equal to the
// original ones (ref_test.go): the regular expressions and
// json.Decoder.Token, on generated corpora of keys, strings and JSON
// documents, valid and broken.

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
)

// corpusScale divides the sizes of the generated corpora (see race_test.go).
var corpusScale = 1

// keyWords are the pieces keys are made of: every word of the rules, parts
// of them, separators, and the runes that fold to ASCII letters.
var keyWords = []string{
	"token", "password", "passwd", "secret", "api", "key", "authorization",
	"credential", "private", "access", "content", "data", "body", "source",
	"newText", "text", "_", "-", "__", "tok", "en", "pass", "wd", "word",
	"sec", "ret", "auth", "cred", "priv", "acc", "ess", "x", "id", "url",
	"\u212a", "\u017f", "\u212aey", "\u017fecret", "\u017fource", "to\u212aen",
	"é", "😀", "İ", "ı", "ß", "K", "S", "0", " ", "keys", "apikey", "api_key",
	"api-key", "api--key", "ap", "ikey", "_key", "ccess", "prompt", "system", "Prompt",
}

// randCase changes the case of ASCII letters at random.
func randCase(r *rand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' && r.IntN(3) == 0 {
			b[i] = c - 32
		} else if c >= 'A' && c <= 'Z' && r.IntN(3) == 0 {
			b[i] = c + 32
		}
	}
	return string(b)
}

// genKey returns a key of 0 to 4 pieces, case changed.
func genKey(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(keyWords[r.IntN(len(keyWords))])
	}
	return randCase(r, b.String())
}

// stringPieces build strings for the sensitive-string rules.
var stringPieces = []string{
	"bearer", "Bearer", "BEARER", "beare", "bearer ", " ", "\t", "\n", "\f",
	"\r", "\v", "abcdefghijkl", "ABCDEFGHIJKLMNOP", "0123456789", "-._~+/",
	"=", ",", ":", "a", "b", "\u017f", "\u212a", "é", "😀", "x y",
	"-----BEGIN ", "-----BEGIN", "PRIVATE KEY-----", "PRIVATE KEY", "-----",
	"RSA ", "OPENSSH ", "EC ", "PUBLIC KEY-----", "private key-----", "1 2 ",
	"abcdefghijklmnopqrstuvwxyz012345", "aaaaaaaaaaaaaaaa", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	"<", "&", "\u2028", "\x00", "\x7f", "\"", "\\",
	"--password", "--port", "TOKEN=", "PORT=", "https://", "u:p@", "h/?sig=", "&page=", "password: ", "sk-", "AKIA",
}

// pemPieces build strings around the private key header.
var pemPieces = []string{
	"-----BEGIN ", "-----BEGIN", "-----", "----", "PRIVATE KEY", "PRIVATE KEY-----", "PRIVATE  KEY",
	"private KEY", "RSA ", "EC", "OPENSSH ", "ENCRYPTED ", "A1 ", " ", "-", "x", "\n", "PUBLIC KEY-----",
}

// genString returns a string of pieces, case changed.
func genString(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(10) == 0 {
		for range 1 + r.IntN(6) {
			b.WriteString(pemPieces[r.IntN(len(pemPieces))])
		}
		return b.String()
	}
	for range r.IntN(8) {
		b.WriteString(stringPieces[r.IntN(len(stringPieces))])
	}
	s := b.String()
	if r.IntN(2) == 0 {
		s = randCase(r, s)
	}
	return s
}

// refIsRandomToken is the third test of the original looksSensitive.
func refIsRandomToken(s string) bool {
	if refUnits(s) < 32 || !refTokenLike.MatchString(s) {
		return false
	}
	seen := map[byte]bool{}
	for i := 0; i < len(s); i++ {
		seen[s[i]] = true
	}
	return len(seen) >= 12
}

func TestMatchersEqualRegexps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var keys, strs []string
	for range 200_000 / corpusScale {
		keys = append(keys, genKey(r))
	}
	for range 100_000 / corpusScale {
		strs = append(strs, genString(r))
	}
	// Every single word and separator, alone and around each other.
	for _, a := range keyWords {
		keys = append(keys, a, strings.ToUpper(a))
		for _, b := range keyWords {
			keys = append(keys, a+b)
		}
	}
	hits := map[string]int{}
	for _, k := range keys {
		kb := []byte(k)
		if got, want := isSecretKey(kb), refSecretKey.MatchString(k); got != want {
			t.Fatalf("isSecretKey(%q) = %v, regexp says %v", k, got, want)
		} else if got {
			hits["secret"]++
		}
		if got, want := isTextKey(kb), refTextKey.MatchString(k); got != want {
			t.Fatalf("isTextKey(%q) = %v, regexp says %v", k, got, want)
		} else if got {
			hits["text"]++
		}
	}
	for _, s := range strs {
		sb := []byte(s)
		if got, want := hasBearer(sb), refBearer.MatchString(s); got != want {
			t.Fatalf("hasBearer(%q) = %v, regexp says %v", s, got, want)
		} else if got {
			hits["bearer"]++
		}
		if got, want := hasPrivateKey(sb), refPrivateKey.MatchString(s); got != want {
			t.Fatalf("hasPrivateKey(%q) = %v, regexp says %v", s, got, want)
		} else if got {
			hits["privateKey"]++
		}
		if got, want := isRandomToken(sb, units(sb)), refIsRandomToken(s); got != want {
			t.Fatalf("isRandomToken(%q) = %v, original says %v", s, got, want)
		} else if got {
			hits["randomToken"]++
		}
		if got, want := units(sb), refUnits(s); utf8.ValidString(s) && got != want {
			t.Fatalf("units(%q) = %d, want %d", s, got, want)
		}
	}
	// The corpus must exercise both answers of every matcher.
	for _, m := range []string{"secret", "text", "bearer", "privateKey", "randomToken"} {
		if hits[m] < 100/corpusScale {
			t.Errorf("only %d corpus entries match %s: the corpus is too weak", hits[m], m)
		}
	}
	t.Logf("%d keys and %d strings, matches: %v", len(keys), len(strs), hits)
}

// jsonGen writes random JSON documents, with random whitespace and escapes.
type jsonGen struct {
	r *rand.Rand
	b bytes.Buffer
}

func (g *jsonGen) ws() {
	if g.r.IntN(6) == 0 {
		g.b.WriteString([]string{" ", "\n", "\t", "\r\n ", "  "}[g.r.IntN(5)])
	}
}

// str writes s as a JSON string, escaping some characters that need not be.
func (g *jsonGen) str(s string) {
	g.b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			g.b.WriteString(`\` + string(c))
		case c < 0x20 || g.r.IntN(15) == 0:
			if c > 0xFFFF {
				hi, lo := 0xD800+((c-0x10000)>>10), 0xDC00+((c-0x10000)&0x3FF)
				g.b.WriteString(strings.ToUpper(jsonEsc(hi)) + jsonEsc(lo))
			} else if c == '\n' && g.r.IntN(2) == 0 {
				g.b.WriteString(`\n`)
			} else if c == '/' {
				g.b.WriteString(`\/`)
			} else {
				g.b.WriteString(jsonEsc(c))
			}
		default:
			g.b.WriteRune(c)
		}
	}
	g.b.WriteByte('"')
}

func jsonEsc(c rune) string {
	const hex = "0123456789abcdef"
	return `\u` + string([]byte{hex[c>>12&15], hex[c>>8&15], hex[c>>4&15], hex[c&15]})
}

var numbers = []string{"0", "-0", "1", "-1", "1.50", "1e5", "1E+5", "-2.5e-3", "12345678901234567890", "0.0", "3.14159"}

// value writes a random value nested at most depth more levels.
func (g *jsonGen) value(depth int) {
	g.ws()
	switch k := g.r.IntN(10); {
	case depth > 0 && k < 3:
		g.b.WriteByte('{')
		n := g.r.IntN(6)
		for i := range n {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.ws()
			g.str(genKey(g.r))
			g.ws()
			g.b.WriteByte(':')
			g.value(depth - 1)
		}
		g.ws()
		g.b.WriteByte('}')
	case depth > 0 && k < 5:
		g.b.WriteByte('[')
		n := g.r.IntN(6)
		if depth <= 2 && g.r.IntN(10) == 0 {
			n = 45 + g.r.IntN(15) // around MaxArrayItems
		}
		for i := range n {
			if i > 0 {
				g.b.WriteByte(',')
			}
			if g.r.IntN(6) == 0 { // argv flags, whose next item is their value
				g.ws()
				g.str([]string{"--password", "-token", "--port", "--api-key=x"}[g.r.IntN(4)])
				g.ws()
				continue
			}
			g.value(depth - 1)
		}
		g.ws()
		g.b.WriteByte(']')
	case k < 8:
		s := genString(g.r)
		if g.r.IntN(20) == 0 {
			s = strings.Repeat(s+"é😀 x", 1+g.r.IntN(40)) // around MaxStringLen
		}
		if g.r.IntN(20) == 0 {
			s += "\xff\xfe" // invalid UTF-8
		}
		g.str(s)
	case k < 9:
		g.b.WriteString(numbers[g.r.IntN(len(numbers))])
	default:
		g.b.WriteString([]string{"true", "false", "null"}[g.r.IntN(3)])
	}
	g.ws()
}

// doc returns a random document of nesting at most 10.
func (g *jsonGen) doc() []byte {
	g.b.Reset()
	g.value(1 + g.r.IntN(10))
	return bytes.Clone(g.b.Bytes())
}

// mutate breaks or bends doc: a byte changed, deleted, inserted or the
// end cut off, or garbage appended.
func mutate(r *rand.Rand, doc []byte) []byte {
	d := bytes.Clone(doc)
	junk := []byte(`{}[]",:\ u0tfn-.1eE` + "\x00\xff")
	for range 1 + r.IntN(2) {
		if len(d) == 0 {
			return d
		}
		i := r.IntN(len(d))
		switch r.IntN(5) {
		case 0:
			d[i] = junk[r.IntN(len(junk))]
		case 1:
			d = append(d[:i], d[i+1:]...)
		case 2:
			d = append(d[:i], append([]byte{junk[r.IntN(len(junk))]}, d[i:]...)...)
		case 3:
			d = d[:i]
		case 4:
			d = append(d, junk[r.IntN(len(junk))])
		}
	}
	return d
}

// fixedDocs are edge cases of the JSON grammar and of the rules.
var fixedDocs = []string{
	``, ` `, " \u2028\t\v", "\u00a0", "\u00a0 1", `null`, `nul`, `tru`, `truex`, `[truex]`, `01`, `[01]`, `-`, `-a`, `1.`, `1.e5`, `.5`, `+1`,
	`1e`, `1e+`, `[1,]`, `{"a":1,}`, `[,1]`, `{,}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1]`,
	`[1}`, `{"a"}`, `{1:2}`, `"\x"`, `"\u12"`, `"\u12G4"`, `"a` + "\x01" + `"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ude00"`, `"\ud83d\ud83d\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\'"`,
	`{"a":1} {"b":2}`, `{"a":1}}`, `123abc`, `"a" x`, `{"token":}`, `{"token":tru}`, `{"token":[1,]}`,
	`{"token":{"a":1}} x`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}`,
	`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":}}}}}}}}`, `[[[[[[[{"x":1}]]]]]]]`,
	`{"api\u004bey":"x","to\u212Aen":"y","\u017fecret":1,"ſource":"abc"}`,
	`{"content":"\u2028<&>"}`, `{"k":"` + strings.Repeat("😀", 130) + `"}`,
	`{"a":"` + strings.Repeat("x y ", 70) + "\xff" + `"}`,
	`[` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000) + `]`,
	`{"token":` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000) + `}`,
	`{"token":` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 19999) + `}`,
	`{"path":"a.txt"` + strings.Repeat(`,"f":"x y"`, 2000) + `,"bad":}`,
	`[` + strings.Repeat(`"x y",`, 1000) + `tru]`,
}

// TestSummarizeEqualsOriginal compares Of with the original on the
// edge cases and on generated documents, valid and broken.
func TestSummarizeEqualsOriginal(t *testing.T) {
	check := func(in []byte) {
		t.Helper()
		if got, want := Of(json.RawMessage(in)), refSummarize(json.RawMessage(in)); got != want {
			t.Fatalf("Of(%.300q)\n got %.400q\nwant %.400q", in, got, want)
		}
	}
	for _, d := range fixedDocs {
		check([]byte(d))
	}
	g := &jsonGen{r: rand.New(rand.NewPCG(3, 4))}
	n := 20_000 / corpusScale
	if testing.Short() {
		n /= 10
	}
	markers := 0
	for range n {
		doc := g.doc()
		check(doc)
		for range 3 {
			m := mutate(g.r, doc)
			check(m)
			if Of(json.RawMessage(m)) == UnserializableMarker {
				markers++
			}
		}
	}
	if markers < n/2 {
		t.Errorf("only %d broken documents were refused: the mutations are too weak", markers)
	}
	// Go values go through json.Marshal in both.
	for _, v := range []any{nil, 1.5, "Bearer abcdefghijklmnop", map[string]any{"token": 1, "b": []int{1, 2}},
		struct{ A, Token string }{"<a>", "t"}, []byte("xyz"), make(chan int)} {
		if got, want := Of(v), refSummarize(v); got != want {
			t.Errorf("Of(%#v) = %q, want %q", v, got, want)
		}
	}
}

// TestSummarizeResultEqualsOriginal compares the envelope summary, written
// without marshalling, with the original that marshals it.
func TestSummarizeResultEqualsOriginal(t *testing.T) {
	g := &jsonGen{r: rand.New(rand.NewPCG(5, 6))}
	results := []protocol.ToolResult{
		{OK: true},
		{OK: true, Content: json.RawMessage(`null`)},
		{OK: true, Content: json.RawMessage(` {"a": 1} `)},
		{OK: true, Content: json.RawMessage(`{"a":1} x`)},
		{OK: true, Content: json.RawMessage(`{"a":1}}`)},
		{OK: true, Content: json.RawMessage(`"text"`)},
		{OK: true, Content: json.RawMessage(`["a","b"]`)},
		{OK: true, Content: json.RawMessage(` `)},
		{OK: true, Content: json.RawMessage(`{"token":` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `}`)},
		{OK: true, Content: json.RawMessage(`{"token":` + strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999) + `}`)},
		{OK: true, Content: json.RawMessage(`[` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `]`)},
		{OK: true, Content: json.RawMessage(`{"path":"a.txt"` + strings.Repeat(`,"f":"x y"`, 2000) + `}`)},
		{OK: true, Content: json.RawMessage(`{"path":"a.txt"` + strings.Repeat(`,"f":"x y"`, 2000) + `,"bad":}`)},
		{OK: true, Error: &protocol.ErrorInfo{Code: "X"}},
		{OK: false},
		{OK: false, Content: json.RawMessage(`{"a":1}`)},
		{OK: false, Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "<b>", Details: map[string]any{"authorization": "x", "n": 1}}},
		{OK: false, Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Details: make(chan int)}},
		{OK: false, Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Details: json.RawMessage(`{"bad":}`)}},
		{OK: false, Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Details: json.RawMessage(`{"text":"abc","x":[1,2]}`)}},
	}
	for range 5000 / corpusScale {
		doc := g.doc()
		results = append(results, protocol.ToolResult{OK: true, Content: doc},
			protocol.ToolResult{OK: true, Content: mutate(g.r, doc)},
			protocol.ToolResult{OK: false, Error: &protocol.ErrorInfo{Code: protocol.CodeValidation, Message: genString(g.r), Details: json.RawMessage(doc)}})
	}
	for _, r := range results {
		if got, want := OfResult(r), refSummarizeResult(r); got != want {
			t.Fatalf("OfResult(%.300q)\n got %.400q\nwant %.400q", r.Content, got, want)
		}
	}
}

// FuzzSummarize compares Of and OfResult with the originals
// on any input: go test -fuzz FuzzSummarize ./backend/redact/summary.
func FuzzSummarize(f *testing.F) {
	for _, d := range fixedDocs {
		f.Add([]byte(d))
	}
	g := &jsonGen{r: rand.New(rand.NewPCG(7, 8))}
	for range 50 {
		f.Add(g.doc())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := Of(json.RawMessage(in)), refSummarize(json.RawMessage(in)); got != want {
			t.Fatalf("Of(%q) = %q, want %q", in, got, want)
		}
		r := protocol.ToolResult{OK: true, Content: in}
		if got, want := OfResult(r), refSummarizeResult(r); got != want {
			t.Fatalf("OfResult(content %q) = %q, want %q", in, got, want)
		}
	})
}

// TestAppendJSONStringEqualsEncoder compares the string encoder with
// encoding/json, with and without HTML escaping.
func TestAppendJSONStringEqualsEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var strs []string
	for b := range 256 {
		strs = append(strs, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"é")
	}
	strs = append(strs, "\u2028\u2029", "😀", "\xed\xa0\x80", "\xf0\x9f\x98", "ok")
	for range 20_000 {
		strs = append(strs, genString(r))
	}
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := AppendJSONString(nil, s, true); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q, html) = %s, want %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got := AppendJSONString(nil, []byte(s), false); !bytes.Equal(got, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, buf.Bytes())
		}
	}
}
