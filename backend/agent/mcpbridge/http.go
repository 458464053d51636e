package mcpbridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// mcpPath is the endpoint's path.
const mcpPath = "/mcp"

// sessionIDHeader is the streamable transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// requestKeyHeader carries, from ServeHTTP to the tool handler (the go-sdk
// hands handlers the request's header), the key of the HTTP request in
// bridge.inflight. A client-sent value is always replaced.
const requestKeyHeader = "X-Meith-Bridge-Request"

// callKey is the request-context key of the authenticated *httpCall.
type callKey struct{}

// serveHTTP runs the checks in order — Host, Origin, path, method, size,
// bearer token — and hands what passes to the go-sdk handler.
func (b *bridge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	b.active.enter()
	defer b.active.leave()
	b.mu.Lock()
	wantHost := b.host
	b.mu.Unlock()

	// DNS rebinding: a page on evil.example resolving to 127.0.0.1 still
	// sends Host: evil.example:<port>.
	if !allowedHost(r.Host, wantHost) {
		b.refuse(w, r, http.StatusForbidden, "forbidden host", "Host "+strconv.Quote(r.Host))
		return
	}
	// Agents never send Origin; browsers always do on a cross-origin POST.
	if _, ok := r.Header["Origin"]; ok {
		b.refuse(w, r, http.StatusForbidden, "browser origin refused", "Origin "+strconv.Quote(r.Header.Get("Origin")))
		return
	}
	if r.URL.Path != mcpPath {
		b.refuse(w, r, http.StatusNotFound, "not found", "unknown path")
		return
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete:
		// POST carries JSON-RPC; GET (the standalone SSE stream) and DELETE
		// (end of session) are the streamable transport's session verbs.
	default:
		w.Header().Set("Allow", "POST, GET, DELETE")
		b.refuse(w, r, http.StatusMethodNotAllowed, "method not allowed", "method")
		return
	}
	if r.ContentLength > MaxBodyBytes {
		b.refuse(w, r, http.StatusRequestEntityTooLarge, "request body too large", "Content-Length "+strconv.FormatInt(r.ContentLength, 10))
		return
	}

	reg, why := b.authenticate(r)
	if reg == nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		b.refuse(w, r, http.StatusUnauthorized, "unauthorized", why)
		return
	}
	reg.touch()
	defer reg.touch()

	handler := b.stateful
	if r.Method == http.MethodPost {
		// Read the body here, so an oversized one gets the same 413 however
		// it was sent (Content-Length or chunked).
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				b.refuse(w, r, http.StatusRequestEntityTooLarge, "request body too large", "body over the limit")
				return
			}
			b.refuse(w, r, http.StatusBadRequest, "unreadable body", err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		// A POST without a session id opens a session when it is an
		// initialize; anything else is served statelessly (curl-style).
		if r.Header.Get(sessionIDHeader) == "" && !isInitialize(body) {
			handler = b.stateless
		}
	}

	hc := &httpCall{ctx: r.Context(), reg: reg}
	key := strconv.FormatUint(b.nextKey.Add(1), 10)
	b.inflight.Store(key, hc)
	defer b.inflight.Delete(key)
	r.Header.Set(requestKeyHeader, key)
	handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callKey{}, hc)))
}

// authenticate returns the live registration of the request's bearer
// token, or nil and why not (never the token itself).
func (b *bridge) authenticate(r *http.Request) (*registration, string) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, "no bearer token"
	}
	// The map is keyed by the token's digest, so its lookup time says
	// nothing about the token's bytes; the final comparison is constant-time.
	digest := sha256.Sum256([]byte(strings.TrimSpace(token)))
	b.mu.Lock()
	defer b.mu.Unlock()
	reg := b.byDigest[digest]
	if reg == nil || subtle.ConstantTimeCompare(reg.digest[:], digest[:]) != 1 {
		return nil, "unknown or revoked token"
	}
	if b.expired(reg, time.Now()) {
		b.logf("mcpbridge: session %s: token expired after %s idle", reg.binding.SessionID, b.ttl)
		b.dropLocked(reg, errRevoked)
		return nil, "expired token"
	}
	return reg, ""
}

// allowedHost reports whether host is 127.0.0.1:<port> or localhost:<port>
// for the listener's port (want is 127.0.0.1:<port>).
func allowedHost(host, want string) bool {
	if want == "" {
		return false
	}
	_, port, _ := strings.Cut(want, ":")
	return host == want || strings.EqualFold(host, "localhost:"+port)
}

// isInitialize reports whether a JSON-RPC body (a message or a batch)
// holds an initialize request.
func isInitialize(body []byte) bool {
	type msg struct {
		Method string `json:"method"`
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []msg
		if json.Unmarshal(body, &batch) != nil {
			return false
		}
		for _, m := range batch {
			if m.Method == "initialize" {
				return true
			}
		}
		return false
	}
	var m msg
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize"
}

// refuse answers a refused request with {"error": msg} and logs it once.
func (b *bridge) refuse(w http.ResponseWriter, r *http.Request, status int, msg, why string) {
	b.logf("mcpbridge: refused %s %s from %s: %d %s (%s)", r.Method, strconv.Quote(r.URL.Path), r.RemoteAddr, status, msg, why)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(append(body, '\n'))
}
