package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"
)

// goplsDir returns the folder of a real gopls: the repository's
// build/tools (scripts/setup.sh installs the pinned version there), else
// PATH. Without one the test is skipped, except in CI, where it must be
// there.
func goplsDir(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := append([]string{filepath.Join(repo, "build", "tools")}, filepath.SplitList(os.Getenv("PATH"))...)
	if p := lookPath("gopls", dirs); p != "" {
		return filepath.Dir(p)
	}
	if os.Getenv("CI") != "" {
		t.Fatal("gopls is not on PATH nor in build/tools: scripts/setup.sh installs it and CI needs it")
	}
	t.Skip("gopls is not on PATH nor in build/tools: run scripts/setup.sh (or GOBIN=$PWD/build/tools go install golang.org/x/tools/gopls@v0.23.0)")
	return ""
}

// testLog collects the manager's log lines; they are printed when the
// test fails.
type testLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *testLog) logf(level, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, level+" "+fmt.Sprintf(format, args...))
}

func (l *testLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// newTestManager returns a Manager that finds commands in dirs (and the
// system folders sh and go live in), closed when the test ends.
func newTestManager(t *testing.T, opts Options, dirs ...string) *Manager {
	t.Helper()
	log := &testLog{}
	opts.Logf = log.logf
	if opts.SearchPath == nil {
		goDir := ""
		if p, err := exec.LookPath("go"); err == nil {
			goDir = filepath.Dir(p)
		}
		opts.SearchPath = append(dirs, goDir, "/usr/local/bin", "/usr/bin", "/bin")
	}
	m := New(opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if t.Failed() {
			t.Logf("manager log:\n%s", log)
		}
	})
	return m
}

// writeFiles writes files (relative path → content) under a new temp
// folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const goMod = "module example.com/m\n\ngo 1.22\n"

// brokenMain has an unused variable, a type error, and a type error after
// non-ASCII text, where UTF-16 columns differ from byte columns.
const brokenMain = `package main

import "fmt"

func main() {
	x := 1
	var s string = 5
	greeting := "héllo 😀"; var n int = greeting
	fmt.Println(s, n)
}
`

// compilerError is an error the go command reports, its column converted
// to UTF-16 code units.
type compilerError struct {
	File   string
	Line   int
	Column int
}

var goErrorLine = regexp.MustCompile(`^\./?([^:]+\.go):(\d+):(\d+): (.*)$`)

// goBuildErrors builds the package in dir with the go command and returns
// every type error it reports (-gcflags=-e: all of them, not the first
// ten), with UTF-16 columns: the oracle for gopls' positions.
func goBuildErrors(t *testing.T, dir string) []compilerError {
	t.Helper()
	cmd := exec.Command("go", "build", "-gcflags=-e", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var errs []compilerError
	for _, line := range strings.Split(string(out), "\n") {
		m := goErrorLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		byteCol, _ := strconv.Atoi(m[3])
		src, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Split(string(src), "\n")[ln-1]
		col := len(utf16.Encode([]rune(text[:byteCol-1]))) + 1
		errs = append(errs, compilerError{File: filepath.Join(dir, m[1]), Line: ln, Column: col})
	}
	if len(errs) == 0 {
		t.Fatalf("go build failed without errors to compare: %s", out)
	}
	return errs
}

// TestGoplsDiagnosticsMatchTheCompiler: gopls' errors for a broken file
// are the go command's, at the same lines and (UTF-16) columns.
func TestGoplsDiagnosticsMatchTheCompiler(t *testing.T) {
	m := newTestManager(t, Options{}, goplsDir(t))
	dir := writeFiles(t, map[string]string{"go.mod": goMod, "main.go": brokenMain})
	want := goBuildErrors(t, dir)
	if len(want) != 3 {
		t.Fatalf("the go command reports %d errors, want 3: %+v", len(want), want)
	}

	var progress []string
	rep, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "main.go")}, func(s string) { progress = append(progress, s) })
	if err != nil {
		t.Fatal(err)
	}
	var got []compilerError
	for _, d := range rep.Diagnostics {
		if d.Severity == "error" {
			got = append(got, compilerError{File: d.Path, Line: d.Line, Column: d.Column})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("gopls errors at %+v\nthe go command's at %+v\nall: %+v", got, want, rep.Diagnostics)
	}
	unused := rep.Diagnostics[slices.IndexFunc(rep.Diagnostics, func(d Diagnostic) bool { return d.Line == 6 })]
	if !strings.Contains(unused.Message, "declared and not used") || unused.EndLine != 6 || unused.EndColumn != 3 {
		t.Errorf("the unused variable: %+v", unused)
	}
	if !slices.Equal(rep.Checked, []Checked{{Language: "go", Server: "gopls"}}) || len(rep.Unsupported) != 0 {
		t.Errorf("checked %+v, unsupported %+v", rep.Checked, rep.Unsupported)
	}
	if len(progress) == 0 || progress[0] != "starting gopls…" {
		t.Errorf("progress = %q, want it to start with starting gopls…", progress)
	}
}

// TestGoplsCleanFileHasNoDiagnostics: a correct file gives none.
func TestGoplsCleanFileHasNoDiagnostics(t *testing.T) {
	m := newTestManager(t, Options{}, goplsDir(t))
	dir := writeFiles(t, map[string]string{"go.mod": goMod,
		"calc/calc.go": "// Package calc adds.\npackage calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n"})
	if errs := goBuildErrors(t, filepath.Join(dir, "calc")); len(errs) != 0 {
		t.Fatalf("the go command finds errors: %+v", errs)
	}
	rep, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "calc", "calc.go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Diagnostics) != 0 || len(rep.Notes) != 0 {
		t.Errorf("diagnostics %+v, notes %q; want none", rep.Diagnostics, rep.Notes)
	}
}

// TestGoplsServerIsReused: two checks in one root share one gopls, and
// the second sees a change made on disk in between.
func TestGoplsServerIsReused(t *testing.T) {
	m := newTestManager(t, Options{}, goplsDir(t))
	dir := writeFiles(t, map[string]string{"go.mod": goMod, "main.go": brokenMain})
	main := filepath.Join(dir, "main.go")

	first, err := m.Check(context.Background(), dir, []string{main}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := serverPID(t, m, dir, "gopls")
	fixed := strings.Replace(strings.Replace(brokenMain, "\tx := 1\n", "", 1), "var s string = 5", "var s = \"5\"", 1)
	fixed = strings.Replace(fixed, "var n int = greeting", "var n = greeting", 1)
	if err := os.WriteFile(main, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := m.Check(context.Background(), dir, []string{main}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again := serverPID(t, m, dir, "gopls"); again != pid {
		t.Errorf("the second check ran gopls %d, the first %d: want one server", again, pid)
	}
	if got := m.Running(); len(got) != 1 {
		t.Errorf("running %q, want one server", got)
	}
	if errorsIn(first) != 3 || errorsIn(second) != 0 {
		t.Errorf("errors: first %+v, second %+v; want 3 then 0", first.Diagnostics, second.Diagnostics)
	}
}

func errorsIn(r Report) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == "error" {
			n++
		}
	}
	return n
}

// serverPID returns the pid of the running server name for root.
func serverPID(t *testing.T, m *Manager, root, name string) int {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.servers[serverKey{root: root, server: name}]
	if s == nil || s.cmd == nil {
		t.Fatalf("no %s runs for %s", name, root)
	}
	return s.cmd.Process.Pid
}

// procStat reads a process's state and process group from /proc.
func procStat(pid int) (state byte, pgid int, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:])) // state ppid pgrp …
	if i < 0 || len(f) < 3 {
		return 0, 0, false
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0][0], pgid, true
}

// alive reports whether pid runs (a zombie waiting for its reaper does
// not).
func alive(pid int) bool {
	st, _, ok := procStat(pid)
	return ok && st != 'Z' && st != 'X'
}

// groupGone reports whether no live process of the group pgid is left.
func groupGone(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, g, ok := procStat(pid); ok && g == pgid && st != 'Z' && st != 'X' {
			return false
		}
	}
	return true
}

// eventually polls cond for at most 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not the case after 30 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIdleServerStops: a server unused for IdleTimeout is stopped with
// its process group; the next check starts a new one.
func TestIdleServerStops(t *testing.T) {
	m := newTestManager(t, Options{IdleTimeout: 300 * time.Millisecond}, goplsDir(t))
	dir := writeFiles(t, map[string]string{"go.mod": goMod, "main.go": brokenMain})
	main := filepath.Join(dir, "main.go")
	if _, err := m.Check(context.Background(), dir, []string{main}, nil); err != nil {
		t.Fatal(err)
	}
	pid := serverPID(t, m, dir, "gopls")
	eventually(t, "the idle gopls is stopped", func() bool { return len(m.Running()) == 0 && groupGone(pid) })

	rep, err := m.Check(context.Background(), dir, []string{main}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if errorsIn(rep) != 3 {
		t.Errorf("after a restart: %+v", rep.Diagnostics)
	}
}

// TestCloseKillsServers: Close stops every server and its process group
// before it returns; later checks fail with ErrClosed.
func TestCloseKillsServers(t *testing.T) {
	m := newTestManager(t, Options{}, goplsDir(t))
	a := writeFiles(t, map[string]string{"go.mod": goMod, "main.go": brokenMain})
	b := writeFiles(t, map[string]string{"go.mod": goMod, "main.go": brokenMain})
	for _, dir := range []string{a, b} {
		if _, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "main.go")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	pids := []int{serverPID(t, m, a, "gopls"), serverPID(t, m, b, "gopls")}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !groupGone(pid) {
			t.Errorf("gopls %d (or its group) still runs after Close", pid)
		}
	}
	if _, err := m.Check(context.Background(), a, []string{filepath.Join(a, "main.go")}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("check after Close: %v, want ErrClosed", err)
	}
}

// TestCloseDuringStart: Close while a server is starting (here one that
// never answers initialize) ends the start at once: the check fails with
// ErrClosed and no process is left.
func TestCloseDuringStart(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	m := newTestManager(t, Options{Languages: shServer(`echo $$ > ` + pidFile + `; sleep 1000 & echo $! >> ` + pidFile + `; wait`),
		InitTimeout: time.Hour})
	dir := writeFiles(t, map[string]string{"main.go": "package main\n"})
	done := make(chan error, 1)
	go func() {
		_, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "main.go")}, nil)
		done <- err
	}()
	eventually(t, "the server wrote its pids", func() bool {
		data, _ := os.ReadFile(pidFile)
		return len(strings.Fields(string(data))) == 2
	})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("check: %v, want ErrClosed", err)
	}
	data, _ := os.ReadFile(pidFile)
	for _, p := range strings.Fields(string(data)) {
		if pid, _ := strconv.Atoi(p); alive(pid) {
			t.Errorf("process %d still runs after Close", pid)
		}
	}
}

// TestUnsupported: a language without a server, and servers that are not
// installed, give Unsupported entries with the install hint, not errors.
func TestUnsupported(t *testing.T) {
	empty := t.TempDir()
	bin := t.TempDir()
	// A typescript-language-server without TypeScript (never started).
	if err := os.WriteFile(filepath.Join(bin, "typescript-language-server"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"a.ts": "let x: number = 'no'\n", "b.go": "package b\n", "c.md": "# c\n", "d.py": "x = 1\n"})
	tests := []struct {
		name       string
		searchPath []string
		file       string
		language   string
		hint       string
		reason     string
	}{
		{"typescript, no server", []string{empty}, "a.ts", "typescript", "npm i -g typescript typescript-language-server", "typescript-language-server was not found"},
		{"typescript, no TypeScript", []string{bin}, "a.ts", "typescript", "npm i -g typescript typescript-language-server", "needs TypeScript"},
		{"go, no gopls", []string{empty}, "b.go", "go", "go install golang.org/x/tools/gopls@latest", "gopls was not found"},
		{"python, no pyright", []string{empty}, "d.py", "python", "npm i -g pyright", "pyright-langserver was not found"},
		{"markdown, no server known", []string{empty}, "c.md", "", "", "no language server for .md files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestManager(t, Options{SearchPath: tc.searchPath})
			rep, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, tc.file)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Checked) != 0 || len(rep.Diagnostics) != 0 || len(rep.Unsupported) != 1 {
				t.Fatalf("report %+v, want one unsupported file", rep)
			}
			u := rep.Unsupported[0]
			if u.Path != filepath.Join(dir, tc.file) || u.Language != tc.language || u.InstallHint != tc.hint || !strings.Contains(u.Reason, tc.reason) {
				t.Errorf("unsupported %+v, want language %q, hint %q, reason with %q", u, tc.language, tc.hint, tc.reason)
			}
			if len(m.Running()) != 0 {
				t.Errorf("servers run: %q", m.Running())
			}
		})
	}
}

// shServer is a language table whose one language (.go files) is served
// by sh running script: a stand-in for a broken server, for the failure
// paths only.
func shServer(script string) []Language {
	return []Language{{Name: "go", Extensions: map[string]string{".go": "go"},
		Server: &Server{Name: "fake", Command: "sh", Args: []string{"-c", script}}}}
}

// initializeAnswer is the frame a server answers the first call
// (initialize, id 1) with.
func initializeAnswer() string {
	body := `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`
	return fmt.Sprintf(`printf 'Content-Length: %d\r\n\r\n%s'`, len(body), body)
}

// TestBrokenServersFailCleanly: a server that hangs, crashes, dies after
// initialize or sends an oversized message ends the check with a
// *ServerError that says so, and leaves no process behind (the pids the
// script wrote, its own and a child's, are gone when Check returns).
func TestBrokenServersFailCleanly(t *testing.T) {
	tests := []struct {
		name   string
		script string // $P is the file the script writes pids to
		want   string
	}{
		{"never answers", `echo $$ > $P; sleep 1000 & echo $! >> $P; wait`, "did not answer initialize within 1s"},
		{"crashes at start", `echo $$ > $P; echo "panic: boom" >&2; exit 3`, "exited during initialize (exit status 3): panic: boom"},
		{"dies after initialize", `echo $$ > $P; head -c 1 >/dev/null; ` + initializeAnswer() + `; head -c 200 >/dev/null; exit 7`, "exit status 7"},
		{"floods", `echo $$ > $P; sleep 1000 </dev/null & echo $! >> $P; head -c 1 >/dev/null; ` + initializeAnswer() +
			`; printf 'Content-Length: 999999999\r\n\r\n'; cat >/dev/null`, "over 64 MiB"},
		{"garbage header", `echo $$ > $P; head -c 1 >/dev/null; printf 'Hello there\r\n\r\n'; cat >/dev/null`, "malformed header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			script := strings.ReplaceAll(tc.script, "$P", pidFile)
			m := newTestManager(t, Options{Languages: shServer(script), InitTimeout: time.Second, QuietTimeout: time.Second, MaxWait: 5 * time.Second})
			dir := writeFiles(t, map[string]string{"main.go": "package main\n"})
			_, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "main.go")}, nil)
			if !IsServerError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check: %v, want a ServerError with %q", err, tc.want)
			}
			data, _ := os.ReadFile(pidFile)
			pids := strings.Fields(string(data))
			if len(pids) == 0 {
				t.Fatal("the script wrote no pid")
			}
			for _, p := range pids {
				pid, _ := strconv.Atoi(p)
				if alive(pid) {
					t.Errorf("process %d still runs after the check failed", pid)
				}
			}
			if len(m.Running()) != 0 {
				t.Errorf("a failed server is still listed: %q", m.Running())
			}
		})
	}
}

// TestSilentServerGivesANote: a server that answers initialize but never
// publishes anything ends the check once it has been silent for
// QuietTimeout, with no diagnostics and a note that says so.
func TestSilentServerGivesANote(t *testing.T) {
	m := newTestManager(t, Options{Languages: shServer(`head -c 1 >/dev/null; ` + initializeAnswer() + `; cat >/dev/null`),
		QuietTimeout: 500 * time.Millisecond})
	dir := writeFiles(t, map[string]string{"main.go": "package main\n"})
	rep, err := m.Check(context.Background(), dir, []string{filepath.Join(dir, "main.go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Diagnostics) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "fake reported nothing for "+filepath.Join(dir, "main.go")) {
		t.Errorf("report %+v, want no diagnostics and a note", rep)
	}
}

// TestCheckEndsWithItsContext: a cancelled check returns at once; the
// server stays for the next one.
func TestCheckEndsWithItsContext(t *testing.T) {
	m := newTestManager(t, Options{Languages: shServer(`head -c 1 >/dev/null; ` + initializeAnswer() + `; cat >/dev/null`)})
	dir := writeFiles(t, map[string]string{"main.go": "package main\n"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Check(ctx, dir, []string{filepath.Join(dir, "main.go")}, func(msg string) {})
		done <- err
	}()
	eventually(t, "the fake server runs", func() bool { return len(m.Running()) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("check: %v, want context.Canceled", err)
	}
}

// TestReadHeader: the framing reader takes what the base protocol allows
// and refuses the rest with bounded reads.
func TestReadHeader(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
		err      string
	}{
		{"plain", "Content-Length: 12\r\n\r\n", 12, ""},
		{"with content type", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 3\r\n\r\n", 3, ""},
		{"case and bare newlines", "content-length:7\n\n", 7, ""},
		{"no length", "Content-Type: x\r\n\r\n", 0, "without Content-Length"},
		{"zero", "Content-Length: 0\r\n\r\n", 0, "invalid Content-Length"},
		{"negative", "Content-Length: -5\r\n\r\n", 0, "invalid Content-Length"},
		{"too large", fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxMessageBytes+1), 0, "over 64 MiB"},
		{"no colon", "Content-Length 5\r\n\r\n", 0, "malformed header line"},
		{"long line", "X: " + strings.Repeat("a", 5000) + "\r\n\r\n", 0, "over 1 KiB"},
		{"many lines", strings.Repeat("X: 1\r\n", 40) + "\r\n", 0, "too many lines"},
		{"cut short", "Content-Length: 5\r\n", 0, "unexpected EOF"},
		{"empty", "", 0, "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := readHeader(bufioReader(tc.in))
			if tc.err == "" {
				if err != nil || n != tc.want {
					t.Errorf("readHeader = %d, %v; want %d", n, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("readHeader = %d, %v; want an error with %q", n, err, tc.err)
			}
		})
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 4096) }

// TestStreamKeepsItsProtocolFailure: a message that breaks the protocol
// is kept by the stream (the connection's own error may only tell of a
// write that failed after it), while the end of the output and our own
// Close are not failures.
func TestStreamKeepsItsProtocolFailure(t *testing.T) {
	tests := []struct {
		name, out string
		want      string // "" when no failure is kept
	}{
		{"too large", fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxMessageBytes+1), "over 64 MiB"},
		{"malformed body", "Content-Length: 5\r\n\r\nhello", "malformed message"},
		{"garbage header", "Hello there\r\n\r\n", "malformed header"},
		{"end of output", "", ""},
		{"cut short", "Content-Length: 50\r\n\r\n{", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inR.Close()
			s := newPipeStream(outR, inW, time.Second)
			defer s.Close()
			if _, err := outW.WriteString(tc.out); err != nil {
				t.Fatal(err)
			}
			outW.Close()
			if _, _, err := s.Read(context.Background()); err == nil {
				t.Fatal("read succeeded")
			}
			got := s.protocolFailure()
			if tc.want == "" && got != nil || tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)) {
				t.Errorf("protocol failure %v, want %q", got, tc.want)
			}
		})
	}
}

// TestUTF16Columns: positions a server gives in UTF-8 or UTF-32 become
// UTF-16 columns; UTF-16 ones pass unchanged.
func TestUTF16Columns(t *testing.T) {
	text := "first\n\tgreeting := \"héllo 😀\"; x\r\nlast"
	// "x" on line 1 is at byte 28, rune 24, UTF-16 unit 25 ("é" is two
	// bytes and one unit, "😀" four bytes, one rune and two units).
	tests := []struct {
		encoding string
		char     uint32
		want     uint32
	}{
		{"utf-16", 25, 25},
		{"utf-8", 28, 25},
		{"utf-32", 24, 25},
		{"utf-8", 100, 26}, // past the end: the line's length
		{"utf-32", 100, 26},
		{"utf-8", 0, 0},
	}
	for _, tc := range tests {
		if got := utf16Column(text, position{Line: 1, Character: tc.char}, tc.encoding); got != tc.want {
			t.Errorf("%s %d → %d, want %d", tc.encoding, tc.char, got, tc.want)
		}
	}
}

// TestReadDocumentRefusesWhatIsNotAFile: a FIFO (never opened for
// reading in a way that blocks), a folder, a binary and an oversized file
// are skipped with a note.
func TestReadDocumentRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin.go")
	_ = os.WriteFile(bin, []byte("package a\x00"), 0o644)
	big := filepath.Join(dir, "big.go")
	_ = os.WriteFile(big, bytes.Repeat([]byte("a"), MaxFileBytes+1), 0o644)
	for path, want := range map[string]string{fifo: "not a regular file", dir: "not a regular file", bin: "not a UTF-8 text file", big: "over 4 MiB"} {
		doc, note := readDocument(path, "go")
		if doc != nil || !strings.Contains(note, want) {
			t.Errorf("%s: %v, %q; want a note with %q", path, doc, note, want)
		}
	}
}
