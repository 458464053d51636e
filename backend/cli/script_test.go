package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestMain lets the testscript scripts run "meith": the test binary, started
// as "meith", dispatches like the headless executable (main.go): no
// arguments focus a live runtime or else run the runtime, "serve" runs it,
// anything else is [Main].
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"meith": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := headlessMain(ctx, os.Args[1:])
			stop()
			os.Exit(code)
		},
	})
}

// headlessMain is main.go's run in the headless build.
func headlessMain(ctx context.Context, args []string) int {
	switch {
	case len(args) == 0:
		if code, running := Focus(ctx, System()); running {
			return code
		}
		return instance.ServeMain(ctx, nil, os.Stdout, os.Stderr)
	case args[0] == "serve":
		return instance.ServeMain(ctx, args[1:], os.Stdout, os.Stderr)
	}
	return Main(ctx, args, System())
}

// TestLaunchScripts runs testdata/launch/*.txtar, the scripts that start
// runtimes of their own (`meith .`, `meith new`) or need none (`meith
// setup`). Each script gets empty MEITH_HOME and MEITH_USER_DATA folders
// ($MEITH_HOME, $MEITH_USER_DATA, short enough for the socket path) and HOME
// = $WORK/home; every runtime still live in its MEITH_HOME when the script
// ends is stopped (SIGTERM, then SIGKILL), and one that cannot be stopped
// fails the test.
func TestLaunchScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/launch",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			root, err := os.MkdirTemp("", "ml")
			if err != nil {
				return err
			}
			home, userData := filepath.Join(root, "h"), filepath.Join(root, "u")
			env.Setenv("MEITH_HOME", home)
			env.Setenv("MEITH_USER_DATA", userData)
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("SHELL", "/bin/bash")
			env.Setenv("DISPLAY", "")
			env.Setenv("WAYLAND_DISPLAY", "")
			env.Defer(func() {
				if err := stopRuntimes(filepath.Join(home, "instances")); err != nil {
					env.T().Fatal(err)
				}
				os.RemoveAll(root)
			})
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
	})
}

// stopRuntimes stops every live runtime recorded in instancesDir and waits
// (up to 10 s each) until its process is gone.
func stopRuntimes(instancesDir string) error {
	live, _ := discovery.List(instancesDir)
	for _, rec := range live {
		if rec.PID == os.Getpid() {
			continue
		}
		_ = syscall.Kill(rec.PID, syscall.SIGTERM)
		if !waitGone(rec.PID, 10*time.Second) {
			_ = syscall.Kill(rec.PID, syscall.SIGKILL)
			if !waitGone(rec.PID, 5*time.Second) {
				return fmt.Errorf("the runtime %d the script started could not be stopped", rec.PID)
			}
		}
	}
	return nil
}

// waitGone waits until pid has exited (a zombie counts: nobody here can
// reap a process that was re-parented).
func waitGone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// grantedScripts are the scripts that run against a runtime of their own
// whose CLI sessions hold these capabilities too (meith serve --grant-cli
// …), as a person who lets the CLI change files would run it.
var grantedScripts = map[string][]protocol.Capability{
	"files":    {protocol.CapWritesFiles, protocol.CapDestructive},
	"storage":  {protocol.CapDestructive},
	"projects": {protocol.CapWritesFiles, protocol.CapStartsProcess, protocol.CapAccessesNetwork},
	"plugins":  {protocol.CapDestructive, protocol.CapControlsBrowser},
	// Their own runtimes so that waitinflight counts only their calls.
	"interrupt": {},
	"devlogs":   {protocol.CapStartsProcess},
	"audit":     {},
}

// TestScripts runs testdata/script/*.txtar against one real in-process
// runtime (the app tools, the permission service, the socket). Scripts see
// MEITH_HOME and MEITH_USER_DATA of that runtime, so plain "meith …" finds it
// as the newest live instance; $MEITH_SOCKET is its socket, $INSTANCE_PID its
// pid and its label is "scripts". CLI sessions may start processes (dev
// servers for devlogs.txtar); every other privileged capability is denied.
// A script of [grantedScripts] gets a runtime of its own instead (label
// "scripts-<name>"), and $DENYING_SOCKET is the socket of the first one.
//
// The agent is the scripted ACP agent of backend/agent/testdata (built
// here), configured as the custom preset.
func TestScripts(t *testing.T) {
	// The runtime runs in this process: project_create writes under this
	// folder ($PROJECTS in the scripts).
	projects := t.TempDir()
	os.Setenv("MEITH_PROJECTS_DIR", projects)
	t.Cleanup(func() { os.Unsetenv("MEITH_PROJECTS_DIR") }) // after the parallel scripts
	inst := instancetest.New(t, instancetest.WithLabel("scripts"), instancetest.WithGrantCLI(protocol.CapStartsProcess))
	granted := map[string]*instancetest.Instance{}
	for name, caps := range grantedScripts {
		granted[name] = instancetest.New(t, instancetest.WithLabel("scripts-"+name), instancetest.WithGrantCLI(caps...))
	}
	agentBin := filepath.Join(t.TempDir(), "scriptagent")
	if out, err := exec.Command("go", "build", "-o", agentBin, "../agent/testdata/scriptagent").CombinedOutput(); err != nil {
		t.Fatalf("build the scripted agent: %v\n%s", err, out)
	}
	custom := agent.PresetCustom
	if _, err := inst.Agents().SetConfig(agent.ConfigPatch{Preset: &custom, Command: &agentBin}, true); err != nil {
		t.Fatal(err)
	}
	bySocket := map[string]*instancetest.Instance{inst.SocketPath: inst}
	for _, g := range granted {
		bySocket[g.SocketPath] = g
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// waitinflight N waits (30 s at most) until N tool handlers run
			// in the script's runtime: a call started in the background has
			// reached it.
			"waitinflight": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitinflight N")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				target := bySocket[ts.Getenv("MEITH_SOCKET")]
				if target == nil {
					ts.Fatalf("no runtime at $MEITH_SOCKET")
				}
				for end := time.Now().Add(30 * time.Second); target.Registry().InFlight() < n; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(end) {
						ts.Fatalf("%d tool handlers in flight after 30 s, want %d", target.Registry().InFlight(), n)
					}
				}
			},
			// waitfile FILE REGEXP waits (30 s at most) until FILE (written
			// by a command in the background) matches REGEXP.
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: waitfile FILE REGEXP")
				}
				re, err := regexp.Compile(args[1])
				ts.Check(err)
				for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && re.Match(b) {
						return
					}
					if time.Now().After(end) {
						b, _ := os.ReadFile(ts.MkAbs(args[0]))
						ts.Fatalf("%s does not match %s after 30 s:\n%s", args[0], args[1], b)
					}
				}
			},
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			target := inst
			// testscript runs a script in $WORK = <tmp>/script-<name>.
			if g, ok := granted[strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")]; ok {
				target = g
				env.Setenv("DENYING_SOCKET", inst.SocketPath)
			}
			for _, kv := range target.Env() {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			env.Setenv("MEITH_SOCKET", target.SocketPath)
			env.Setenv("INSTANCE_PID", strconv.Itoa(os.Getpid()))
			env.Setenv("PROJECTS", projects)
			return nil
		},
	})
}
