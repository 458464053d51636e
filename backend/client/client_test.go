package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/socket"
)

func shortPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, discovery.SocketName)
}

type textIn struct {
	Text string `json:"text"`
}

// runtime starts a real socket server with a few tools; observed counts the
// "block" handlers that saw their context end.
func runtimeServer(t *testing.T) (path string, observed *atomic.Int64) {
	t.Helper()
	observed = new(atomic.Int64)
	reg := registry.New(registry.Options{})
	ro := []protocol.Capability{protocol.CapReadOnly}
	registry.Register(reg, registry.Tool{Name: "echo", Description: "Echo.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, in textIn) (textIn, error) { return in, nil })
	registry.Register(reg, registry.Tool{Name: "progress", Description: "Progress.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (string, error) {
			c.Progress("one", 0.5)
			c.PartialText("two")
			return "done", nil
		})
	registry.Register(reg, registry.Tool{Name: "block", Description: "Block.", Capabilities: ro, Timeout: time.Hour},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (any, error) {
			<-ctx.Done()
			observed.Add(1)
			return nil, ctx.Err()
		})
	registry.Register(reg, registry.Tool{Name: "whoami", Description: "Who.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (protocol.ClientInfo, error) {
			return c.Client, nil
		})
	path = shortPath(t)
	s, err := socket.Listen(context.Background(), socket.Options{Path: path, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return path, observed
}

func dial(t *testing.T, path string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestDialError(t *testing.T) {
	path := shortPath(t)
	_, err := client.Dial(context.Background(), path)
	if !client.IsConnectError(err) {
		t.Fatalf("Dial(missing) = %v, want a ConnectError", err)
	}
	var ce *client.ConnectError
	errors.As(err, &ce)
	if ce.Path != path || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ConnectError = %#v", ce)
	}
	want := fmt.Sprintf(`Could not connect to the meith runtime at %s. Is the desktop app (or "meith serve") running? (`, path)
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ")") {
		t.Errorf("message = %q", err)
	}
	if client.IsConnectError(errors.New("x")) || client.IsProtocolError(err) {
		t.Error("predicates match the wrong errors")
	}
}

func TestListToolsAndCall(t *testing.T) {
	path, _ := runtimeServer(t)
	c := dial(t, path)
	if c.Path() != path {
		t.Errorf("Path() = %q", c.Path())
	}
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "echo,progress,block,whoami" {
		t.Errorf("tools = %v", names)
	}

	res, err := c.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`), client.CallOptions{})
	if err != nil || !res.OK || string(res.Content) != `{"text":"hi"}` {
		t.Errorf("echo = %+v, %v", res, err)
	}
	var events []protocol.Event
	res, err = c.Call(context.Background(), "progress", nil, client.CallOptions{
		OnEvent: func(ev protocol.Event) { events = append(events, ev) }})
	if err != nil || !res.OK || len(events) != 2 || events[0].Kind != protocol.EventProgress || events[1].Text != "two" {
		t.Errorf("progress = %+v, %v, events %+v", res, err, events)
	}
	// Tool failures are results, not errors.
	res, err = c.Call(context.Background(), "nope", nil, client.CallOptions{})
	if err != nil || res.OK || res.Error.Code != protocol.CodeUnknownTool {
		t.Errorf("unknown tool = %+v, %v", res, err)
	}
}

func TestClientInfoDefaults(t *testing.T) {
	path, _ := runtimeServer(t)
	c := dial(t, path)
	wd, _ := os.Getwd()
	res, err := c.Call(context.Background(), "whoami", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ci protocol.ClientInfo
	_ = json.Unmarshal(res.Content, &ci)
	if ci.Caller != protocol.CallerCLI || ci.Cwd != wd || !strings.HasPrefix(ci.SessionID, "socket:") {
		t.Errorf("client info = %+v", ci)
	}
	res, _ = c.Call(context.Background(), "whoami", nil, client.CallOptions{ClientInfo: protocol.ClientInfo{
		Caller: protocol.CallerPlugin, Cwd: "/p", SpaceID: "s", TabID: "t"}})
	_ = json.Unmarshal(res.Content, &ci)
	if ci.Caller != protocol.CallerPlugin || ci.Cwd != "/p" || ci.SpaceID != "s" || ci.TabID != "t" {
		t.Errorf("client info = %+v", ci)
	}
}

func TestCallTimeout(t *testing.T) {
	path, observed := runtimeServer(t)
	c := dial(t, path)
	res, err := c.Call(context.Background(), "block", nil, client.CallOptions{Timeout: 30 * time.Millisecond})
	if err != nil || res.Error == nil || res.Error.Code != protocol.CodeTimeout ||
		res.Error.Message != `Tool "block" timed out after 30ms` {
		t.Errorf("result = %+v, %v; want TIMEOUT after 30ms", res, err)
	}
	waitFor(t, func() bool { return observed.Load() == 1 })
}

func TestCallContextCancelSendsCancel(t *testing.T) {
	path, observed := runtimeServer(t)
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := c.Call(ctx, "block", nil, client.CallOptions{})
	if err != nil || res.Error == nil || res.Error.Code != protocol.CodeCancelled {
		t.Fatalf("result = %+v, %v; want CANCELLED", res, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v; the runtime should answer at once", d)
	}
	// The runtime cancelled the tool (the cancel frame reached it).
	waitFor(t, func() bool { return observed.Load() == 1 })
	// The connection is still usable.
	if res, err := c.Call(context.Background(), "echo", json.RawMessage(`{"text":"x"}`), client.CallOptions{}); err != nil || !res.OK {
		t.Errorf("call after cancel = %+v, %v", res, err)
	}
	// An already cancelled context does not send anything.
	res, err = c.Call(ctx, "echo", nil, client.CallOptions{})
	if err != nil || res.Error == nil || res.Error.Code != protocol.CodeCancelled {
		t.Errorf("call with a dead ctx = %+v, %v", res, err)
	}
}

// fakeRuntime is a scripted server: handle sees each frame the client sends
// and may answer through the writer.
func fakeRuntime(t *testing.T, handle func(msg protocol.Message, w *protocol.Writer, nc net.Conn)) string {
	t.Helper()
	path := shortPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				w := protocol.NewWriter(nc)
				r := protocol.NewReader(nc)
				for {
					msg, err := r.Next()
					if err != nil {
						return
					}
					handle(msg, w, nc)
				}
			}()
		}
	}()
	return path
}

var reqIDRE = regexp.MustCompile(`^req_[0-9a-f]{12}$`)

func TestCancelGraceThenLocalResult(t *testing.T) {
	frames := make(chan protocol.Message, 4)
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) { frames <- msg })
	c := dial(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-frames // the tool_call arrived
		cancel()
	}()
	start := time.Now()
	res, err := c.Call(ctx, "silent", json.RawMessage(`{"a":1}`), client.CallOptions{Timeout: 1500 * time.Microsecond})
	if err != nil || res.Error == nil || res.Error.Code != protocol.CodeCancelled || res.Error.Message != `Tool "silent" was cancelled` {
		t.Fatalf("result = %+v, %v; want a local CANCELLED", res, err)
	}
	if d := time.Since(start); d < client.CancelGrace || d > client.CancelGrace+3*time.Second {
		t.Errorf("returned after %v, want about %v", d, client.CancelGrace)
	}
	cf := (<-frames).(*protocol.CancelToolCall)
	if !reqIDRE.MatchString(cf.RequestID) {
		t.Errorf("cancel requestId = %q", cf.RequestID)
	}
}

func TestWireFrames(t *testing.T) {
	frames := make(chan protocol.Message, 4)
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		frames <- msg
		if m, ok := msg.(*protocol.ToolCall); ok {
			_ = w.Write(protocol.NewToolResult(m.RequestID, protocol.OKResult(nil)))
		}
	})
	c := dial(t, path)
	if _, err := c.Call(context.Background(), "t", nil, client.CallOptions{Timeout: 1500 * time.Microsecond}); err != nil {
		t.Fatal(err)
	}
	m := (<-frames).(*protocol.ToolCall)
	wd, _ := os.Getwd()
	if !reqIDRE.MatchString(m.RequestID) || m.ToolName != "t" || string(m.Arguments) != "{}" ||
		m.TimeoutMs != 2 || m.ClientInfo.Caller != protocol.CallerCLI || m.ClientInfo.Cwd != wd || *m.Protocol != 1 {
		t.Errorf("tool_call = %+v", m)
	}
	if _, err := c.Call(context.Background(), "t", nil, client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := (<-frames).(*protocol.ToolCall); m.TimeoutMs != 0 {
		t.Errorf("timeoutMs = %d without a Timeout, want unset", m.TimeoutMs)
	}
}

func TestProtocolError(t *testing.T) {
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		if m, ok := msg.(*protocol.ToolCall); ok {
			_ = w.Write(protocol.NewError("", "unrelated, no requestId"))
			_ = w.Write(protocol.NewError(m.RequestID, "Duplicate requestId "+m.RequestID+" is already in flight"))
		}
	})
	c := dial(t, path)
	_, err := c.Call(context.Background(), "x", nil, client.CallOptions{})
	var pe *client.ProtocolError
	if !client.IsProtocolError(err) || !errors.As(err, &pe) || pe.Code != protocol.CodeProtocol ||
		!strings.HasPrefix(pe.Message, "Duplicate requestId req_") {
		t.Fatalf("Call = %v, want a ProtocolError", err)
	}
	if !strings.Contains(err.Error(), "PROTOCOL_ERROR") {
		t.Errorf("message = %q", err)
	}
}

func TestConnectionDropFailsPending(t *testing.T) {
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		if _, ok := msg.(*protocol.ToolCall); ok {
			_ = w.Write(protocol.NewError("", "runtime going away"))
			nc.Close()
		}
	})
	c := dial(t, path)
	_, err := c.Call(context.Background(), "x", nil, client.CallOptions{})
	if !errors.Is(err, client.ErrClosed) || !strings.Contains(err.Error(), "runtime going away") {
		t.Fatalf("Call = %v, want ErrClosed with the runtime's last error", err)
	}
	// Later calls fail at once.
	if _, err := c.Call(context.Background(), "x", nil, client.CallOptions{}); !errors.Is(err, client.ErrClosed) {
		t.Errorf("Call after the drop = %v", err)
	}
	if _, err := c.ListTools(context.Background()); !errors.Is(err, client.ErrClosed) {
		t.Errorf("ListTools after the drop = %v", err)
	}
}

func TestCloseFailsPending(t *testing.T) {
	path, _ := runtimeServer(t)
	c, err := client.Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "block", nil, client.CallOptions{})
		errs <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; !errors.Is(err, client.ErrClosed) {
		t.Errorf("pending call = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestListToolsContext(t *testing.T) {
	release := make(chan struct{})
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		if _, ok := msg.(*protocol.ListTools); ok {
			<-release
			_ = w.Write(protocol.NewToolsList([]protocol.ToolDescriptor{{Name: "a"}}))
		}
	})
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := c.ListTools(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListTools = %v, want the context error", err)
	}
	close(release)
	// The late answer to the abandoned request is not mistaken for this one's.
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Errorf("ListTools = %v, %v", tools, err)
	}
}

func TestConcurrentCallsWithCancels(t *testing.T) {
	path, _ := runtimeServer(t)
	c := dial(t, path)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 50 {
				text := fmt.Sprintf("%d-%d", g, i)
				switch rng.IntN(3) {
				case 0:
					res, err := c.Call(context.Background(), "echo", json.RawMessage(fmt.Sprintf(`{"text":%q}`, text)), client.CallOptions{})
					if err != nil || string(res.Content) != fmt.Sprintf(`{"text":%q}`, text) {
						t.Errorf("echo %s = %+v, %v", text, res, err)
					}
				case 1:
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(3))*time.Millisecond)
					res, err := c.Call(ctx, "block", nil, client.CallOptions{})
					cancel()
					if err != nil || res.Error == nil || res.Error.Code != protocol.CodeCancelled {
						t.Errorf("cancelled block = %+v, %v", res, err)
					}
				case 2:
					if _, err := c.ListTools(context.Background()); err != nil {
						t.Errorf("ListTools: %v", err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestRawServerReadsOneFramePerLine(t *testing.T) {
	// The client's frames are complete NDJSON lines a plain reader can split.
	lines := make(chan string, 2)
	path := shortPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		sc := bufio.NewScanner(nc)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, _ = c.ListTools(ctx)
	if l := <-lines; l != `{"type":"list_tools","protocol":1,"clientInfo":{"caller":"cli"}}` {
		t.Errorf("list_tools line = %s", l)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestListToolsRefused: a runtime that answers list_tools with an error
// frame (which carries no requestId) fails that ListTools instead of
// leaving it waiting forever.
func TestListToolsRefused(t *testing.T) {
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		if _, ok := msg.(*protocol.ListTools); ok {
			_ = w.Write(protocol.NewError("", "Unsupported protocol version 2; server requires 1"))
		}
	})
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.ListTools(ctx)
	if !client.IsProtocolError(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListTools against a refusing runtime = %v, want a ProtocolError at once", err)
	}
}
