package template

import (
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	long := strings.Repeat("abcdefghij ", 20)[:200] // 200 characters of words
	tests := []struct {
		name, in, want string
	}{
		{"words", "My New App", "my-new-app"},
		{"already a slug", "my-app", "my-app"},
		{"digits kept", "App 2 Go", "app-2-go"},
		{"runs of separators collapse", "  --My___App!!  ", "my-app"},
		{"accents fold", "Crème Brûlée", "creme-brulee"},
		{"ligatures and sharp s", "Æsir Straße Œuvre", "aesir-strasse-oeuvre"},
		{"uppercase accents", "ÉCOLE ÀÖ", "ecole-ao"},
		{"apostrophes vanish", "Bob's App’s", "bobs-apps"},
		{"other scripts separate", "日本 App", "app"},
		{"only other scripts", "日本語", "meith-app"},
		{"emoji", "🚀 Launch 🚀", "launch"},
		{"slash", "a/b", "a-b"},
		{"backslash", `a\b`, "a-b"},
		{"parent path", "../../etc/passwd", "etc-passwd"},
		{"dot dot", "..", "meith-app"},
		{"dot", ".", "meith-app"},
		{"hidden", ".prewarm", "prewarm"},
		{"empty", "", "meith-app"},
		{"spaces", "   ", "meith-app"},
		{"NUL and controls", "a\x00b\nc", "a-b-c"},
		{"invalid UTF-8", "a\xffb", "a-b"},
		{"reserved con", "CON", "con-app"},
		{"reserved nul", "nul", "nul-app"},
		{"reserved com1", "Com1", "com1-app"},
		{"reserved lpt9", "lpt9", "lpt9-app"},
		{"not reserved", "console", "console"},
		{"reserved with extension is not a device", "con.txt", "con-txt"},
		{"long words cut at a word edge", long, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij"},
		{"one long word cut", strings.Repeat("x", 200), strings.Repeat("x", 64)},
		{"long accented word", strings.Repeat("ß", 100), strings.Repeat("s", 64)},
	}
	valid := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slug(tt.in)
			if got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) > MaxSlugBytes || !valid.MatchString(got) {
				t.Errorf("Slug(%q) = %q: not a valid slug of at most %d bytes", tt.in, got, MaxSlugBytes)
			}
		})
	}
}
