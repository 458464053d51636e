//go:build linux

package browser

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// netnsChildEnv marks the run of the test binary inside the private
// network namespace.
const netnsChildEnv = "MEITH_TEST_IN_PRIVATE_NETNS"

// TestLinkLocalBlockingInNetns is TestLinkLocalBlocking against the real
// 169.254.169.254 with meith's own settings (no test prefix, loopback
// straight): the test binary runs itself again under unshare -n, in a
// private network namespace with only lo, where a server on
// 169.254.169.254:80 counts connections. No packet can leave the machine.
// It needs root, unshare(1) and ip(8).
func TestLinkLocalBlockingInNetns(t *testing.T) {
	if os.Getenv(netnsChildEnv) == "" {
		if os.Geteuid() != 0 {
			t.Skip("a private network namespace needs root")
		}
		unshare, err1 := exec.LookPath("unshare")
		_, err2 := exec.LookPath("ip")
		if err1 != nil || err2 != nil {
			t.Skip("needs unshare(1) and ip(8)")
		}
		if _, err := FindChrome(); err != nil {
			t.Skipf("no Chromium: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, unshare, "-n", os.Args[0], "-test.run", "^TestLinkLocalBlockingInNetns$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), netnsChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestLinkLocalBlockingInNetns")) {
			t.Fatalf("in a private network namespace: %v\n%s", err, out)
		}
		return
	}

	// In the private namespace. Make sure of it before adding the address.
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) != 1 || ifs[0].Name != "lo" {
		t.Fatalf("not in a private network namespace (interfaces %v, %v): refusing to add 169.254.169.254", ifs, err)
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", "169.254.169.254/32", "dev", "lo"}} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v %s", args, err, out)
		}
	}
	meta := serveCountingOn(t, "169.254.169.254:80")
	// Control: the address answers here.
	c, err := net.DialTimeout("tcp", "169.254.169.254:80", 5*time.Second)
	if err != nil {
		t.Fatalf("the stand-in metadata service does not answer: %v", err)
	}
	c.Close()
	for meta.conns.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	meta.conns.Store(0)

	popups := make(chan string, 16)
	dir := t.TempDir()
	m := New(Options{DataDir: dir, NewTabID: func() string { return "btab_netnspop" + time.Now().Format("150405.000000") },
		OnPopup: func(_, id string, info PageInfo) { popups <- id + " " + info.URL }})
	defer m.Shutdown(context.Background())
	allowed := serveCounting(t, "127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tab := tryToReach(ctx, t, m, popups, allowed, []string{
		"169.254.169.254",
		"[::ffff:a9fe:a9fe]",
		"2852039166",
		"0251.0376.0251.0376",
		"169.254.43518",
	})
	meta.expectNone(t)
	if m.BlockedConnections() == 0 {
		t.Error("the guard proxy refused no connection")
	}
	// A failed tunnel says why (Chromium alone would not): here the name
	// cannot be resolved, since nothing leaves the namespace.
	info, err := tab.Navigate(ctx, "https://meith-test.invalid/")
	if err != nil || info.LoadState != LoadFailed || !strings.Contains(info.ErrorText, tunnelFailed+" (") ||
		!strings.Contains(info.ErrorText, "meith-test.invalid") {
		t.Errorf("navigate to a name that does not resolve: %+v, %v; want a failed load that says why", info, err)
	}
}
