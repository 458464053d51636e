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
	if err != nil {
		return "", &URLError{URL: raw, Reason: "not a URL: " + err.Error()}
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
	return "", &URLError{URL: raw, Reason: "only http, https, data: and about:blank URLs can be opened in a tab, not " + u.Scheme + ":"}
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
