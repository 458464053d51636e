package socket

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

func dial(t testing.TB, s *Server) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func call(t testing.TB, c *client.Client, tool string, args string, opts client.CallOptions) protocol.ToolResult {
	t.Helper()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	res, err := c.Call(context.Background(), tool, raw, opts)
	if err != nil {
		t.Fatalf("Call(%s): %v", tool, err)
	}
	return res
}

func content[T any](t testing.TB, res protocol.ToolResult) T {
	t.Helper()
	var v T
	if !res.OK {
		t.Fatalf("result failed: %+v", res.Error)
	}
	if err := json.Unmarshal(res.Content, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestListenOnTmpFallback(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	long := filepath.Join(shortDir(t), strings.Repeat("d", 120))
	path := discovery.SocketPath(long)
	dir := filepath.Dir(path)
	_, statErr := os.Stat(dir)
	t.Cleanup(func() {
		if errors.Is(statErr, fs.ErrNotExist) {
			_ = os.Remove(dir)
		}
	})
	s := listen(t, newFixture(t), func(o *Options) { o.Path = path })
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("fallback dir mode = %v, want 0700", fi.Mode().Perm())
	}
	if res := call(t, dial(t, s), "echo", `{"text":"x"}`, client.CallOptions{}); !res.OK {
		t.Errorf("call over fallback path: %+v", res)
	}
}

func TestListenModes(t *testing.T) {
	parent := shortDir(t)
	dir := filepath.Join(parent, "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)

	s := listen(t, newFixture(t), func(o *Options) { o.Path = filepath.Join(dir, discovery.SocketName) })
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode = %v, want 0700", fi.Mode().Perm())
	}
	fi, err = os.Lstat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want a 0600 socket", fi.Mode())
	}
	if cur := syscall.Umask(0o022); cur != 0o022 {
		t.Errorf("umask after Listen = %#o, want it restored to 022", cur)
	}

	// A missing directory (and its parents) is created 0700.
	deep := filepath.Join(parent, "a", "b")
	listen(t, newFixture(t), func(o *Options) { o.Path = filepath.Join(deep, discovery.SocketName) })
	if fi, err := os.Stat(deep); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("created dir: %v, %v; want 0700", fi.Mode(), err)
	}
}

func TestListenRefusesForeignDirectory(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to create a directory owned by another uid")
	}
	dir := filepath.Join(shortDir(t), "other")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	_, err := Listen(context.Background(), Options{Path: filepath.Join(dir, discovery.SocketName), Registry: newFixture(t).reg})
	if err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
		t.Fatalf("Listen in a foreign directory = %v, want a refusal", err)
	}
}

func TestListenValidatesOptions(t *testing.T) {
	if _, err := Listen(context.Background(), Options{Registry: newFixture(t).reg}); err == nil {
		t.Error("Listen without a path succeeded")
	}
	if _, err := Listen(context.Background(), Options{Path: filepath.Join(shortDir(t), "x.sock")}); err == nil {
		t.Error("Listen without a registry succeeded")
	}
	long := "/tmp/" + strings.Repeat("l", discovery.MaxSocketPathLen)
	if _, err := Listen(context.Background(), Options{Path: long, Registry: newFixture(t).reg}); err == nil ||
		!strings.Contains(err.Error(), "sun_path") {
		t.Errorf("Listen on a too-long path = %v, want a sun_path error", err)
	}
}

func TestLiveSocketNotStolen(t *testing.T) {
	f := newFixture(t)
	s := listen(t, f, nil)
	_, err := Listen(context.Background(), Options{Path: s.Path(), Registry: newFixture(t).reg})
	if !IsInUse(err) {
		t.Fatalf("second Listen = %v, want IsInUse", err)
	}
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.Path != s.Path() {
		t.Errorf("error = %#v", err)
	}
	if want := "another meith runtime is already listening on " + s.Path(); err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if res := call(t, dial(t, s), "echo", `{"text":"still mine"}`, client.CallOptions{}); !res.OK {
		t.Errorf("first server after the attempt: %+v", res)
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), discovery.SocketName)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // a crashed runtime leaves its socket file behind
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket missing: %v", err)
	}
	s := listen(t, newFixture(t), func(o *Options) { o.Path = path })
	if res := call(t, dial(t, s), "echo", `{"text":"fresh"}`, client.CallOptions{}); !res.OK {
		t.Errorf("call on the replaced socket: %+v", res)
	}
}

func TestNonSocketPathKept(t *testing.T) {
	path := filepath.Join(shortDir(t), discovery.SocketName)
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Listen(context.Background(), Options{Path: path, Registry: newFixture(t).reg})
	if err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Listen over a regular file = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Error("the regular file was clobbered")
	}
}

func TestOtherUIDRefused(t *testing.T) {
	f := newFixture(t)
	other := os.Getuid() + 1000
	var endCalls int
	var mu sync.Mutex
	s := listen(t, f, func(o *Options) {
		o.ownerUID = &other
		o.OnSessionEnd = func(protocol.Caller, string) { mu.Lock(); endCalls++; mu.Unlock() }
	})
	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// Whatever the peer sends is not served.
	_, _ = nc.Write([]byte(`{"type":"tool_call","requestId":"r1","toolName":"count"}` + "\n"))
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	data, err := io.ReadAll(nc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 1 {
		t.Fatalf("server sent %q, want one error frame then EOF", data)
	}
	msg, err := protocol.Decode([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := msg.(*protocol.ErrorFrame)
	want := fmt.Sprintf("connection refused: peer uid %d does not own this runtime", os.Getuid())
	if !ok || e.Code != protocol.CodeProtocol || e.Message != want {
		t.Errorf("frame = %s, want PROTOCOL_ERROR %q", lines[0], want)
	}
	if f.counted.Load() != 0 || s.dispatched.Load() != 0 {
		t.Error("a refused peer's call ran")
	}

	// The Go client reports the refusal as a closed connection naming it.
	c := dial(t, s)
	_, err = c.Call(context.Background(), "count", nil, client.CallOptions{})
	if !errors.Is(err, client.ErrClosed) || !strings.Contains(err.Error(), "does not own this runtime") {
		t.Errorf("client call = %v, want ErrClosed naming the refusal", err)
	}
	eventually(t, 5*time.Second, "sessions gone", func() bool { return s.Sessions() == 0 })
	mu.Lock()
	defer mu.Unlock()
	if endCalls != 0 {
		t.Errorf("OnSessionEnd called %d times for refused peers, want 0", endCalls)
	}
}

func TestPeerAndCwd(t *testing.T) {
	f := newFixture(t)
	s := listen(t, f, nil)
	c := dial(t, s)
	wd, _ := os.Getwd()
	// An explicit cwd passes through; without one the peer's cwd is used.
	w := content[whoami](t, call(t, c, "whoami", "", client.CallOptions{ClientInfo: protocol.ClientInfo{Cwd: "/explicit"}}))
	if w.Cwd != "/explicit" || !w.PeerOwned || !w.PeerPID {
		t.Errorf("whoami = %+v", w)
	}
	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_, _ = nc.Write([]byte(`{"type":"tool_call","requestId":"r","toolName":"whoami"}` + "\n"))
	line, err := bufio.NewReader(nc).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	msg, err := protocol.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	w = content[whoami](t, msg.(*protocol.ToolResultFrame).Result)
	if w.Cwd != wd {
		t.Errorf("cwd without a client cwd = %q, want the peer's cwd %q", w.Cwd, wd)
	}
}

func TestSessionsPerConnection(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	ended := map[string][]protocol.Caller{}
	s := listen(t, f, func(o *Options) {
		o.OnSessionEnd = func(caller protocol.Caller, id string) {
			mu.Lock()
			ended[id] = append(ended[id], caller)
			mu.Unlock()
		}
	})
	const n = 4
	sessions := make([]string, n)
	for i := range n {
		c, err := client.Dial(context.Background(), s.Path())
		if err != nil {
			t.Fatal(err)
		}
		caller := protocol.CallerCLI
		if i%2 == 1 {
			caller = protocol.CallerPlugin
		}
		a := content[whoami](t, call(t, c, "whoami", "", client.CallOptions{ClientInfo: protocol.ClientInfo{Caller: caller}}))
		b := content[whoami](t, call(t, c, "whoami", "", client.CallOptions{ClientInfo: protocol.ClientInfo{Caller: caller, SessionID: "spoofed"}}))
		if a.SessionID != b.SessionID || !sessionRE.MatchString(a.SessionID) {
			t.Errorf("connection %d: sessions %q and %q, want one socket:<uuid>", i, a.SessionID, b.SessionID)
		}
		for j := range i {
			if sessions[j] == a.SessionID {
				t.Errorf("connections %d and %d share session %q", j, i, a.SessionID)
			}
		}
		sessions[i] = a.SessionID
		if i < n-1 {
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		} else {
			t.Cleanup(func() { _ = c.Close() })
		}
	}
	eventually(t, 5*time.Second, "three sessions ended", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ended) == n-1
	})
	if got := s.Sessions(); got != 1 {
		t.Errorf("Sessions() = %d, want 1", got)
	}
	// The last one ends with Close.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, id := range sessions {
		want := protocol.CallerCLI
		if i%2 == 1 {
			want = protocol.CallerPlugin
		}
		if got := ended[id]; len(got) != 1 || got[0] != want {
			t.Errorf("OnSessionEnd for session %d = %v, want exactly one call with %s", i, got, want)
		}
	}
}

func TestConnectionCloseCancelsCalls(t *testing.T) {
	f := newFixture(t)
	s := listen(t, f, nil)
	c, err := client.Dial(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.Call(context.Background(), "block", nil, client.CallOptions{})
			errs <- err
		}()
	}
	ids := []string{<-f.started, <-f.started}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; !errors.Is(err, client.ErrClosed) {
			t.Errorf("pending call after Close = %v, want ErrClosed", err)
		}
	}
	eventually(t, 5*time.Second, "tools to observe ctx.Done", func() bool { return f.observed.Load() == 2 })
	eventually(t, 5*time.Second, "registry idle", func() bool { return f.reg.InFlight() == 0 })
	eventually(t, 5*time.Second, "audits", func() bool { return f.auditCount(ids[0]) == 1 && f.auditCount(ids[1]) == 1 })
	eventually(t, 5*time.Second, "session gone", func() bool { return s.Sessions() == 0 })
}

func TestCloseCancelsEverything(t *testing.T) {
	for _, shutdown := range []bool{false, true} {
		t.Run(fmt.Sprintf("beginShutdown=%v", shutdown), func(t *testing.T) {
			f := newFixture(t)
			var mu sync.Mutex
			ended := 0
			path := filepath.Join(shortDir(t), discovery.SocketName)
			s, err := Listen(context.Background(), Options{Path: path, Registry: f.reg,
				OnSessionEnd: func(protocol.Caller, string) { mu.Lock(); ended++; mu.Unlock() }})
			if err != nil {
				t.Fatal(err)
			}
			const n = 3
			results := make(chan protocol.ToolResult, n)
			for i := range n {
				c := dial(t, s)
				go func() {
					res, err := c.Call(context.Background(), "block", nil, client.CallOptions{})
					if err != nil {
						t.Errorf("call %d: %v", i, err)
					}
					results <- res
				}()
			}
			for range n {
				<-f.started
			}
			if shutdown {
				f.reg.BeginShutdown()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Close took %v", d)
			}
			want := protocol.CodeCancelled
			if shutdown {
				want = protocol.CodeRuntimeShuttingDown
			}
			for range n {
				res := <-results
				if res.OK || res.Error == nil || res.Error.Code != want {
					t.Errorf("in-flight result = %+v, want %s", res, want)
				}
			}
			if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("socket still there after Close: %v", err)
			}
			if _, err := client.Dial(context.Background(), path); !client.IsConnectError(err) {
				t.Errorf("Dial after Close = %v, want a ConnectError", err)
			}
			// Call resolves at the cancel; the handler (which observes its
			// context) returns right after, on its own goroutine.
			idleCtx, idleCancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer idleCancel()
			if err := f.reg.WaitIdle(idleCtx); err != nil {
				t.Errorf("InFlight = %d 2 s after Close", f.reg.InFlight())
			}
			mu.Lock()
			if ended != n {
				t.Errorf("OnSessionEnd called %d times, want %d", ended, n)
			}
			mu.Unlock()
			if err := s.Close(ctx); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
}

func TestCloseLeavesReplacedSocket(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(shortDir(t), discovery.SocketName)
	s, err := Listen(context.Background(), Options{Path: path, Registry: f.reg})
	if err != nil {
		t.Fatal(err)
	}
	// Someone removed our socket and another runtime took the path.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	other, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("Close removed a socket it does not own: %v", err)
	}
}

func TestCallsAfterCloseStarted(t *testing.T) {
	// A tool_call that arrives once Close has begun is answered
	// RUNTIME_SHUTTING_DOWN without reaching the registry.
	f := newFixture(t)
	s := listen(t, f, nil)
	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	eventually(t, 5*time.Second, "session", func() bool { return s.Sessions() == 1 })
	s.mu.Lock()
	for c := range s.conns {
		c.stopCalls()
	}
	s.mu.Unlock()
	_, _ = nc.Write([]byte(`{"type":"tool_call","requestId":"late","toolName":"count"}` + "\n"))
	line, err := bufio.NewReader(nc).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	msg, err := protocol.Decode(line)
	if err != nil {
		t.Fatal(err)
	}
	res := msg.(*protocol.ToolResultFrame)
	if res.RequestID != "late" || res.Result.Error == nil || res.Result.Error.Code != protocol.CodeRuntimeShuttingDown {
		t.Errorf("late call = %s", line)
	}
	if f.counted.Load() != 0 || f.auditsAll.Load() != 0 {
		t.Error("a late call reached the registry")
	}
}

func TestSlowReaderDisconnected(t *testing.T) {
	f := newFixture(t)
	s := listen(t, f, func(o *Options) { o.WriteTimeout = 100 * time.Millisecond })
	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	big := strings.Repeat("x", 256*1024)
	// Never read: the server's writes fill the socket buffer and time out.
	go func() {
		for i := range 64 {
			frame := fmt.Sprintf(`{"type":"tool_call","requestId":"r%d","toolName":"echo","arguments":{"text":%q}}`+"\n", i, big)
			if _, err := nc.Write([]byte(frame)); err != nil {
				return
			}
		}
	}()
	eventually(t, 20*time.Second, "the slow reader to be disconnected", func() bool {
		return s.Sessions() == 0 && s.dispatched.Load() > 0
	})
	eventually(t, 5*time.Second, "registry idle", func() bool { return f.reg.InFlight() == 0 })
}

func TestManyConcurrentCallsOneConnection(t *testing.T) {
	f := newFixture(t)
	s := listen(t, f, nil)
	c := dial(t, s)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("msg-%d", i)
			var events int
			tool, args := "echo", fmt.Sprintf(`{"text":%q}`, text)
			if i%3 == 0 {
				tool, args = "progress", ""
			}
			res := call(t, c, tool, args, client.CallOptions{OnEvent: func(protocol.Event) { events++ }})
			if tool == "echo" && content[echoIn](t, res).Text != text {
				t.Errorf("call %d got %s", i, res.Content)
			}
			if tool == "progress" && events != 4 {
				t.Errorf("call %d got %d events, want 4", i, events)
			}
		}()
	}
	wg.Wait()
}

func TestSymlinkedDirOfAnotherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a symlink another owner")
	}
	root, err := os.MkdirTemp("", "sl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	target := filepath.Join(root, "mine")
	os.Mkdir(target, 0o755)
	link := filepath.Join(root, "planted")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, os.Geteuid()+1000, -1); err != nil {
		t.Fatal(err)
	}
	if err := prepareDir(link); err == nil {
		t.Fatal("prepareDir(symlink owned by another user) = nil, want a refusal")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target was chmodded to %v", fi.Mode().Perm())
	}
	// A symlink this user owns is followed.
	own := filepath.Join(root, "own")
	os.Symlink(target, own)
	if err := prepareDir(own); err != nil {
		t.Errorf("prepareDir(own symlink) = %v, want nil", err)
	}
}

// A sticky, world-writable directory that another user made (as an attacker
// would make /tmp/meith-<uid> before the runtime starts) is refused: that
// user could unlink the socket and listen in its place.
func TestStickyDirOfAnotherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory another owner")
	}
	dir := filepath.Join(shortDir(t), "meith-planted")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, os.Geteuid()+1000, -1); err != nil {
		t.Fatal(err)
	}
	err := prepareDir(dir)
	if !IsDirError(err) {
		t.Fatalf("prepareDir(sticky dir of another user) = %v, want a *DirError", err)
	}
	if !strings.Contains(err.Error(), "owned by uid") || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("error %q should say who owns it and what to do", err)
	}
	f := newFixture(t)
	if _, err := Listen(context.Background(), Options{Path: filepath.Join(dir, "x.sock"), Registry: f.reg}); !IsDirError(err) {
		t.Errorf("Listen in that directory = %v, want a *DirError", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "x.sock")); err == nil {
		t.Error("a socket was bound in the other user's directory")
	}

	// Our own directory with the sticky bit and loose permissions is made
	// private.
	own := filepath.Join(shortDir(t), "meith-own")
	os.Mkdir(own, 0o777)
	os.Chmod(own, 0o777|fs.ModeSticky)
	if err := prepareDir(own); err != nil {
		t.Fatalf("prepareDir(own sticky dir) = %v", err)
	}
	if fi, _ := os.Stat(own); fi.Mode().Perm() != 0o700 || fi.Mode()&fs.ModeSticky != 0 {
		t.Errorf("own directory mode = %v, want drwx------", fi.Mode())
	}
}

// TestOversizeResultReplaced: the runtime never sends a frame its peer
// cannot read. A result over MAX_FRAME_BYTES becomes TOOL_FAILED "Result too
// large", an oversize event a short warning, and the connection goes on.
func TestOversizeResultReplaced(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("z", protocol.MaxFrameBytes)
	registry.Register(f.reg, registry.Tool{Name: "huge", Description: "Return 8 MiB.", Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (string, error) {
			c.PartialText(big)
			return big, nil
		})
	s := listen(t, f, nil)

	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprintln(nc, `{"type":"tool_call","protocol":1,"requestId":"r1","toolName":"huge"}`)
	fmt.Fprintln(nc, `{"type":"tool_call","protocol":1,"requestId":"r2","toolName":"echo","arguments":{"text":"after"}}`)
	br := bufio.NewReaderSize(nc, 64*1024)
	var lines []string
	for len(lines) < 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (after %d lines)", err, len(lines))
		}
		if len(line) > protocol.MaxFrameBytes {
			t.Fatalf("the runtime sent a %d-byte frame", len(line))
		}
		lines = append(lines, line)
	}
	all := strings.Join(lines, "")
	for _, want := range []string{
		`"requestId":"r1","event":{"kind":"log","message":"A partial_text event of`,
		`"requestId":"r1","result":{"ok":false,"error":{"code":"TOOL_FAILED","message":"Result too large (`,
		`"requestId":"r2","result":{"ok":true,"content":{"text":"after"}}`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("frames lack %s:\n%.600s", want, all)
		}
	}
}
