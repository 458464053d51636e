package template

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// inCI reports whether the CI variable says this is a CI run.
func inCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "false" && v != "0"
}

// TestAppBasicServes generates app-basic, starts it with the real node the
// way its dev script does, reads the port it prints, and fetches its page
// and API over HTTP. Then it stops the server's process group and checks
// nothing of it still runs.
func TestAppBasicServes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if inCI() {
			t.Fatal("node is not on PATH, and CI is set: the generated app must be started in CI (Debian: apt-get install nodejs)")
		}
		t.Skip("node is not on PATH: install Node 18 or newer to start the generated app (under CI=true this test fails instead)")
	}
	dir, err := Create(context.Background(), t.TempDir(), AppBasic, "Smoke <Test>")
	if err != nil {
		t.Fatal(err)
	}
	var pkg packageJSON
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	args := strings.Fields(pkg.Scripts["dev"]) // "node server.mjs"
	if len(args) != 2 || args[0] != "node" {
		t.Fatalf("the dev script is %q", pkg.Scripts["dev"])
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(node, args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	var waitOnce sync.Once
	var waitErr error
	wait := func() error {
		waitOnce.Do(func() { waitErr = cmd.Wait() })
		return waitErr
	}
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		wait()
	})

	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	local := regexp.MustCompile(`^Local: (http://127\.0\.0\.1:([0-9]+))/$`)
	var base string
	for base == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the server ended without printing its address; stderr:\n%s", stderr.String())
			}
			if m := local.FindStringSubmatch(line); m != nil {
				if m[2] == "0" {
					t.Fatalf("the server printed port 0: %q", line)
				}
				base = m[1]
			}
		case <-ctx.Done():
			t.Fatalf("no `Local: http://127.0.0.1:<port>/` line; stderr:\n%s", stderr.String())
		}
	}

	client := &http.Client{Timeout: 20 * time.Second}
	get := func(method, path string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, res.Header.Get("Content-Type"), string(body)
	}

	status, ctype, body := get("GET", "/")
	if status != 200 || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("GET / = %d %q", status, ctype)
	}
	if !strings.Contains(body, "<h1>Smoke &lt;Test&gt;</h1>") || !strings.Contains(body, `href="/style.css"`) {
		t.Errorf("GET / is not the app's page:\n%s", body)
	}
	if status, ctype, body := get("GET", "/style.css"); status != 200 || !strings.HasPrefix(ctype, "text/css") || !strings.Contains(body, ".card") {
		t.Errorf("GET /style.css = %d %q", status, ctype)
	}
	if status, ctype, _ := get("GET", "/app.js"); status != 200 || !strings.HasPrefix(ctype, "text/javascript") {
		t.Errorf("GET /app.js = %d %q", status, ctype)
	}
	status, ctype, body = get("GET", "/api/hello")
	var hello struct {
		Message string `json:"message"`
		Node    string `json:"node"`
	}
	if status != 200 || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal([]byte(body), &hello) != nil ||
		hello.Message == "" || !strings.HasPrefix(hello.Node, "v") {
		t.Errorf("GET /api/hello = %d %q %s", status, ctype, body)
	}
	// Only public/ is served: not the project's own files.
	for _, path := range []string{"/..%2fpackage.json", "/..%2f..%2fpackage.json", "/../server.mjs", "/missing.html"} {
		if status, _, body := get("GET", path); status != 404 || strings.Contains(body, "scripts") || strings.Contains(body, "createServer") {
			t.Errorf("GET %s = %d:\n%s", path, status, body)
		}
	}
	// Odd request targets get an answer, and the server lives on.
	for path, want := range map[string]int{"//": 200, "//evil.example/x": 404, "/%E0%A4": 400} {
		if status, _, _ := get("GET", path); status != want {
			t.Errorf("GET %s = %d, want %d", path, status, want)
		}
	}
	if status, _, _ := get("GET", "/"); status != 200 {
		t.Errorf("after the odd requests GET / = %d", status)
	}
	if status, _, _ := get("POST", "/"); status != 405 {
		t.Errorf("POST / = %d, want 405", status)
	}
	client.CloseIdleConnections()

	// Stop it as a dev-server manager does: SIGTERM to the process group.
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the server did not exit cleanly on SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("the server did not exit on SIGTERM")
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("something of the server's process group still runs (kill -0: %v)", err)
	}
}

// TestAppBasicPortInUse: a PORT that is taken gives a message a person can
// act on and a failing exit, not a stack trace.
func TestAppBasicPortInUse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if inCI() {
			t.Fatal("node is not on PATH, and CI is set")
		}
		t.Skip("node is not on PATH: install Node 18 or newer to start the generated app")
	}
	dir, err := Create(context.Background(), t.TempDir(), AppBasic, "busy")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go srv.Serve(ln)
	defer srv.Close()
	_, port, _ := strings.Cut(ln.Addr().String(), ":")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "server.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the server on a taken port: %v\n%s", err, out)
	}
	if want := "Port " + port + " is in use: set PORT to another port, or to 0 for a free one."; strings.TrimSpace(string(out)) != want {
		t.Errorf("output %q, want %q", out, want)
	}
}
