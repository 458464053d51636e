package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("ab c", 100) // 400 chars, spaces keep it from looking like a token
	emoji := strings.Repeat("😀", 130)   // 260 UTF-16 units
	var sixty []string
	for i := range 60 {
		sixty = append(sixty, fmt.Sprint(i))
	}
	tests := []struct {
		name string
		in   string // JSON
		want string
	}{
		{"plain values keep their text", `{"n":1.50,"b":true,"z":null,"s":"hi"}`, `{"n":1.50,"b":true,"z":null,"s":"hi"}`},
		{"key order kept", `{"zeta":1,"alpha":2,"mid":{"y":1,"b":2}}`, `{"zeta":1,"alpha":2,"mid":{"y":1,"b":2}}`},
		{"whitespace compacted", "{ \"a\" : [ 1 , 2 ] }", `{"a":[1,2]}`},
		{"html not escaped", `{"q":"<a href=x>&amp;</a>"}`, `{"q":"<a href=x>&amp;</a>"}`},
		{"top-level scalar", `"hello"`, `"hello"`},

		// Secret-looking keys, at any depth and whatever the value.
		{"apiKey", `{"apiKey":"abc"}`, `{"apiKey":"[REDACTED]"}`},
		{"api_key and API-KEY", `{"api_key":"a","API-KEY":"b"}`, `{"api_key":"[REDACTED]","API-KEY":"[REDACTED]"}`},
		{"password passwd", `{"password":"p","passwd":"q"}`, `{"password":"[REDACTED]","passwd":"[REDACTED]"}`},
		{"token inside a word", `{"githubToken":"t","refresh_token":"u"}`, `{"githubToken":"[REDACTED]","refresh_token":"[REDACTED]"}`},
		{"secret credential authorization", `{"clientSecret":"s","credentials":"c","Authorization":"x"}`,
			`{"clientSecret":"[REDACTED]","credentials":"[REDACTED]","Authorization":"[REDACTED]"}`},
		{"private and access keys", `{"private_key":"k","privateKey":"k","accessKey":"a","access-key":"a"}`,
			`{"private_key":"[REDACTED]","privateKey":"[REDACTED]","accessKey":"[REDACTED]","access-key":"[REDACTED]"}`},
		{"case folds beyond ASCII, as regexp (?i)", `{"ſecret":"s","toKen":"t","tokens":"u"}`,
			`{"ſecret":"[REDACTED]","toKen":"[REDACTED]","tokens":"[REDACTED]"}`},
		{"escaped key", `{"api\u004bey":"k"}`, `{"apiKey":"[REDACTED]"}`},
		{"secret key with object value", `{"secret":{"a":1}}`, `{"secret":"[REDACTED]"}`},
		{"secret key with number value", `{"token":12345}`, `{"token":"[REDACTED]"}`},
		{"secret key with array value", `{"tokens":["a","b"]}`, `{"tokens":"[REDACTED]"}`},
		{"secret key deep", `{"a":{"b":[{"password":"p","ok":1}]}}`, `{"a":{"b":[{"password":"[REDACTED]","ok":1}]}}`},

		// Text payload keys: exact names, case-insensitive, strings only.
		{"content", `{"content":"hello"}`, `{"content":"[REDACTED_TEXT 5 chars]"}`},
		{"text keys", `{"data":"ab","BODY":"abc","source":"","newText":"x","text":"four"}`,
			`{"data":"[REDACTED_TEXT 2 chars]","BODY":"[REDACTED_TEXT 3 chars]","source":"[REDACTED_TEXT 0 chars]","newText":"[REDACTED_TEXT 1 chars]","text":"[REDACTED_TEXT 4 chars]"}`},
		{"text key with a folding rune", `{"ſource":"abc"}`, `{"ſource":"[REDACTED_TEXT 3 chars]"}`},
		{"text length in UTF-16 units", `{"text":"é😀"}`, `{"text":"[REDACTED_TEXT 3 chars]"}`},
		{"not exact text key", `{"contents":"hello","oldText":"x"}`, `{"contents":"hello","oldText":"x"}`},
		{"number under text key", `{"data":42}`, `{"data":42}`},
		{"object under text key recurses", `{"content":{"path":"a.txt","text":"xyz"}}`, `{"content":{"path":"a.txt","text":"[REDACTED_TEXT 3 chars]"}}`},
		{"array items inherit the key", `{"text":["ab","cde",3]}`, `{"text":["[REDACTED_TEXT 2 chars]","[REDACTED_TEXT 3 chars]",3]}`},
		{"nested array items inherit the key", `{"body":[["ab"]]}`, `{"body":[["[REDACTED_TEXT 2 chars]"]]}`},

		// Sensitive-looking strings.
		{"bearer token", `{"header":"Bearer abcdefghijkl1234"}`, `{"header":"[REDACTED]"}`},
		{"bearer in a sentence", `{"note":"use bearer\tAAAABBBBCCCC.dd-ee now"}`, `{"note":"[REDACTED]"}`},
		{"bearer token with folding runes", `{"h":"bearer ſKabcdefghij"}`, `{"h":"[REDACTED]"}`},
		{"bearer too short", `{"note":"Bearer abc"}`, `{"note":"Bearer abc"}`},
		{"private key header", `{"k":"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAA"}`, `{"k":"[REDACTED]"}`},
		{"rsa private key header", `["-----BEGIN RSA PRIVATE KEY-----"]`, `["[REDACTED]"]`},
		{"public key header kept", `{"k":"-----BEGIN PUBLIC KEY-----"}`, `{"k":"-----BEGIN PUBLIC KEY-----"}`},
		{"long random token", `{"v":"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}`, `{"v":"[REDACTED]"}`},
		{"32 token chars with 12 distinct", `{"v":"abcdefghijklaaaaaaaaaaaaaaaaaaaa"}`, `{"v":"[REDACTED]"}`},
		{"32 token chars with 11 distinct", `{"v":"abcdefghijkaaaaaaaaaaaaaaaaaaaaa"}`, `{"v":"abcdefghijkaaaaaaaaaaaaaaaaaaaaa"}`},
		{"31 token chars", `{"v":"abcdefghijklmnopqrstuvwxyz01234"}`, `{"v":"abcdefghijklmnopqrstuvwxyz01234"}`},
		{"space breaks a token", `{"v":"abcdefghijklmnop qrstuvwxyz0123456789"}`, `{"v":"abcdefghijklmnop qrstuvwxyz0123456789"}`},

		// Secrets inside longer strings (the value scanner, backend/redact).
		{"secrets in a command", `{"command":"GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 DB_PASSWORD=hunter2 npm run dev --password hunter2"}`,
			`{"command":"GITHUB_TOKEN=[REDACTED] DB_PASSWORD=[REDACTED] npm run dev --password [REDACTED]"}`},
		{"url userinfo and query", `{"url":"https://user:hunter2@example.com/x?access_token=abc&page=2"}`,
			`{"url":"https://[REDACTED]@example.com/x?access_token=[REDACTED]&page=2"}`},
		{"known token in prose", `{"message":"my token is ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 ok"}`, `{"message":"my token is [REDACTED] ok"}`},
		{"argv pair", `{"args":["--password","hunter2","--port","3000",["--token"],"kept"]}`,
			`{"args":["--password","[REDACTED]","--port","3000",["--token"],"kept"]}`},
		{"argv pair across a non-string", `["--password",3,"kept"]`, `["--password",3,"kept"]`},
		{"secret cut at 240 is still found", `{"note":"` + long[:223] + ` ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}`,
			`{"note":"` + long[:223] + ` [REDACTED]"}`},
		{"what stays", `{"cmd":"PORT=3000 vite --port 3000","url":"https://example.com/path?page=2"}`,
			`{"cmd":"PORT=3000 vite --port 3000","url":"https://example.com/path?page=2"}`},
		{"prompts are text", `{"prompt":"my key is sk-proj-abc","systemPrompt":"be brief","PROMPT":"x"}`,
			`{"prompt":"[REDACTED_TEXT 21 chars]","systemPrompt":"[REDACTED_TEXT 8 chars]","PROMPT":"[REDACTED_TEXT 1 chars]"}`},

		// Long strings, depth and arrays.
		{"long string cut", `{"note":"` + long + `"}`, `{"note":"` + long[:240] + `...[truncated 160 chars]"}`},
		{"240 chars kept", `{"note":"` + long[:240] + `"}`, `{"note":"` + long[:240] + `"}`},
		{"cut counts UTF-16 and keeps pairs whole", `["` + emoji + `"]`,
			`["` + strings.Repeat("😀", 120) + `...[truncated 20 chars]"]`},
		{"depth 6 kept, 7 redacted", `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}`,
			`{"a":{"b":{"c":{"d":{"e":{"f":{"g":"[REDACTED_DEEP_OBJECT]"}}}}}}}`},
		{"arrays count as levels", `[[[[[[[{"x":1}]]]]]]]`, `[[[[[[["[REDACTED_DEEP_OBJECT]"]]]]]]]`},
		{"deep arrays of scalars kept", `[[[[[[[[[1]]]]]]]]]`, `[[[[[[[[[1]]]]]]]]]`},
		{"array keeps 50 items", `[` + strings.Join(sixty, ",") + `]`, `[` + strings.Join(sixty[:50], ",") + `]`},
		{"array cut skips nested values", `{"a":[` + strings.Repeat(`{"x":[1,{"y":2}]},`, 55) + `1],"after":true}`,
			`{"a":[` + strings.TrimSuffix(strings.Repeat(`{"x":[1,{"y":2}]},`, 50), ",") + `],"after":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(json.RawMessage(tt.in)); got != tt.want {
				t.Errorf("Of(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestSummarizeGoValues(t *testing.T) {
	type args struct {
		URL   string `json:"url"`
		Token string `json:"token"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"struct keeps field order", args{URL: "http://x", Token: "t"}, `{"url":"http://x","token":"[REDACTED]"}`},
		{"map is sorted by encoding/json", map[string]int{"b": 1, "a": 2}, `{"a":2,"b":1}`},
		{"nil", nil, `null`},
		{"empty raw message", json.RawMessage(nil), `null`},
		{"channel", make(chan int), UnserializableMarker},
		{"NaN", math.NaN(), UnserializableMarker},
		{"invalid raw JSON", json.RawMessage(`{"a":`), UnserializableMarker},
		{"raw JSON with bad token", json.RawMessage(`{"a":tru}`), UnserializableMarker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.in); got != tt.want {
				t.Errorf("Of(%#v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestSummarizeCap(t *testing.T) {
	var items []string
	for i := range 50 {
		items = append(items, fmt.Sprintf(`"k%02d":"%s"`, i, strings.Repeat("x y ", 50)))
	}
	in := json.RawMessage("{" + strings.Join(items, ",") + "}")
	got := Of(in)
	if !strings.HasSuffix(got, truncatedSuffix) {
		t.Fatalf("Of(50 long fields) does not end in %q: ...%s", truncatedSuffix, got[len(got)-40:])
	}
	body := strings.TrimSuffix(got, truncatedSuffix)
	if n := units([]byte(body)); n != MaxSummaryLen {
		t.Errorf("Of(50 long fields) keeps %d units, want %d", n, MaxSummaryLen)
	}
	if !strings.HasPrefix(got, `{"k00":"x y x y`) {
		t.Errorf("Of(50 long fields) = %.40s…, want the start of the object", got)
	}

	// Exactly at the cap: not cut; one more: cut.
	for _, size := range []int{MaxSummaryLen, MaxSummaryLen + 1} {
		in := objectOfUnits(t, size)
		got := Of(in)
		cut := strings.HasSuffix(got, truncatedSuffix)
		if want := size > MaxSummaryLen; cut != want || units([]byte(strings.TrimSuffix(got, truncatedSuffix))) != MaxSummaryLen {
			t.Errorf("Of(%d-unit object) = %d units, cut %v, want %d units, cut %v",
				size, units([]byte(got)), cut, MaxSummaryLen, want)
		}
	}

	// A cap falling inside a surrogate pair keeps the pair out.
	var eb strings.Builder
	eb.WriteString(`{"ab":"`) // 7 units, then 20 per key: the cap falls inside a 😀
	for i := range 300 {
		fmt.Fprintf(&eb, `","k%03d":"😀😀😀😀😀`, i)
	}
	eb.WriteString(`"}`)
	emoji := json.RawMessage(eb.String())
	got = Of(emoji)
	body = strings.TrimSuffix(got, truncatedSuffix)
	if n := units([]byte(body)); n != MaxSummaryLen-1 {
		t.Errorf("Of(emoji object) keeps %d units, want %d", n, MaxSummaryLen-1)
	}
}

// objectOfUnits returns a JSON object whose summary is exactly size units.
func objectOfUnits(t *testing.T, size int) json.RawMessage {
	t.Helper()
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, `"k%04d":1,`, i)
	}
	// Close with "pad":"x y x…"} of the missing length.
	pad := size - b.Len() - len(`"pad":""}`)
	if pad < 0 || pad > MaxStringLen {
		t.Fatalf("objectOfUnits(%d): pad %d out of range", size, pad)
	}
	b.WriteString(`"pad":"` + strings.Repeat("x ", pad)[:pad] + `"}`)
	if b.Len() != size {
		t.Fatalf("objectOfUnits(%d) built %d units", size, b.Len())
	}
	return json.RawMessage(b.String())
}

func TestSummarizeLargeInputStopsEarly(t *testing.T) {
	// A huge argument must not be re-encoded whole: the summary stops once
	// it is past the cap.
	big := json.RawMessage(`{"path":"a.txt"` + strings.Repeat(`,"f":"x y"`, 200_000) + `}`) // 2 MB
	got := Of(big)
	if !strings.HasPrefix(got, `{"path":"a.txt","f":"x y"`) || !strings.HasSuffix(got, truncatedSuffix) {
		t.Errorf("Of(big) = %.60s…", got)
	}
	if testing.AllocsPerRun(1, func() { Of(big) }) > 50_000 {
		t.Errorf("Of(big) allocates per input token: it should stop at the cap")
	}
}

func TestClip(t *testing.T) {
	emoji := strings.Repeat("😀", 130) // 260 UTF-16 units
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short kept", "git_status", "git_status"},
		{"exactly the limit kept", strings.Repeat("a", MaxStringLen), strings.Repeat("a", MaxStringLen)},
		{"long cut with the count", strings.Repeat("a", MaxStringLen+5), strings.Repeat("a", MaxStringLen) + "...[truncated 5 chars]"},
		{"bytes over, units not: kept", strings.Repeat("é", MaxStringLen), strings.Repeat("é", MaxStringLen)},
		{"a surrogate pair is never split", "x" + emoji, "x" + strings.Repeat("😀", 119) + "...[truncated 22 chars]"},
		{"no redaction here", "TOKEN=" + strings.Repeat("s", 10), "TOKEN=" + strings.Repeat("s", 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clip(tc.in); got != tc.want {
				t.Errorf("Clip(%.40q…) = %.60q…, want %.60q…", tc.in, got, tc.want)
			}
		})
	}
}
