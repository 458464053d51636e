package cli

import (
	"testing"
)

func TestUseColor(t *testing.T) {
	for _, tc := range []struct {
		name, mode, noColor, term string
		terminal, want            bool
	}{
		{"auto on a terminal", colorAuto, "", "xterm-256color", true, true},
		{"auto into a pipe", colorAuto, "", "xterm-256color", false, false},
		{"auto with NO_COLOR", colorAuto, "1", "xterm", true, false},
		{"auto with an empty NO_COLOR", colorAuto, "", "xterm", true, true},
		{"auto on a dumb terminal", colorAuto, "", "dumb", true, false},
		{"always into a pipe", colorAlways, "", "", false, true},
		{"always beats NO_COLOR", colorAlways, "1", "dumb", false, true},
		{"never on a terminal", colorNever, "", "xterm", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := useColor(tc.mode, tc.noColor, tc.term, tc.terminal); got != tc.want {
				t.Errorf("useColor(%q, %q, %q, %v) = %v, want %v", tc.mode, tc.noColor, tc.term, tc.terminal, got, tc.want)
			}
		})
	}
}

func TestColorMode(t *testing.T) {
	for _, tc := range []struct {
		argv    []string
		want    string
		wantErr bool
	}{
		{nil, colorAuto, false},
		{[]string{"--color"}, colorAlways, false},
		{[]string{"--color=always"}, colorAlways, false},
		{[]string{"--color=never"}, colorNever, false},
		{[]string{"--color=auto"}, colorAuto, false},
		{[]string{"--color=false"}, colorNever, false},
		{[]string{"--color=sometimes"}, "", true},
		{[]string{"--color", "log"}, colorAlways, false}, // "log" stays the command
	} {
		a := Parse(tc.argv, globalBooleans)
		got, err := colorMode(a)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("colorMode(%q) = %q, %v; want %q (error %v)", tc.argv, got, err, tc.want, tc.wantErr)
		}
	}
	if a := Parse([]string{"--color", "log"}, globalBooleans); len(a.Positionals) != 1 || a.Positionals[0] != "log" {
		t.Errorf("--color took the next word: positionals %q", a.Positionals)
	}
}

func TestSuggestCommandByEditDistance(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"stauts", `Did you mean "status"?`}, // one swap; "state" is two edits away
		{"statsu", `Did you mean "status"?`},
		{"stat", `Did you mean "state"?`},
		{"blmae", `Did you mean "blame"?`},
		{"dif", `Did you mean "diff"?`},
		{"lgo", `Did you mean "log"?`},
		{"spcaes", `Did you mean "spaces"?`},
		{"tasb", `Did you mean "tabs"?`},
		{"xyzzy-frobnicate", ""},
		{"git_status", `Did you mean "meith status" (or "meith call git_status")?`},
	} {
		if got := suggestCommand(tc.typed); got != tc.want {
			t.Errorf("suggestCommand(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"status", "status", 0},
		{"stauts", "status", 1},
		{"stauts", "state", 2},
		{"ab", "ba", 1},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"refs":"HEAD -\u003e main"}`, `{"refs":"HEAD -> main"}`},
		{`{"s":"\u003cb\u003e \u0026 \u003C"}`, `{"s":"<b> & <"}`},
		{`{"s":"\\u003e"}`, `{"s":"\\u003e"}`},             // an escaped backslash, then text
		{`{"s":"\"\u003e\""}`, `{"s":"\">\""}`},            // escaped quotes do not end the string
		{`{"s":"\u00e9 \u2028"}`, `{"s":"\u00e9 \u2028"}`}, // other escapes stay
		{`{"a":1}`, `{"a":1}`},
	} {
		if got := string(unescapeHTML([]byte(tc.in))); got != tc.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
