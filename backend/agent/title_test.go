package agent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitleAuto(t *testing.T) {
	cases := []struct{ prompt, want string }{
		{"Fix login crash", "Login Crash"},
		{"fix the login crash on Safari please", "Login Crash Safari"},
		{"Can you add a dark mode toggle to the settings page?", "Dark Mode Toggle"},
		{"Please make it work!!!", "Work"},
		{"refactor   the\tAPI client\nfor retries", "Refactor API Client"},
		{"why doesn't the build pass?", "Build Pass"},
		{"Fix it", DefaultTitle},
		{"", DefaultTitle},
		{"   ?!… ", DefaultTitle},
		{"internationalization localization accessibility", "Internationalization"},
		{"supercalifragilisticexpialidocious-and-more-words", "Supercalifragilisticexpialid"},
		{"update README.md for v2.0", "README Md V2"},
		{"réparer la connexion", "Réparer La Connexion"},
		{"add 3 unit tests", "3 Unit Tests"},
		{"https://example.com/login is broken", "Example Login Broken"},
	}
	for _, tc := range cases {
		t.Run(tc.prompt, func(t *testing.T) {
			got := autoTitle(tc.prompt)
			if got != tc.want {
				t.Errorf("autoTitle(%q) = %q, want %q", tc.prompt, got, tc.want)
			}
			if utf8.RuneCountInString(got) > maxTitleChars || len(strings.Fields(got)) > maxTitleWords {
				t.Errorf("autoTitle(%q) = %q exceeds the bounds", tc.prompt, got)
			}
		})
	}
}
