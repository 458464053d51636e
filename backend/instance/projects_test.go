package instance_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/project"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// TestCloseSpaceStopsProjectServers: close_space on a project's space
// removes the project record and, with stopServersOnClose on, stops its
// running dev servers; with it off they keep running.
func TestCloseSpaceStopsProjectServers(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles, protocol.CapStartsProcess, protocol.CapAccessesNetwork, protocol.CapDestructive))
	c := dial(t, inst)
	for _, stopOnClose := range []bool{true, false} {
		t.Run(fmt.Sprintf("stopServersOnClose=%v", stopOnClose), func(t *testing.T) {
			if err := inst.State().Update(func(s *state.State) error { s.Settings.StopServersOnClose = stopOnClose; return nil }); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"svc","scripts":{"dev":"sleep 600"}}`), 0o644)
			res := call(t, c, "project_open", fmt.Sprintf(`{"cwd":%q}`, dir), nil)
			var o project.OpenResult
			if !res.OK || json.Unmarshal(res.Content, &o) != nil {
				t.Fatalf("project_open = %+v", res.Error)
			}
			res = call(t, c, "project_run", fmt.Sprintf(`{"projectId":%q,"commandId":"script-dev"}`, o.Project.ID), nil)
			var run struct{ DevServer process.DevServer }
			if !res.OK || json.Unmarshal(res.Content, &run) != nil || run.DevServer.SpaceID != o.Space.ID {
				t.Fatalf("project_run = %+v %s", res.Error, res.Content)
			}
			if res := call(t, c, "close_space", fmt.Sprintf(`{"spaceId":%q}`, o.Space.ID), nil); !res.OK {
				t.Fatalf("close_space = %+v", res.Error)
			}
			if st := inst.State().Get(); st.Project(o.Project.ID) != nil {
				t.Errorf("project record kept after its space closed")
			}
			if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
				t.Errorf("the project's files went: %v", err)
			}
			d, _ := inst.Processes().DevServer(run.DevServer.ID)
			if stopped := d.Status == process.StatusStopped; stopped != stopOnClose {
				t.Errorf("server status %s after close_space, want stopped=%v", d.Status, stopOnClose)
			}
			if !stopOnClose {
				if res := call(t, c, "stop_dev_server", fmt.Sprintf(`{"devServerId":%q}`, run.DevServer.ID), nil); !res.OK {
					t.Errorf("stop_dev_server = %+v", res.Error)
				}
			}
		})
	}
}
