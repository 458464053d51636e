package pluginhost

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// MaxServedFile bounds one file the plugin server sends.
const MaxServedFile = 64 << 20

// fileServer serves local plugins on one loopback port, each from its own
// origin http://<label>.plugins.localhost:<port>, from its root folder
// only.
type fileServer struct {
	h    *Host
	ln   net.Listener
	srv  *http.Server
	port int
}

// startServer listens on addr (127.0.0.1:0 unless a test says otherwise).
func startServer(h *Host, addr string) (*fileServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pluginhost: listen: %w", err)
	}
	s := &fileServer{h: h, ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *fileServer) close() { s.srv.Close() }

// origin is the canonical origin of a plugin's label on this server.
func (s *fileServer) origin(label string) string {
	return "http://" + label + hostSuffix + ":" + strconv.Itoa(s.port)
}

// contentTypes are the types of the files a web app ships, set here so
// that they do not depend on the machine's mime tables (a module script
// must be served as JavaScript).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".cjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
	".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	".wasm": "application/wasm", ".mp3": "audio/mpeg", ".mp4": "video/mp4", ".webm": "video/webm",
	".wav": "audio/wav", ".ogg": "audio/ogg", ".xml": "application/xml", ".pdf": "application/pdf",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// csp is the Content-Security-Policy of a plugin's pages: everything a web
// app does on its own origin (inline and eval'd scripts, styles, data: and
// blob: resources), nothing of another origin unless the plugin was
// approved to access the network, and never framed by another page.
func csp(network bool) string {
	src := "'self' data: blob: 'unsafe-inline' 'unsafe-eval'"
	form := "'self'"
	if network {
		src += " http: https: ws: wss:"
		form += " http: https:"
	}
	return "default-src " + src + "; form-action " + form + "; base-uri 'self'; object-src 'none'; frame-ancestors 'none'"
}

// ServeHTTP serves GET and HEAD for the plugin the Host header names, when
// it is installed, enabled and local: regular files under its root (no
// dot-files, nothing a symlink or ".." reaches outside it, at most
// MaxServedFile), a folder's index.html, never a listing.
func (s *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	host, port, err := net.SplitHostPort(r.Host)
	label, ok := strings.CutSuffix(strings.ToLower(host), hostSuffix)
	if err != nil || port != strconv.Itoa(s.port) || !ok {
		http.Error(w, "not a plugin origin", http.StatusMisdirectedRequest)
		return
	}
	info, ok := s.h.pluginForLabel(label)
	if !ok || !info.Enabled || info.Root == "" {
		http.Error(w, "no enabled local plugin at this origin", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Security-Policy", csp(hasCap(info.Capabilities, protocol.CapAccessesNetwork)))
	w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
	w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
	name, ok := servedName(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	root, err := os.OpenRoot(info.Root)
	if err != nil {
		s.h.logf("warn", "plugin %s: open its root: %v", info.ID, err)
		http.NotFound(w, r)
		return
	}
	defer root.Close()
	f, fi, err := openRegular(root, name)
	if errors.Is(err, errIsDir) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, path.Base(r.URL.Path)+"/", http.StatusMovedPermanently)
			return
		}
		name = path.Join(name, "index.html")
		f, fi, err = openRegular(root, name)
	}
	if err != nil {
		if errors.Is(err, errTooBig) {
			http.Error(w, "file too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", contentType(name))
	http.ServeContent(w, r, "", fi.ModTime(), f)
}

var (
	errIsDir  = errors.New("a folder")
	errTooBig = errors.New("too large")
)

// servedName turns a URL path into a name relative to the root: "." for
// the root itself; false for a path with a dot-file or dot segment, a NUL
// or a backslash.
func servedName(p string) (string, bool) {
	if strings.ContainsAny(p, "\x00\\") {
		return "", false
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		switch {
		case s == "":
			continue
		case strings.HasPrefix(s, "."):
			return "", false
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return ".", true
	}
	return strings.Join(segs, "/"), true
}

// openRegular opens name under root without blocking (a FIFO is refused,
// not waited on) and returns it when it is a regular file within bounds.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = errIsDir
	case !fi.Mode().IsRegular():
		err = fs.ErrNotExist
	case fi.Size() > MaxServedFile:
		err = errTooBig
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func hasCap(caps []protocol.Capability, c protocol.Capability) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}
