package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// listenAsEnv makes the test binary, re-run with it set to a socket path,
// listen there (as whichever user runs it), accept one connection and print
// how many bytes the client sent within a second.
const listenAsEnv = "MEITH_CLIENT_TEST_LISTEN"

func TestMain(m *testing.M) {
	if path := os.Getenv(listenAsEnv); path != "" {
		os.Exit(listenOnce(path))
	}
	os.Exit(m.Run())
}

func listenOnce(path string) int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening")
	nc, err := ln.Accept()
	if err != nil {
		return 1
	}
	_ = nc.SetReadDeadline(time.Now().Add(time.Second))
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(nc)
	fmt.Printf("received %d bytes\n", buf.Len())
	return 0
}

// TestForeignRuntimeRefused: a socket served by another user (one who
// replaced the runtime's socket) is refused before any call is sent.
func TestForeignRuntimeRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a listener as another user")
	}
	dir, err := os.MkdirTemp("", "mf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tool.sock")
	// A copy of the test binary that the other user may run (the build
	// directory is private).
	exe := filepath.Join(dir, "listener")
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), listenAsEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, func() bool { _, err := os.Stat(path); return err == nil })

	c, err := client.Dial(context.Background(), path)
	if err == nil {
		c.Close()
		t.Fatal("Dial(socket of uid 65534) = nil error, want a refusal")
	}
	if !client.IsForeignRuntime(err) || !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("Dial error = %v, want a ForeignRuntimeError naming uid 65534", err)
	}
	_ = cmd.Wait()
	if got := out.String(); !strings.Contains(got, "received 0 bytes") {
		t.Errorf("the foreign listener reported %q, want that it received nothing", got)
	}
}

// TestOversizeAnswerFailsTheCall: a tool_result the client cannot read
// (over MAX_FRAME_BYTES) fails the call it answers instead of leaving it
// waiting for ever; an oversize event only costs the event.
func TestOversizeAnswerFailsTheCall(t *testing.T) {
	big := strings.Repeat("x", protocol.MaxFrameBytes)
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		tc, ok := msg.(*protocol.ToolCall)
		if !ok {
			return
		}
		// Written raw: the runtime's own Writer would refuse these frames.
		fmt.Fprintf(nc, `{"type":"tool_event","protocol":1,"requestId":%q,"event":{"kind":"partial_text","text":%q}}`+"\n", tc.RequestID, big)
		switch tc.ToolName {
		case "big":
			fmt.Fprintf(nc, `{"type":"tool_result","protocol":1,"requestId":%q,"result":{"ok":true,"content":%q}}`+"\n", tc.RequestID, big)
		case "small":
			_ = w.Write(protocol.NewToolResult(tc.RequestID, protocol.OKResult("fine")))
		}
	})
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Call(ctx, "big", nil, client.CallOptions{})
	if !client.IsProtocolError(err) || !strings.Contains(err.Error(), "MAX_FRAME_BYTES") {
		t.Fatalf("Call(big) = %v, want a ProtocolError saying the answer exceeded MAX_FRAME_BYTES", err)
	}
	// The connection still works, and a lost event does not fail a call.
	res, err := c.Call(ctx, "small", nil, client.CallOptions{})
	if err != nil || !res.OK {
		t.Fatalf("Call(small) after the discarded frames = %+v, %v; want ok", res, err)
	}
}

// TestLocalTimeout: a call with a timeout resolves as TIMEOUT on its own
// when the runtime never answers, and its events restart that deadline.
func TestLocalTimeout(t *testing.T) {
	path := fakeRuntime(t, func(msg protocol.Message, w *protocol.Writer, nc net.Conn) {
		tc, ok := msg.(*protocol.ToolCall)
		if !ok || tc.ToolName != "slow_with_progress" {
			return // "hang": never answered
		}
		go func() {
			// Progress every 300 ms for 3 s (past the timeout + grace),
			// then the answer.
			for range 10 {
				time.Sleep(300 * time.Millisecond)
				_ = w.Write(protocol.NewToolEvent(tc.RequestID, protocol.Progress("working", -1)))
			}
			_ = w.Write(protocol.NewToolResult(tc.RequestID, protocol.OKResult("done")))
		}()
	})
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, err := c.Call(ctx, "hang", nil, client.CallOptions{Timeout: 100 * time.Millisecond})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("Call(hang) waited for the test's own deadline")
	}
	if err != nil || res.Error == nil || res.Error.Code != protocol.CodeTimeout ||
		!strings.Contains(res.Error.Message, "did not answer") {
		t.Errorf("Call(hang, 100ms) = %+v, %v; want a local TIMEOUT", res, err)
	}

	var events int
	res, err = c.Call(ctx, "slow_with_progress", nil, client.CallOptions{Timeout: 100 * time.Millisecond,
		OnEvent: func(protocol.Event) { events++ }})
	if err != nil || !res.OK || events != 10 {
		t.Errorf("Call(slow_with_progress) = %+v, %v after %d events; want ok after 10", res, err, events)
	}
}

// TestArgumentsTooLarge: arguments that would make a frame over
// MAX_FRAME_BYTES are refused locally; nothing is sent.
func TestArgumentsTooLarge(t *testing.T) {
	path, _ := runtimeServer(t)
	c := dial(t, path)
	args := []byte(fmt.Sprintf(`{"text":%q}`, strings.Repeat("y", protocol.MaxFrameBytes)))
	_, err := c.Call(context.Background(), "echo", args, client.CallOptions{})
	if !protocol.IsFrameTooLarge(err) {
		t.Fatalf("Call(echo, 8 MiB) = %v, want a FrameTooLargeError", err)
	}
	res, err := c.Call(context.Background(), "echo", []byte(`{"text":"ok"}`), client.CallOptions{})
	if err != nil || !res.OK {
		t.Errorf("Call(echo) afterwards = %+v, %v; want ok", res, err)
	}
}
