package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DevFetchTimeout bounds the fetch of a dev server's plugin.json.
const DevFetchTimeout = 5 * time.Second

// ParseDevURL checks a dev server URL: http or https, a host, no user
// name or password. It returns the URL and its origin
// ("http://127.0.0.1:5173").
func ParseDevURL(raw string) (*url.URL, string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, "", invalidf("The dev server URL is not a URL: %v", errors.Unwrap(err))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, "", invalidf("A dev server URL must be http or https")
	case u.Host == "" || u.Hostname() == "":
		return nil, "", invalidf("The dev server URL has no host")
	case u.User != nil:
		return nil, "", invalidf("The dev server URL must not hold a user name or password")
	}
	return u, u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// FetchDevManifest fetches <origin>/plugin.json of the dev server at raw
// with client (nil: [NewDevClient]) within [DevFetchTimeout]: a server
// that cannot be reached, or answers other than 200, is [CodeNotFound]; an
// answer over [MaxManifestBytes] or an invalid manifest is [CodeInvalid].
func FetchDevManifest(ctx context.Context, client *http.Client, raw string) (*url.URL, string, Manifest, error) {
	u, origin, err := ParseDevURL(raw)
	if err != nil {
		return nil, "", Manifest{}, err
	}
	if client == nil {
		client = NewDevClient()
	}
	ctx, cancel := context.WithTimeout(ctx, DevFetchTimeout)
	defer cancel()
	target := origin + "/" + ManifestFile
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, "", Manifest{}, invalidf("The dev server URL cannot be fetched: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, "", Manifest{}, &Error{Code: CodeNotFound, Msg: fmt.Sprintf("The dev server at %s did not answer within %s", origin, DevFetchTimeout), Err: err}
		}
		return nil, "", Manifest{}, &Error{Code: CodeNotFound, Msg: fmt.Sprintf("The dev server at %s cannot be reached: %v", origin, rootCause(err)), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", Manifest{}, notFoundf("The dev server at %s answered %s for /%s", origin, resp.Status, ManifestFile)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxManifestBytes+1))
	if err != nil {
		return nil, "", Manifest{}, &Error{Code: CodeNotFound, Msg: fmt.Sprintf("The dev server at %s broke off its answer: %v", origin, rootCause(err)), Err: err}
	}
	if len(body) > MaxManifestBytes {
		return nil, "", Manifest{}, invalidf("The dev server's /%s is larger than %s", ManifestFile, sizeText(MaxManifestBytes))
	}
	m, err := ParseManifest(body, target)
	return u, origin, m, err
}

// NewDevClient is the HTTP client of dev server fetches: no proxy, no
// cookies, redirects only within the origin (at most 5), and no
// connection to a link-local address (the cloud metadata services).
func NewDevClient() *http.Client {
	dialer := &net.Dialer{Timeout: DevFetchTimeout, Control: refuseLinkLocal}
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, TLSHandshakeTimeout: DevFetchTimeout,
			ResponseHeaderTimeout: DevFetchTimeout, MaxIdleConns: 1, IdleConnTimeout: time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != via[0].URL.Scheme || !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
				return errors.New("it redirects to another origin")
			}
			return nil
		},
	}
}

// refuseLinkLocal is a dialer's Control: it refuses link-local addresses
// (169.254/16, fe80::/10, IPv4-mapped ones too) and the unspecified one,
// by the address actually dialled, so a name that resolves to one is
// refused as well.
func refuseLinkLocal(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return fmt.Errorf("meith does not connect to %s (link-local)", host)
	}
	return nil
}

// rootCause is the innermost error of err (no URLs and operations
// repeated in the message).
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
