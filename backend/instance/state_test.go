package instance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/cli"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// runCLI runs the meith CLI in-process against inst's socket.
func runCLI(t *testing.T, inst *instancetest.Instance, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code = cli.Main(ctx, append([]string{"--socket", inst.SocketPath}, args...), &cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestCLISpacesOverSocket(t *testing.T) {
	inst := instancetest.New(t)
	code, out, errOut := runCLI(t, inst, "--json", "spaces")
	// --json prints the result envelope; the text form is human.txtar's.
	var env struct {
		Content struct {
			Spaces []struct {
				ID, Name string
			}
			ActiveSpaceID string
		}
	}
	err := json.Unmarshal([]byte(out), &env)
	list := env.Content
	if code != 0 || err != nil || len(list.Spaces) != 1 ||
		list.Spaces[0].Name != "Default" || list.ActiveSpaceID != list.Spaces[0].ID {
		t.Errorf("meith spaces = %d %q %q, want the Default space, active", code, out, errOut)
	}

	code, out, errOut = runCLI(t, inst, "create-space", "Work")
	if code != 1 || !strings.Contains(errOut, string(protocol.CodePermissionDenied)) {
		t.Errorf("meith create-space without a grant = %d %q %q, want exit 1 and PERMISSION_DENIED", code, out, errOut)
	}
	if n := len(inst.State().Get().Spaces); n != 1 {
		t.Errorf("spaces after a denied create-space = %d, want 1", n)
	}
}

func TestStatePersistsAcrossRestart(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles))
	c := dial(t, inst)
	for _, tc := range []struct{ tool, args string }{
		{"create_space", `{"name":"Work"}`},
		{"app_set_debug_mode", `{"enabled":true}`},
		{"set_app_settings", `{"settings":{"autoRunOnOpen":true}}`},
	} {
		if res := call(t, c, tc.tool, tc.args, nil); !res.OK {
			t.Fatalf("%s = %+v", tc.tool, res.Error)
		}
	}
	if !inst.Logger().Debug() {
		t.Error("app_set_debug_mode did not turn the logger's debug mode on")
	}
	c.Close()
	if err := inst.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	again, err := instance.New(instance.Config{Home: inst.Home, UserData: inst.UserData})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close(context.Background())
	st := again.State().Get()
	tests := []struct {
		name      string
		got, want any
	}{
		{"spaces", len(st.Spaces), 2},
		{"active", st.Space(st.ActiveSpaceID).Name, "Work"},
		{"debugMode setting", st.Settings.DebugMode, true},
		{"autoRunOnOpen", st.Settings.AutoRunOnOpen, true},
		{"logger debug from the setting", again.Logger().Debug(), true},
		{"state.json path", again.State().Path(), filepath.Join(inst.UserData, instance.StateFile)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("after restart %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestNewerStateRefusesToStart(t *testing.T) {
	root := t.TempDir()
	userData := filepath.Join(root, "u")
	os.MkdirAll(userData, 0o700)
	content := []byte(`{"version":999}`)
	os.WriteFile(filepath.Join(userData, instance.StateFile), content, 0o600)
	inst, err := instance.New(instance.Config{Home: filepath.Join(root, "h"), UserData: userData})
	if err == nil {
		inst.Close(context.Background())
	}
	if !errors.Is(err, state.ErrNewerVersion) || !strings.Contains(err.Error(), "999") {
		t.Errorf("instance.New with a state.json of version 999 = %v, want ErrNewerVersion naming 999", err)
	}
	if b, _ := os.ReadFile(filepath.Join(userData, instance.StateFile)); !bytes.Equal(b, content) {
		t.Errorf("state.json changed to %q", b)
	}
}
