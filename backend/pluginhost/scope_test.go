package pluginhost

import (
	"strings"
	"testing"
)

func TestScope(t *testing.T) {
	local := scope{origin: "http://board-1a2b3c4d.plugins.localhost:4100", prefix: "/web/"}
	dev := scope{origin: canonicalOrigin("http://localhost:5173/app/"), prefix: "/"}
	cases := []struct {
		s    scope
		url  string
		want bool
	}{
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/web/index.html", true},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/web/index.html?x=1#top", true},
		{local, "http://BOARD-1a2b3c4d.plugins.localhost:4100/web/sub/page.html", true},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/web", true},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/web/", true},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/secret.txt", false},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/web/../secret.txt", false},
		{local, "http://board-1a2b3c4d.plugins.localhost:4100/webby/x.html", false},
		{local, "http://board-1a2b3c4d.plugins.localhost:4101/web/index.html", false},
		{local, "https://board-1a2b3c4d.plugins.localhost:4100/web/index.html", false},
		{local, "http://other-1a2b3c4d.plugins.localhost:4100/web/index.html", false},
		{local, "file:///etc/passwd", false},
		{local, "about:blank", false},
		{local, "data:text/html,hi", false},
		{local, "chrome-error://chromewebdata/", false},
		{local, "http://user@board-1a2b3c4d.plugins.localhost:4100/web/index.html", false},
		{dev, "http://localhost:5173/", true},
		{dev, "http://localhost:5173/anything/at/all", true},
		{dev, "http://127.0.0.1:5173/", false},
		{dev, "http://localhost:5174/", false},
		{scope{}, "http://localhost:5173/", false},
	}
	for _, c := range cases {
		if got := c.s.contains(c.url); got != c.want {
			t.Errorf("%+v contains %q = %v, want %v", c.s, c.url, got, c.want)
		}
	}
	if !local.sameOrigin("http://board-1a2b3c4d.plugins.localhost:4100") || local.sameOrigin("null") || local.sameOrigin("http://localhost:4100") {
		t.Error("sameOrigin")
	}
	if s := (scope{origin: canonicalOrigin("https://dev.example:443/")}); !s.sameOrigin("https://dev.example") {
		t.Error("a default port must compare equal to none")
	}
	if got := webOrigin("http://localhost:80"); got != "http://localhost" {
		t.Errorf("webOrigin = %q", got)
	}
}

func TestHostLabel(t *testing.T) {
	a, b := hostLabel("local.meith-plugin"), hostLabel("Local.Meith-Plugin")
	if !strings.HasPrefix(a, "local-meith-plugin-") || len(a) != len("local-meith-plugin-")+8 || a == b {
		t.Errorf("labels %q %q", a, b)
	}
	long := hostLabel(strings.Repeat("abcdefghij.", 10) + "z")
	if len(long) > 63 || strings.Contains(long, "--") {
		t.Errorf("long label %q", long)
	}
	for _, l := range []string{a, b, long} {
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Errorf("label %q has %q", l, r)
			}
		}
	}
}

func TestEntryPath(t *testing.T) {
	for _, c := range []struct{ entry, path, prefix string }{
		{"", "/index.html", "/"},
		{"index.html", "/index.html", "/"},
		{"web/app.html", "/web/app.html", "/web/"},
		{"./web//deep/a b.html", "/web/deep/a%20b.html", "/web/deep/"},
		{"../escape.html", "/escape.html", "/"},
	} {
		p, prefix := entryPath(c.entry)
		if p != c.path || prefix != c.prefix {
			t.Errorf("entryPath(%q) = %q %q, want %q %q", c.entry, p, prefix, c.path, c.prefix)
		}
	}
}

func TestServedName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"/", ".", true}, {"/index.html", "index.html", true}, {"/a//b/", "a/b", true},
		{"/.env", "", false}, {"/a/.git/config", "", false}, {"/../x", "", false}, {"/a\\b", "", false}, {"/a\x00", "", false},
	} {
		got, ok := servedName(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("servedName(%q) = %q %v, want %q %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if csp(false) == csp(true) || !strings.Contains(csp(true), "https:") || strings.Contains(csp(false), "https:") {
		t.Error("the CSP must open other origins only with accesses-network")
	}
}
