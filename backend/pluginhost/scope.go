package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/url"
	"path"
	"strings"
)

// scope is where a plugin's page may be for its tab to keep the bridge: an
// origin (scheme, host, port) and a path prefix on it.
type scope struct {
	origin string // canonical: scheme://host:port, the port always written
	prefix string // "/" or "/dir/…/"
}

// canonicalOrigin returns scheme://host:port of an http(s) URL with its
// host lowercased and its port always written ("" for anything else).
func canonicalOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// webOrigin is the origin as a page's location.origin writes it (the
// default port left out), for the preload's own check.
func webOrigin(canonical string) string {
	return strings.TrimSuffix(strings.TrimSuffix(canonical, ":80"), ":443")
}

// contains reports whether a main-frame URL is inside the scope: the same
// origin and a path under the prefix (dot segments resolved first; hash and
// query do not matter). about:blank, data:, file:, another origin or
// another folder are outside.
func (s scope) contains(raw string) bool {
	if s.origin == "" || canonicalOrigin(raw) != s.origin {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean+"/" == s.prefix || strings.HasPrefix(clean, s.prefix)
}

// sameOrigin reports whether an execution context's origin (as Chromium
// writes it) is the scope's.
func (s scope) sameOrigin(origin string) bool {
	return s.origin != "" && canonicalOrigin(origin) == s.origin
}

// hostSuffix is the domain under which meith serves local plugins: one
// host name per plugin, which Chromium resolves to loopback itself and
// sends past the guard proxy (the proxy bypass list names *.localhost).
const hostSuffix = ".plugins.localhost"

// hostLabel is the one DNS label that names a plugin under hostSuffix:
// its id lowercased with every other character a hyphen (at most 40),
// then a hash of the exact id, so that ids that differ only in case or
// punctuation get different origins.
func hostLabel(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	sum := sha256.Sum256([]byte(id))
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "plugin"
	}
	return name + "-" + hex.EncodeToString(sum[:4])
}

// entryPath is the URL path of a local plugin's entry (each segment
// escaped) and the folder prefix, decoded, that is its scope.
func entryPath(entry string) (urlPath, prefix string) {
	entry = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(entry, "\\", "/")), "/")
	if entry == "" || entry == "." {
		entry = "index.html"
	}
	segs := strings.Split(entry, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	urlPath = "/" + strings.Join(segs, "/")
	// The prefix is compared with decoded paths (url.URL.Path).
	prefix = "/"
	if dir := path.Dir("/" + entry); dir != "/" {
		prefix = dir + "/"
	}
	return urlPath, prefix
}
