// Package lsp is meith's language server client: it finds the server of a
// file's language (gopls, typescript-language-server, pyright-langserver,
// rust-analyzer, svelteserver: the table [DefaultLanguages]), starts it in
// the workspace root, speaks the Language Server Protocol to it over stdio
// and returns the diagnostics it publishes. get_diagnostics runs on it.
//
// One server runs per (workspace root, server), started on first use and
// reused by later calls; it is stopped after [Options.IdleTimeout] (10
// minutes) without a call, when it dies, and by [Manager.Close]. A server
// runs in its own process group (so `go list` and the like that gopls
// starts go with it), with the runtime's environment less the MEITH_*
// variables (a language server is no client of meith, and the project code
// it loads need not find the runtime's socket) and a PATH extended by the
// usual install folders ([Options.SearchPath]); its stderr goes to the app
// log, line by line, cut and bounded.
//
// A check opens the files (textDocument/didOpen with their content on
// disk), collects the diagnostics (textDocument/diagnostic when the server
// offers pull diagnostics, else the publishDiagnostics notifications until
// they settle: every file published, no work-done progress running, and
// no new publish for [Options.SettleDelay]) and closes the files. Positions
// are 1-based lines and columns in UTF-16 code units, as the editor counts
// them (a server that negotiated UTF-8 or UTF-32 positions is converted).
//
// A server is untrusted input: it runs the user's project code. Every
// message it sends is bounded ([MaxMessageBytes]), every write to it is
// bounded in time, every call waits at most for its context and
// [Options.InitTimeout] / [Options.MaxWait], and a server that crashes,
// hangs or floods ends the call with a [*ServerError] and is killed with
// its process group.
//
// The wire is go.lsp.dev/jsonrpc2 over a bounded Content-Length stream of
// this package; the few protocol types are written here (see
// docs/decisions/2026-12-01-lsp-client-library.md).
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	DefaultIdleTimeout  = 10 * time.Minute
	DefaultInitTimeout  = 30 * time.Second
	DefaultSettleDelay  = 300 * time.Millisecond
	DefaultQuietTimeout = 10 * time.Second
	DefaultMaxWait      = 100 * time.Second
)

// Limits of a check.
const (
	// MaxFileBytes bounds a file sent to a server.
	MaxFileBytes = 4 << 20
	// MaxFiles bounds the files of one check.
	MaxFiles = 64
	// MaxDiagnosticsPerFile bounds the diagnostics kept per file.
	MaxDiagnosticsPerFile = 1000
	// maxMessageRunes bounds a diagnostic's message.
	maxMessageRunes = 4000
)

// Options configure a [Manager]. Zero values take the defaults.
type Options struct {
	// Languages is the table of languages and servers (default
	// [DefaultLanguages]).
	Languages []Language
	// SearchPath lists the folders a server's command is looked up in, in
	// order; it is also the servers' PATH. Default: $PATH, then $GOBIN,
	// $GOPATH/bin (~/go/bin), /usr/local/go/bin, ~/.cargo/bin,
	// ~/.local/bin and ~/.npm-global/bin, so a desktop app started from a
	// launcher finds what the user installed.
	SearchPath []string
	// Env is the servers' environment (default: the runtime's, less
	// MEITH_* variables); its PATH is replaced by SearchPath.
	Env []string
	// IdleTimeout stops a server unused for that long (default 10 min).
	IdleTimeout time.Duration
	// InitTimeout bounds starting a server up to its initialize answer
	// (default 30 s).
	InitTimeout time.Duration
	// SettleDelay is how long the diagnostics must stay unchanged before a
	// check ends (default 300 ms).
	SettleDelay time.Duration
	// QuietTimeout ends the wait for a file the server published nothing
	// for once the server has been silent that long (default 10 s).
	QuietTimeout time.Duration
	// MaxWait bounds the wait for diagnostics after the files are open
	// (default 100 s, under get_diagnostics' 2 minutes).
	MaxWait time.Duration
	// WriteTimeout bounds one write to a server (default 10 s).
	WriteTimeout time.Duration
	// Logf receives the engine's log lines and the servers' stderr (level
	// debug|info|warn|error); nil discards.
	Logf func(level, format string, args ...any)
}

// Manager runs the language servers of a runtime. Its methods are safe for
// concurrent use.
type Manager struct {
	opts Options

	ctx    context.Context // cancelled by Close: ends starts in progress
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[serverKey]*server
	closed  bool
	wg      sync.WaitGroup // the servers' goroutines (run)
}

type serverKey struct {
	root   string
	server string
}

// New returns a Manager; it starts nothing until a check needs a server.
func New(opts Options) *Manager {
	if opts.Languages == nil {
		opts.Languages = DefaultLanguages
	}
	if opts.SearchPath == nil {
		opts.SearchPath = DefaultSearchPath()
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	opts.Env = serverEnv(opts.Env, opts.SearchPath)
	opts.IdleTimeout = positive(opts.IdleTimeout, DefaultIdleTimeout)
	opts.InitTimeout = positive(opts.InitTimeout, DefaultInitTimeout)
	opts.SettleDelay = positive(opts.SettleDelay, DefaultSettleDelay)
	opts.QuietTimeout = positive(opts.QuietTimeout, DefaultQuietTimeout)
	opts.MaxWait = positive(opts.MaxWait, DefaultMaxWait)
	opts.WriteTimeout = positive(opts.WriteTimeout, 10*time.Second)
	if opts.Logf == nil {
		opts.Logf = func(string, string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, ctx: ctx, cancel: cancel, servers: map[serverKey]*server{}}
}

func positive(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// DefaultSearchPath is $PATH followed by the folders Go, Rust, pip and npm
// install user commands into.
func DefaultSearchPath() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	home, _ := os.UserHomeDir()
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	for _, gp := range filepath.SplitList(os.Getenv("GOPATH")) {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	dirs = append(dirs, "/usr/local/go/bin")
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "go", "bin"), filepath.Join(home, ".cargo", "bin"),
			filepath.Join(home, ".local", "bin"), filepath.Join(home, ".npm-global", "bin"))
	}
	var out []string
	for _, d := range dirs {
		if d != "" && filepath.IsAbs(d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// serverEnv is env less MEITH_* variables, with PATH set to path.
func serverEnv(env []string, path []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MEITH_") || k == "PATH" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+strings.Join(path, string(os.PathListSeparator)))
}

// ErrClosed is returned by a check after [Manager.Close].
var ErrClosed = errors.New("lsp: the language servers are shut down")

// NotInstalledError reports a language whose server is not installed (or
// lacks what it needs). See [IsNotInstalled].
type NotInstalledError struct {
	Language    string
	Server      string
	InstallHint string
	Reason      string
}

// Error implements error.
func (e *NotInstalledError) Error() string { return e.Reason }

// IsNotInstalled reports whether err is a *[NotInstalledError].
func IsNotInstalled(err error) bool {
	var ne *NotInstalledError
	return errors.As(err, &ne)
}

// ServerError reports a server that failed a check: it would not start,
// crashed, hung or broke the protocol. See [IsServerError].
type ServerError struct {
	Server string
	Reason string
}

// Error implements error.
func (e *ServerError) Error() string { return e.Server + ": " + e.Reason }

// IsServerError reports whether err is a *[ServerError].
func IsServerError(err error) bool {
	var se *ServerError
	return errors.As(err, &se)
}

// Diagnostic is one problem a server reported. Lines and columns are
// 1-based, columns and ends in UTF-16 code units.
type Diagnostic struct {
	Path      string // absolute
	Line      int
	Column    int
	EndLine   int
	EndColumn int
	Severity  string // error | warning | info | hint
	Message   string
	Source    string
	Code      string
}

// Checked names a language a check ran a server for.
type Checked struct {
	Language string
	Server   string
}

// Unsupported is a file no server could check: the language has none, or
// its server is not installed.
type Unsupported struct {
	Path        string
	Language    string // "" when the extension is unknown
	InstallHint string // "" when meith knows no server
	Reason      string
}

// Report is the outcome of [Manager.Check].
type Report struct {
	Diagnostics []Diagnostic
	Checked     []Checked
	Unsupported []Unsupported
	// Notes are things the caller should know (a file skipped, a server
	// that published nothing for a file).
	Notes []string
}

// Check returns the diagnostics of files (absolute, canonical paths inside
// root) from the servers of their languages, started in root (the
// workspace root) when not running yet. progress, when non-nil, receives
// short messages while servers start and load ("starting gopls…").
func (m *Manager) Check(ctx context.Context, root string, files []string, progress func(string)) (Report, error) {
	if progress == nil {
		progress = func(string) {}
	}
	var rep Report
	type group struct {
		lang  *Language
		files []*document
	}
	var groups []*group
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		if len(seen) > MaxFiles {
			rep.Notes = append(rep.Notes, fmt.Sprintf("only the first %d files were checked", MaxFiles))
			break
		}
		lang, id, ok := languageOf(m.opts.Languages, f)
		if !ok || lang.Server == nil {
			u := Unsupported{Path: f, Reason: "meith knows no language server for " + describeExt(f)}
			if ok {
				u.Language = lang.Name
			}
			rep.Unsupported = append(rep.Unsupported, u)
			continue
		}
		doc, note := readDocument(f, id)
		if doc == nil {
			rep.Notes = append(rep.Notes, note)
			continue
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.lang.Server == lang.Server })
		if i < 0 {
			groups = append(groups, &group{lang: lang})
			i = len(groups) - 1
		}
		groups[i].files = append(groups[i].files, doc)
	}
	for _, g := range groups {
		diags, notes, err := m.checkWith(ctx, root, g.lang, g.files, progress)
		if IsNotInstalled(err) {
			var ne *NotInstalledError
			errors.As(err, &ne)
			for _, d := range g.files {
				rep.Unsupported = append(rep.Unsupported, Unsupported{Path: d.path, Language: languageName(m.opts.Languages, d.path),
					InstallHint: ne.InstallHint, Reason: ne.Reason})
			}
			continue
		}
		if err != nil {
			return Report{}, err
		}
		for _, d := range g.files {
			if name := languageName(m.opts.Languages, d.path); !slices.ContainsFunc(rep.Checked, func(c Checked) bool { return c.Language == name }) {
				rep.Checked = append(rep.Checked, Checked{Language: name, Server: g.lang.Server.Name})
			}
		}
		rep.Diagnostics = append(rep.Diagnostics, diags...)
		rep.Notes = append(rep.Notes, notes...)
	}
	slices.SortStableFunc(rep.Diagnostics, func(a, b Diagnostic) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return rep, nil
}

func languageName(langs []Language, path string) string {
	if l, _, ok := languageOf(langs, path); ok {
		return l.Name
	}
	return ""
}

func describeExt(path string) string {
	if ext := filepath.Ext(path); ext != "" {
		return ext + " files"
	}
	return "files without an extension"
}

// checkWith runs one server over docs.
func (m *Manager) checkWith(ctx context.Context, root string, lang *Language, docs []*document, progress func(string)) ([]Diagnostic, []string, error) {
	s, err := m.acquire(ctx, root, lang, progress)
	if err != nil {
		return nil, nil, err
	}
	defer m.release(s)
	return s.check(ctx, docs, progress)
}

// acquire returns the running server for (root, lang's server), starting
// it when there is none, marked busy until [Manager.release].
func (m *Manager) acquire(ctx context.Context, root string, lang *Language, progress func(string)) (*server, error) {
	spec := lang.Server
	command := lookPath(spec.Command, m.opts.SearchPath)
	if command == "" {
		return nil, &NotInstalledError{Language: lang.Name, Server: spec.Name, InstallHint: spec.InstallHint,
			Reason: fmt.Sprintf("%s was not found on the PATH (%s)", spec.Command, spec.InstallHint)}
	}
	if spec.Missing != nil {
		if reason := spec.Missing(root, command); reason != "" {
			return nil, &NotInstalledError{Language: lang.Name, Server: spec.Name, InstallHint: spec.InstallHint, Reason: reason}
		}
	}

	key := serverKey{root: root, server: spec.Name}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	s := m.servers[key]
	if s != nil && s.dead() {
		delete(m.servers, key)
		s = nil
	}
	if s == nil {
		s = newServer(m, key, spec, command)
		m.servers[key] = s
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.run()
		}()
	}
	s.busy++
	m.mu.Unlock()

	select {
	case <-s.ready:
	default:
		progress("starting " + spec.Name + "…")
		select {
		case <-s.ready:
		case <-ctx.Done():
			m.release(s)
			return nil, ctx.Err()
		}
	}
	if s.startErr != nil {
		m.release(s)
		return nil, s.startErr
	}
	return s, nil
}

// release ends a use of s; the idle timer starts when none is left.
func (m *Manager) release(s *server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s.busy--
	s.lastUsed = time.Now()
	if s.busy == 0 && s.idle != nil {
		s.idle.Reset(m.opts.IdleTimeout)
	}
}

// expire stops s if it is still idle (its timer fired).
func (m *Manager) expire(s *server) {
	m.mu.Lock()
	if s.busy > 0 || time.Since(s.lastUsed) < m.opts.IdleTimeout*9/10 {
		m.mu.Unlock()
		return
	}
	if m.servers[s.key] == s {
		delete(m.servers, s.key)
	}
	m.mu.Unlock()
	m.opts.Logf("info", "lsp: stopping %s for %s (idle for %s)", s.spec.Name, s.key.root, m.opts.IdleTimeout)
	s.stop()
}

// forget drops s from the running servers (it died).
func (m *Manager) forget(s *server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.servers[s.key] == s {
		delete(m.servers, s.key)
	}
}

// Running lists the running servers as "name root", sorted (for health
// checks and tests).
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k, s := range m.servers {
		if !s.dead() {
			out = append(out, k.server+" "+k.root)
		}
	}
	slices.Sort(out)
	return out
}

// Close stops every server (shutdown and exit when it still answers, then
// its process group is killed) and waits for them: each server's own
// goroutine stops it once the manager's context ends, and a server still
// starting gives up. Checks in progress fail; later ones return ErrClosed.
// Idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	clear(m.servers)
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	return nil
}
