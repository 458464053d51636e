package cli

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestMain lets the testscript scripts run "meith": the test binary, started
// as "meith", runs [Main] like the real executable does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"meith": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := Main(ctx, os.Args[1:], System())
			stop()
			os.Exit(code)
		},
	})
}

// grantedScripts are the scripts that run against a runtime of their own
// whose CLI sessions hold these capabilities too (meith serve --grant-cli
// …), as a person who lets the CLI change files would run it.
var grantedScripts = map[string][]protocol.Capability{
	"files":    {protocol.CapWritesFiles, protocol.CapDestructive},
	"projects": {protocol.CapWritesFiles, protocol.CapStartsProcess, protocol.CapAccessesNetwork},
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
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
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
