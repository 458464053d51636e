package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/redact"
)

// Bounds of a server's stderr: the tail kept for error messages, one
// logged line, and the lines logged per server.
const (
	stderrKeep     = 8 << 10
	stderrLineMax  = 1024
	stderrLogLines = 2000
)

// stopGrace is how long a server gets after SIGTERM before SIGKILL.
const stopGrace = 2 * time.Second

// server is one running language server and its connection.
type server struct {
	m       *Manager
	key     serverKey
	spec    *Server
	command string

	// Set by start before ready closes.
	cmd         *exec.Cmd
	stream      *pipeStream
	conn        jsonrpc2.Conn
	pull        bool   // the server answers textDocument/diagnostic
	encoding    string // position encoding: utf-16, utf-8 or utf-32
	initialized bool
	startErr    error
	ready       chan struct{}

	exited  chan struct{} // closed once the process is reaped
	waitErr error         // cmd.Wait's result, set before exited closes

	stopping chan struct{} // closed when stop begins
	stopOnce sync.Once
	stopped  chan struct{}

	// Guarded by Manager.mu.
	busy     int
	lastUsed time.Time
	idle     *time.Timer

	runSem chan struct{} // one check at a time

	mu       sync.Mutex
	current  *checkRun
	version  int32
	active   map[string]string // work-done progress tokens running → their title
	activity time.Time         // the last message from the server
	// versioned: the server has sent a versioned publishDiagnostics.
	versioned bool

	stderrMu     sync.Mutex
	stderrTail   []byte
	stderrLogged int
	stderrDone   chan struct{}
	stderrR      *os.File
}

func newServer(m *Manager, key serverKey, spec *Server, command string) *server {
	return &server{m: m, key: key, spec: spec, command: command,
		ready: make(chan struct{}), exited: make(chan struct{}), stopping: make(chan struct{}),
		stopped: make(chan struct{}), stderrDone: make(chan struct{}), runSem: make(chan struct{}, 1),
		active: map[string]string{}, encoding: "utf-16", lastUsed: time.Now()}
}

// run starts the server, then watches it until it exits or is stopped.
func (s *server) run() {
	if err := s.start(); err != nil {
		// Kill what was started before anyone hears of the failure, so a
		// failed call leaves no process behind.
		s.m.forget(s)
		s.stop()
		s.startErr = err
		close(s.ready)
		return
	}
	s.m.mu.Lock()
	s.idle = time.AfterFunc(s.m.opts.IdleTimeout, func() { s.m.expire(s) })
	if s.busy > 0 {
		s.idle.Stop()
	}
	s.m.mu.Unlock()
	close(s.ready)
	select {
	case <-s.exited:
		s.m.opts.Logf("warn", "lsp: %s for %s exited (%s)%s", s.spec.Name, s.key.root, s.exitStatus(), stderrSuffix(s.tail()))
		s.m.forget(s)
		s.stop()
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.m.opts.Logf("warn", "lsp: connection to %s for %s lost: %v", s.spec.Name, s.key.root, err)
		}
		s.m.forget(s)
		s.stop()
	case <-s.m.ctx.Done(): // Manager.Close
		s.stop()
	case <-s.stopping:
		// Stopped elsewhere (idle, or a check that saw it fail): wait
		// until that stop has reaped it, so Manager.Close, which waits for
		// this goroutine, never returns while a process is left.
		<-s.stopped
	}
}

// dead reports whether s can no longer serve checks.
func (s *server) dead() bool {
	select {
	case <-s.stopping:
		return true
	case <-s.exited:
		return true
	case <-s.ready:
		return s.startErr != nil
	default:
		return false
	}
}

// start spawns the server and initializes it, within InitTimeout.
func (s *server) start() error {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.InitTimeout)
	defer cancel()
	if err := s.spawn(); err != nil {
		return &ServerError{Server: s.spec.Name, Reason: "cannot start " + s.command + ": " + errText(err)}
	}
	s.conn = jsonrpc2.NewConn(s.stream, jsonrpc2.WithCodec(stdCodec{}))
	s.conn.Go(context.Background(), s.handle)

	root := s.key.root
	params := initializeParams{
		ProcessID:  os.Getpid(),
		ClientInfo: clientInfo{Name: "meith"},
		RootPath:   root,
		RootURI:    pathToURI(root),
		Capabilities: clientCaps{
			Workspace: workspaceCaps{WorkspaceFolders: true, Configuration: true},
			TextDocument: textDocumentCaps{
				PublishDiagnostics: publishDiagnosticsCaps{VersionSupport: true, CodeDescriptionSupport: true},
			},
			Window:  windowCaps{WorkDoneProgress: true},
			General: generalCaps{PositionEncodings: []string{"utf-16"}},
		},
		WorkspaceFolders: []workspaceFolder{{URI: pathToURI(root), Name: filepath.Base(root)}},
	}
	var res initializeResult
	if _, err := s.conn.Call(ctx, methodInitialize, params, &res); err != nil {
		return s.failure(ctx, "initialize", err)
	}
	if p := strings.TrimSpace(string(res.Capabilities.DiagnosticProvider)); p != "" && p != "null" && p != "false" {
		s.pull = true
	}
	switch res.Capabilities.PositionEncoding {
	case "utf-8", "utf-32":
		s.encoding = res.Capabilities.PositionEncoding
	}
	if err := s.conn.Notify(ctx, methodInitialized, struct{}{}); err != nil {
		return s.failure(ctx, "initialized", err)
	}
	s.initialized = true
	name := s.spec.Name
	if res.ServerInfo != nil && res.ServerInfo.Name != "" {
		version := res.ServerInfo.Version
		var build struct{ Version string } // gopls sends its build info as JSON
		if json.Unmarshal([]byte(version), &build) == nil {
			version = build.Version
		}
		name = cut(strings.TrimSpace(res.ServerInfo.Name+" "+version), 80)
	}
	s.m.opts.Logf("info", "lsp: started %s (pid %d) for %s (pull diagnostics: %v)", name, s.cmd.Process.Pid, root, s.pull)
	return nil
}

// spawn starts the process in its own process group with pipes we own.
func (s *server) spawn() error {
	cmd := exec.Command(s.command, s.spec.Args...)
	cmd.Dir = s.key.root
	cmd.Env = s.m.opts.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW)
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(inR, inW, outR, outW)
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeFiles(inR, inW, outR, outW, errR, errW)
		return err
	}
	closeFiles(inR, outW, errW) // the child holds its own copies
	s.cmd = cmd
	s.stream = newPipeStream(outR, inW, s.m.opts.WriteTimeout)
	s.stderrR = errR
	go s.readStderr(errR)
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return nil
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// readStderr keeps the tail of the server's stderr and logs its lines
// (cut, and at most stderrLogLines of them).
func (s *server) readStderr(r *os.File) {
	defer close(s.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			s.stderrMu.Lock()
			s.stderrTail = append(s.stderrTail, line...)
			if len(s.stderrTail) > stderrKeep {
				s.stderrTail = append([]byte(nil), s.stderrTail[len(s.stderrTail)-stderrKeep:]...)
			}
			n := s.stderrLogged
			s.stderrLogged++
			s.stderrMu.Unlock()
			switch {
			case n < stderrLogLines:
				s.m.opts.Logf("debug", "lsp: %s stderr: %s", s.spec.Name, cut(strings.TrimRight(string(line), "\r\n"), stderrLineMax))
			case n == stderrLogLines:
				s.m.opts.Logf("warn", "lsp: %s writes much to stderr: its further lines are not logged", s.spec.Name)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// tail is the end of the server's stderr (its last lines, redacted), for
// error messages; "" when it wrote nothing.
func (s *server) tail() string {
	select {
	case <-s.exited:
		select {
		case <-s.stderrDone:
		case <-time.After(300 * time.Millisecond):
		}
	default:
	}
	s.stderrMu.Lock()
	t := strings.TrimSpace(strings.ToValidUTF8(string(s.stderrTail), "\uFFFD"))
	s.stderrMu.Unlock()
	lines := strings.Split(t, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return redact.String(cut(strings.Join(lines, " | "), 600))
}

// stderrSuffix ends a message with a server's stderr tail.
func stderrSuffix(tail string) string {
	if tail == "" {
		return ", without output on stderr"
	}
	return ": " + tail
}

func (s *server) exitStatus() string {
	select {
	case <-s.exited:
	default:
		return "running"
	}
	var ee *exec.ExitError
	switch {
	case s.waitErr == nil:
		return "exit status 0"
	case errors.As(s.waitErr, &ee):
		return ee.ProcessState.String()
	default:
		return s.waitErr.Error()
	}
}

// failure describes why a request to the server (what) failed with err.
func (s *server) failure(ctx context.Context, what string, err error) error {
	if s.m.ctx.Err() != nil {
		return ErrClosed
	}
	// A message that broke the protocol (over the limit, malformed)
	// explains a failure best, then a broken connection, then a process
	// that ended. A write into a closed pipe is the consequence of one of
	// them, never the cause.
	select {
	case <-s.exited:
	case <-time.After(200 * time.Millisecond):
	}
	if perr := s.stream.protocolFailure(); perr != nil {
		return &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("connection lost during %s: %s", what, errText(perr))}
	}
	select {
	case <-s.conn.Done():
		if cerr := s.conn.Err(); cerr != nil && !errors.Is(cerr, io.ErrUnexpectedEOF) && !errors.Is(cerr, os.ErrClosed) && !errors.Is(cerr, syscall.EPIPE) {
			return &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("connection lost during %s: %s", what, errText(cerr))}
		}
	default:
	}
	select {
	case <-s.exited:
		return &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("exited during %s (%s)%s", what, s.exitStatus(), stderrSuffix(s.tail()))}
	default:
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && what == methodInitialize {
			return &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("did not answer initialize within %s%s", s.m.opts.InitTimeout, stderrSuffix(s.tail()))}
		}
		return ctx.Err()
	}
	select {
	case <-s.conn.Done():
		return &ServerError{Server: s.spec.Name, Reason: "closed its output during " + what}
	default:
	}
	return &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("%s failed: %s", what, errText(err))}
}

// gone returns a channel closed when the server can no longer answer (its
// process ended, its connection did, or it is being stopped), and the func
// that ends the watch.
func (s *server) gone() (<-chan struct{}, func()) {
	ch, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-s.exited:
		case <-s.conn.Done():
		case <-s.stopping:
		case <-done:
			return
		}
		close(ch)
	}()
	var once sync.Once
	return ch, func() { once.Do(func() { close(done) }) }
}

// goneError says why the server went away during a check, once it is
// stopped (so the failed call leaves no process behind).
func (s *server) goneError(ctx context.Context) error {
	err := s.failure(ctx, "the check", errors.New("the server went away"))
	s.m.forget(s)
	s.stop()
	if s.m.ctx.Err() != nil {
		return ErrClosed
	}
	return err
}

// handle answers the server's requests and takes its notifications. It
// runs on the connection's read goroutine, so it never blocks.
func (s *server) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	s.activity = time.Now()
	s.mu.Unlock()
	params := req.Params()
	switch req.Method() {
	case methodPublishDiagnostics:
		var p publishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			s.published(p)
		}
		return nil, nil
	case methodProgress:
		var p progressParams
		if json.Unmarshal(params, &p) == nil {
			s.progressed(p)
		}
		return nil, nil
	case methodLogMessage, methodShowMessage:
		var p messageParams
		if json.Unmarshal(params, &p) == nil {
			s.m.opts.Logf("debug", "lsp: %s: %s", s.spec.Name, cut(p.Message, stderrLineMax))
		}
		if !req.IsCall() {
			return nil, nil
		}
	case methodWorkDoneCreate, methodRegisterCapability, methodUnregisterCapabilty, methodShowMessageRequest:
		return nil, nil
	case methodConfiguration:
		var p configurationParams
		_ = json.Unmarshal(params, &p)
		return make([]any, min(len(p.Items), 1000)), nil // no settings: each item null
	case methodWorkspaceFolders:
		return []workspaceFolder{{URI: pathToURI(s.key.root), Name: filepath.Base(s.key.root)}}, nil
	case methodApplyEdit:
		return applyEditResult{FailureReason: "meith only reads diagnostics"}, nil
	}
	if !req.IsCall() {
		return nil, nil // telemetry and the like
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// published takes a publishDiagnostics notification for the check in
// progress; others (files of no check, stale versions) are dropped.
func (s *server) published(p publishDiagnosticsParams) {
	path := uriToPath(p.URI)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.current
	if r == nil || path == "" {
		return
	}
	if p.Version != nil {
		s.versioned = true
	}
	f := r.files[path]
	// A server that versions its publishes sends an unversioned one only
	// for a closed file: it clears what an earlier check opened.
	if f == nil || (p.Version != nil && *p.Version != f.version) || (p.Version == nil && s.versioned) {
		return
	}
	if len(p.Diagnostics) > MaxDiagnosticsPerFile {
		p.Diagnostics = p.Diagnostics[:MaxDiagnosticsPerFile]
		f.truncated = true
	}
	f.published = true
	f.diags = p.Diagnostics
	r.lastPublish = time.Now()
	r.signal()
}

// progressed tracks the server's work-done progress.
func (s *server) progressed(p progressParams) {
	token := string(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Value.Kind == "begin" && len(s.active) < 100 {
		s.active[token] = cut(p.Value.Title, 200)
	}
	if r := s.current; r != nil {
		title := s.active[token]
		if p.Value.Kind == "begin" || title == "" {
			title = p.Value.Title
		}
		text := strings.TrimSpace(p.Value.Message)
		switch {
		case title != "" && text != "":
			text = title + ": " + text
		case text == "" && p.Value.Kind == "end":
			text = strings.TrimSpace(title + " done")
		case text == "":
			text = title
		}
		if p.Value.Percentage != nil && p.Value.Kind != "end" {
			text += fmt.Sprintf(" (%d%%)", *p.Value.Percentage)
		}
		if text != "" {
			r.progress = s.spec.Name + ": " + cut(text, 200)
			r.signal()
		}
	}
	if p.Value.Kind == "end" {
		delete(s.active, token)
	}
}

// document is a file to check, read from disk.
type document struct {
	path       string
	uri        string
	languageID string
	text       string
}

// checkRun is the state of one check: its files and what the server said
// about them.
type checkRun struct {
	files       map[string]*runFile // by path
	changed     chan struct{}
	lastPublish time.Time
	progress    string // the newest progress message, "" once emitted
}

type runFile struct {
	doc       *document
	version   int32
	published bool
	truncated bool
	diags     []diagnostic
}

func (r *checkRun) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// check opens docs, collects their diagnostics and closes them again.
func (s *server) check(ctx context.Context, docs []*document, progress func(string)) ([]Diagnostic, []string, error) {
	gone, unwatch := s.gone()
	defer unwatch()
	select {
	case s.runSem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-gone:
		return nil, nil, s.goneError(ctx)
	}
	defer func() { <-s.runSem }()

	r := &checkRun{files: map[string]*runFile{}, changed: make(chan struct{}, 1)}
	s.mu.Lock()
	for _, d := range docs {
		s.version++
		r.files[d.path] = &runFile{doc: d, version: s.version}
	}
	s.current = r
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.current = nil
		s.mu.Unlock()
	}()

	var opened []*runFile
	defer func() {
		// Close what was opened, briefly, even when ctx has ended.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		for _, f := range opened {
			if s.conn.Notify(cctx, methodDidClose, didCloseParams{TextDocument: textDocumentIdentifier{URI: f.doc.uri}}) != nil {
				return
			}
		}
	}()
	for _, d := range docs {
		f := r.files[d.path]
		err := s.conn.Notify(ctx, methodDidOpen, didOpenParams{TextDocument: textDocumentItem{
			URI: d.uri, LanguageID: d.languageID, Version: f.version, Text: d.text}})
		if err != nil {
			return nil, nil, s.failure(ctx, "didOpen", err)
		}
		opened = append(opened, f)
	}

	var notes []string
	pulled := false
	if s.pull {
		var err error
		pulled, err = s.pullAll(ctx, r, gone)
		if err != nil {
			return nil, nil, err
		}
	}
	if !pulled {
		var err error
		notes, err = s.settle(ctx, r, gone, progress)
		if err != nil {
			return nil, nil, err
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Diagnostic
	for _, d := range docs {
		f := r.files[d.path]
		if f.truncated {
			notes = append(notes, fmt.Sprintf("%s reported more than %d problems in %s: the first %d are listed", s.spec.Name, MaxDiagnosticsPerFile, d.path, MaxDiagnosticsPerFile))
		}
		for _, dg := range f.diags {
			out = append(out, convert(d, dg, s.encoding))
		}
	}
	return out, notes, nil
}

// pullAll asks for each file's diagnostics (textDocument/diagnostic).
// pulled is false when the server turned out not to answer the request
// (the caller then waits for published ones).
func (s *server) pullAll(ctx context.Context, r *checkRun, gone <-chan struct{}) (pulled bool, err error) {
	for path, f := range r.files {
		for attempt := 0; ; attempt++ {
			var rep documentDiagnosticReport
			_, err := s.conn.Call(ctx, methodDocumentDiagnostic, documentDiagnosticParams{TextDocument: textDocumentIdentifier{URI: f.doc.uri}}, &rep)
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) {
				if rpcErr.Code == codeServerCancelled && attempt < 20 {
					select {
					case <-time.After(250 * time.Millisecond):
						continue
					case <-ctx.Done():
						return false, ctx.Err()
					case <-gone:
						return false, s.goneError(ctx)
					}
				}
				if rpcErr.Code == jsonrpc2.MethodNotFound {
					s.pull = false
					return false, nil
				}
				return false, &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("textDocument/diagnostic for %s failed: %s", path, cut(rpcErr.Message, 300))}
			}
			if err != nil {
				return false, s.failure(ctx, "textDocument/diagnostic", err)
			}
			s.mu.Lock()
			if len(rep.Items) > MaxDiagnosticsPerFile {
				rep.Items = rep.Items[:MaxDiagnosticsPerFile]
				f.truncated = true
			}
			f.diags, f.published = rep.Items, true
			s.mu.Unlock()
			break
		}
	}
	return true, nil
}

// settle waits until the published diagnostics settle: every file
// published, no work-done progress running and nothing new for
// SettleDelay. A file the server publishes nothing for is given up once
// the server has been silent for QuietTimeout (a note says so); the whole
// wait is bounded by MaxWait.
func (s *server) settle(ctx context.Context, r *checkRun, gone <-chan struct{}, progress func(string)) ([]string, error) {
	opts := s.m.opts
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastBeat := start
	for {
		s.mu.Lock()
		all, missing := true, []string(nil)
		for path, f := range r.files {
			if !f.published {
				all = false
				missing = append(missing, path)
			}
		}
		busy := len(s.active)
		lastPublish, activity := r.lastPublish, s.activity
		msg := r.progress
		r.progress = ""
		s.mu.Unlock()

		now := time.Now()
		if msg != "" {
			progress(msg)
			lastBeat = now
		}
		switch {
		case all && busy == 0 && now.Sub(lastPublish) >= opts.SettleDelay:
			return nil, nil
		case !all && busy == 0 && now.Sub(start) >= opts.QuietTimeout && now.Sub(activity) >= opts.QuietTimeout:
			return s.missingNotes(missing, "it published nothing for them and has been silent for "+opts.QuietTimeout.String()), nil
		case now.Sub(start) >= opts.MaxWait:
			if all {
				return []string{fmt.Sprintf("%s was still busy after %s: its diagnostics may be incomplete", s.spec.Name, opts.MaxWait)}, nil
			}
			return nil, &ServerError{Server: s.spec.Name, Reason: fmt.Sprintf("published no diagnostics for %s within %s", strings.Join(missing, ", "), opts.MaxWait)}
		}
		if now.Sub(lastBeat) >= 5*time.Second {
			progress(fmt.Sprintf("waiting for %s… %d s", s.spec.Name, int(now.Sub(start).Seconds())))
			lastBeat = now
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-gone:
			return nil, s.goneError(ctx)
		case <-r.changed:
		case <-tick.C:
		}
	}
}

func (s *server) missingNotes(paths []string, why string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, fmt.Sprintf("%s reported nothing for %s (%s)", s.spec.Name, p, why))
	}
	return out
}

// stop ends the server: shutdown and exit when it still answers, then its
// process group gets SIGTERM and SIGKILL, and the pipes are closed.
// Idempotent; it waits until the process is reaped.
func (s *server) stop() {
	s.stopOnce.Do(func() {
		close(s.stopping)
		defer close(s.stopped)
		s.m.mu.Lock()
		if s.idle != nil {
			s.idle.Stop()
		}
		s.m.mu.Unlock()
		if s.cmd == nil {
			return // never started
		}
		select {
		case <-s.exited:
		default:
			if s.initialized {
				ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
				if _, err := s.conn.Call(ctx, methodShutdown, nil, nil); err == nil {
					_ = s.conn.Notify(ctx, methodExit, nil)
					select {
					case <-s.exited:
					case <-ctx.Done():
					}
				}
				cancel()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), stopGrace+5*time.Second)
		if err := process.StopGroup(ctx, s.cmd.Process.Pid, syscall.SIGTERM, stopGrace); err != nil {
			s.m.opts.Logf("warn", "lsp: stop %s: %v", s.spec.Name, err)
		}
		cancel()
		_ = s.stream.Close()
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			s.m.opts.Logf("warn", "lsp: %s (pid %d) was not reaped after SIGKILL", s.spec.Name, s.cmd.Process.Pid)
		}
		if s.conn != nil {
			select {
			case <-s.conn.Done():
			case <-time.After(2 * time.Second):
			}
		}
		select {
		case <-s.stderrDone:
		case <-time.After(time.Second):
			_ = s.stderrR.Close() // a process outside the group holds it
		}
	})
	<-s.stopped
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// errText is err's text without an *os.PathError's path.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
