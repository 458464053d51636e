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

// TestScripts runs testdata/script/*.txtar against one real in-process
// runtime (the app tools, the permission service, the socket). Scripts see
// MEITH_HOME and MEITH_USER_DATA of that runtime, so plain "meith …" finds it
// as the newest live instance; $MEITH_SOCKET is its socket, $INSTANCE_PID its
// pid and its label is "scripts". CLI sessions may start processes (dev
// servers for devlogs.txtar); every other privileged capability is denied.
//
// The agent is the scripted ACP agent of backend/agent/testdata (built
// here), configured as the custom preset.
func TestScripts(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithLabel("scripts"), instancetest.WithGrantCLI(protocol.CapStartsProcess))
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
			for _, kv := range inst.Env() {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			env.Setenv("MEITH_SOCKET", inst.SocketPath)
			env.Setenv("INSTANCE_PID", strconv.Itoa(os.Getpid()))
			return nil
		},
	})
}
