package browser

import (
	"net"
	"net/url"
	"regexp"
	"strings"
)

var (
	// schemeSlashes matches "scheme://".
	schemeSlashes = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	// schemeOnly matches the schemes written without slashes.
	schemeOnly = regexp.MustCompile(`(?i)^(about|data|javascript|file|chrome|chrome-extension|chrome-untrusted|devtools|view-source|blob|filesystem|mailto|tel|intent|vbscript):`)
)

// NormalizeURL infers a scheme the way an address bar does
// ("localhost:3000" → http://localhost:3000, "example.com" →
// https://example.com) and refuses what a tab must not open: file:,
// javascript:, chrome: and other internal schemes, link-local addresses
// (cloud metadata), and text with spaces. Only http, https, about:blank and
// data: URLs pass. The error is a *URLError for a person to read.
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", &URLError{URL: raw, Reason: "the URL is empty"}
	}
	if !schemeSlashes.MatchString(s) && !schemeOnly.MatchString(s) {
		if strings.ContainsAny(s, " \t\n") {
			return "", &URLError{URL: raw, Reason: "an address has no spaces (meith has no search engine)"}
		}
		if isLocalHost(s) {
			s = "http://" + s
		} else {
			s = "https://" + s
		}
	}
	u, err := url.Parse(s)
	if err != nil { // its message quotes the URL or parts of it
		return "", &URLError{URL: raw, Reason: "not a well-formed URL (check the host, the port and any % escapes)"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", &URLError{URL: raw, Reason: "the URL has no host"}
		}
		if err := defaultPolicy.checkURL(s); err != nil {
			return "", &URLError{URL: raw, Reason: blockedReason}
		}
		return u.String(), nil
	case "about":
		if strings.EqualFold(s, "about:blank") {
			return "about:blank", nil
		}
		return "", &URLError{URL: raw, Reason: "only about:blank is allowed of the about: pages"}
	case "data":
		return s, nil
	}
	reason := "only http, https, data: and about:blank URLs can be opened in a tab"
	if scheme := strings.ToLower(u.Scheme); refusedSchemes[scheme] {
		reason += ", not " + scheme + ":" // a known scheme, nothing of the caller's
	}
	return "", &URLError{URL: raw, Reason: reason}
}

// refusedSchemes are the schemes a refusal names; any other scheme (which
// may be the user part of "user:password@host") is not repeated.
var refusedSchemes = map[string]bool{
	"file": true, "javascript": true, "chrome": true, "chrome-untrusted": true, "chrome-extension": true,
	"devtools": true, "view-source": true, "blob": true, "filesystem": true, "ftp": true, "ws": true, "wss": true,
	"mailto": true, "tel": true, "intent": true, "vbscript": true, "ssh": true, "git": true,
}

// isLocalHost reports whether an address without a scheme names this
// machine or a bare IP, which get http:// (dev servers have no TLS).
func isLocalHost(s string) bool {
	host := s
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(strings.ToLower(host), "[]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") {
		return true
	}
	return net.ParseIP(host) != nil
}
