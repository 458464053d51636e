package browser

import "testing"

func TestNormalizeURL(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "localhost:3000", want: "http://localhost:3000"},
		{in: "localhost", want: "http://localhost"},
		{in: "127.0.0.1:8080/x?y=1", want: "http://127.0.0.1:8080/x?y=1"},
		{in: "[::1]:5173", want: "http://[::1]:5173"},
		{in: "app.localhost:3000", want: "http://app.localhost:3000"},
		{in: "example.com", want: "https://example.com"},
		{in: "example.com/docs#a", want: "https://example.com/docs#a"},
		{in: "  https://example.com/  ", want: "https://example.com/"},
		{in: "http://localhost:3000/", want: "http://localhost:3000/"},
		{in: "about:blank", want: "about:blank"},
		{in: "data:text/html,<p>hi</p>", want: "data:text/html,<p>hi</p>"},
		{in: "", bad: true},
		{in: "two words", bad: true},
		{in: "file:///etc/passwd", bad: true},
		{in: "javascript:alert(1)", bad: true},
		{in: "chrome://settings", bad: true},
		{in: "view-source:https://example.com", bad: true},
		{in: "about:config", bad: true},
		{in: "http://169.254.169.254/latest/meta-data", bad: true},
		{in: "http://2852039166/", bad: true},
		{in: "0xa9fea9fe/latest", bad: true},
		{in: "http://0251.0376.0251.0376/", bad: true},
		{in: "http://[::ffff:a9fe:a9fe]/", bad: true},
		{in: "http://[::ffff:169.254.169.254]/", bad: true},
		{in: "http://[64:ff9b::a9fe:a9fe]/", bad: true},
		{in: "http://[fe80::1%25eth0]/", bad: true},
		{in: "https://[fd00:ec2::254]/", bad: true},
		{in: "http://169.254.169.254.nip.io/", want: "http://169.254.169.254.nip.io/"}, // a name: judged when it resolves
		{in: "ftp://example.com", bad: true},
		{in: "http://", bad: true},
	}
	for _, tt := range tests {
		got, err := NormalizeURL(tt.in)
		if tt.bad {
			if err == nil || !IsURL(err) {
				t.Errorf("NormalizeURL(%q) = %q, %v; want a URLError", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParseKeys(t *testing.T) {
	tests := []struct {
		in       string
		strokes  int
		key      string
		mods     int
		text     string
		commands []string
	}{
		{in: "Enter", strokes: 1, key: "Enter", text: "\r"},
		{in: "enter", strokes: 1, key: "Enter", text: "\r"},
		{in: "Tab", strokes: 1, key: "Tab"},
		{in: "Shift+Tab", strokes: 1, key: "Tab", mods: ModShift},
		{in: "ArrowDown", strokes: 1, key: "ArrowDown"},
		{in: "Control+A", strokes: 1, key: "a", mods: ModCtrl | ModShift, commands: []string{"selectAll"}},
		{in: "Ctrl+a", strokes: 1, key: "a", mods: ModCtrl, commands: []string{"selectAll"}},
		{in: "Meta+z", strokes: 1, key: "z", mods: ModMeta, commands: []string{"undo"}},
		{in: "hello", strokes: 5, key: "h", text: "h"},
		{in: "a", strokes: 1, key: "a", text: "a"},
		{in: "A+B", strokes: 3, key: "A", mods: ModShift, text: "A"},
		{in: "Space", strokes: 1, key: " ", text: " "},
	}
	for _, tt := range tests {
		got, err := parseKeys(tt.in)
		if err != nil {
			t.Errorf("parseKeys(%q): %v", tt.in, err)
			continue
		}
		first := got[0]
		if len(got) != tt.strokes || first.key != tt.key || first.modifiers != tt.mods || first.text != tt.text ||
			len(first.commands) != len(tt.commands) || (len(tt.commands) > 0 && first.commands[0] != tt.commands[0]) {
			t.Errorf("parseKeys(%q) = %d strokes, first %+v; want %d, key %q mods %d text %q commands %v",
				tt.in, len(got), first, tt.strokes, tt.key, tt.mods, tt.text, tt.commands)
		}
	}
	if _, err := parseKeys(""); err == nil {
		t.Error("parseKeys(\"\") = nil error; want one")
	}
}

func TestRing(t *testing.T) {
	r := newRing[int](3)
	for i := range 5 {
		r.push(i)
	}
	r.update(1, func(p *int) { *p = 100 }) // dropped: no effect
	r.update(4, func(p *int) { *p = 40 })
	if got := r.last(0); len(got) != 3 || got[0] != 2 || got[2] != 40 {
		t.Errorf("last(0) = %v, want [2 3 40]", got)
	}
	if got := r.last(2); len(got) != 2 || got[0] != 3 {
		t.Errorf("last(2) = %v, want [3 40]", got)
	}
}

// TestURLErrorDoesNotQuoteTheURL: a refused URL's message says why without
// repeating the URL, which may hold credentials or tokens.
func TestURLErrorDoesNotQuoteTheURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ftp://user:hunter2@example.com/?token=s3cr3tv4lue", "cannot open the URL: only http, https, data: and about:blank URLs can be opened in a tab, not ftp:"},
		{"hunter2:s3cr3tv4lue", "cannot open the URL: not a well-formed URL (check the host, the port and any % escapes)"},
		{"s3cr3tv4lue://example.com/", "cannot open the URL: only http, https, data: and about:blank URLs can be opened in a tab"},
		{"http://user:hunter2@[::1/?token=s3cr3tv4lue", "cannot open the URL: not a well-formed URL (check the host, the port and any % escapes)"},
		{"http://hunter2 s3cr3tv4lue", "cannot open the URL: not a well-formed URL (check the host, the port and any % escapes)"},
		{"http://169.254.169.254/?token=s3cr3tv4lue", "cannot open the URL: link-local addresses and cloud metadata services are blocked"},
	} {
		_, err := NormalizeURL(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("NormalizeURL(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}
