package plugin

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/state"
)

// TestFetchDevManifest: a dev server's /plugin.json, fetched from the
// URL's origin, against loopback servers (reference §8, dev-url).
func TestFetchDevManifest(t *testing.T) {
	var lastPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lastPath = r.URL.Path
		switch r.URL.Path {
		case "/plugin.json":
			w.Write([]byte(`{"kind":"plugin","id":"dev.example.live","name":"Live","entry":"app/index.html","requestedApis":["tools"]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	u, origin, m, err := FetchDevManifest(context.Background(), nil, srv.URL+"/some/page?x=1")
	if err != nil {
		t.Fatal(err)
	}
	if lastPath != "/plugin.json" || origin != srv.URL || u.String() != srv.URL+"/some/page?x=1" || m.ID != "dev.example.live" || m.Entry != "app/index.html" {
		t.Errorf("fetched %s: %s %s %+v", lastPath, origin, u, m)
	}
	if got := DevEntryURL(Record{Source: state.PluginSource{Kind: state.PluginSourceDevURL, URL: srv.URL + "/x"}, Entry: m.Entry}); got != srv.URL+"/app/index.html" {
		t.Errorf("DevEntryURL = %s", got)
	}

	serve := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	deadURL := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}()
	tests := []struct {
		name, url string
		code      Code
		err       string
	}{
		{"not http", "file:///etc/passwd", CodeInvalid, "must be http or https"},
		{"ftp", "ftp://127.0.0.1/", CodeInvalid, "must be http or https"},
		{"javascript", "javascript:alert(1)", CodeInvalid, "must be http or https"},
		{"no host", "http:///x", CodeInvalid, "no host"},
		{"credentials", "http://user:pw@127.0.0.1/", CodeInvalid, "user name or password"},
		{"unreachable", deadURL, CodeNotFound, "cannot be reached"},
		{"no plugin.json", serve(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }), CodeNotFound, "answered 404 Not Found for /plugin.json"},
		{"not JSON", serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }), CodeInvalid, "not a JSON object"},
		{"invalid manifest", serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"kind":"plugin","id":"x","name":"X"}`)) }), CodeInvalid, "is not a plugin id"},
		{"entry out of the origin", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"plugin","id":"a.b","name":"X","entry":"../x"}`))
		}), CodeInvalid, "no .."},
		{"too large", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"kind":"plugin","id":"a.b","name":"X","description":"` + strings.Repeat("d", MaxManifestBytes) + `"}`))
		}), CodeInvalid, "larger than 256 KB"},
		{"redirect to another origin", serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, srv.URL+"/plugin.json", http.StatusFound)
		}), CodeNotFound, "another origin"},
		{"link-local", "http://169.254.169.254/", CodeNotFound, "link-local"},
		{"link-local mapped", "http://[::ffff:169.254.169.254]/", CodeNotFound, "link-local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, _, m, err := FetchDevManifest(context.Background(), nil, tt.url)
			if CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("FetchDevManifest(%s) = %+v, %v; want %s with %q", tt.url, m, err, tt.code, tt.err)
			}
			if time.Since(start) > DevFetchTimeout+time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}

	// A server that never answers is given up after DevFetchTimeout, and a
	// cancelled call ends at once.
	hang := make(chan struct{})
	slow := serve(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	defer close(hang)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, _, err := FetchDevManifest(ctx, nil, slow); CodeOf(err) != CodeNotFound || time.Since(start) > 2*time.Second {
		t.Errorf("a silent server: %v after %v, want NOT_FOUND soon", err, time.Since(start))
	}
}
