package settingstools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/settingstools"
)

func setup(t *testing.T) (*registry.Registry, *state.Store, *[]state.AppSettings) {
	t.Helper()
	st, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := registry.New(registry.Options{})
	var changes []state.AppSettings
	settingstools.Register(reg, settingstools.Deps{Store: st, OnChange: func(s state.AppSettings) { changes = append(changes, s) }})
	return reg, st, &changes
}

func call(reg *registry.Registry, tool, args string) protocol.ToolResult {
	return reg.Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer}})
}

func TestToolsRegistered(t *testing.T) {
	reg, _, _ := setup(t)
	want := map[string]protocol.Capability{
		"get_app_settings": protocol.CapReadOnly, "set_app_settings": protocol.CapWritesFiles, "app_get_state": protocol.CapReadOnly,
	}
	for name, c := range want {
		d, ok := reg.Describe(name)
		if got := fmt.Sprint(d.Capabilities); !ok || got != fmt.Sprint([]protocol.Capability{c}) {
			t.Errorf("capabilities(%s) = %s (registered %v), want [%s]", name, got, ok, c)
		}
	}
}

func TestDefaults(t *testing.T) {
	reg, _, _ := setup(t)
	res := call(reg, "get_app_settings", `{}`)
	want := `{"settings":{"autoRunOnOpen":false,"confirmOnClose":true,"stopServersOnClose":true,"showOutputOnRun":true,"defaultPackageManager":"unknown","debugMode":false,` +
		`"stopOrphansOnStart":true,"devServerOpenBrowser":"offer",` +
		`"git":{"refreshIntervalMs":2500,"showUntrackedFiles":true,"confirmBeforeRestore":true,"checkpointBeforeAgentRun":true,"identityProfiles":[],"activeIdentityProfileId":null},` +
		`"audit":{"retentionDays":90,"maxMB":200}}}`
	if !res.OK || string(res.Content) != want {
		t.Errorf("get_app_settings = %s %+v, want %s", res.Content, res.Error, want)
	}
}

func TestPatch(t *testing.T) {
	reg, st, changes := setup(t)
	tests := []struct {
		args string
		want func(*state.AppSettings)
	}{
		{`{"settings":{}}`, func(*state.AppSettings) {}},
		{`{"settings":{"autoRunOnOpen":true}}`, func(s *state.AppSettings) { s.AutoRunOnOpen = true }},
		{`{"settings":{"confirmOnClose":false,"defaultPackageManager":"pnpm"}}`, func(s *state.AppSettings) {
			s.ConfirmOnClose = false
			s.DefaultPackageManager = "pnpm"
		}},
		{`{"settings":{"debugMode":true,"showOutputOnRun":null}}`, func(s *state.AppSettings) { s.DebugMode = true }},
		{`{"settings":{"stopServersOnClose":false}}`, func(s *state.AppSettings) { s.StopServersOnClose = false }},
		{`{"settings":{"stopOrphansOnStart":false}}`, func(s *state.AppSettings) { s.StopOrphansOnStart = false }},
		{`{"settings":{"devServerOpenBrowser":"open"}}`, func(s *state.AppSettings) { s.DevServerOpenBrowser = "open" }},
		{`{"settings":{"devServerOpenBrowser":"off","stopOrphansOnStart":true}}`, func(s *state.AppSettings) {
			s.DevServerOpenBrowser = "off"
			s.StopOrphansOnStart = true
		}},
		{`{"settings":{"git":{"refreshIntervalMs":5000,"showUntrackedFiles":false}}}`, func(s *state.AppSettings) {
			s.Git.RefreshIntervalMs = 5000
			s.Git.ShowUntrackedFiles = false
		}},
		{`{"settings":{"git":{"identityProfiles":[{"id":"gitacct_1","label":"Work","name":"Ada","email":"ada@example.com"}],"activeIdentityProfileId":"gitacct_1"}}}`,
			func(s *state.AppSettings) {
				s.Git.IdentityProfiles = []state.IdentityProfile{{ID: "gitacct_1", Label: "Work", Name: "Ada", Email: "ada@example.com"}}
				id := "gitacct_1"
				s.Git.ActiveIdentityProfileID = &id
			}},
		{`{"settings":{"git":{"confirmBeforeRestore":false}}}`, func(s *state.AppSettings) { s.Git.ConfirmBeforeRestore = false }},
		{`{"settings":{"audit":{"retentionDays":30}}}`, func(s *state.AppSettings) { s.Audit.RetentionDays = 30 }},
		{`{"settings":{"audit":{"maxMB":10000,"retentionDays":3650}}}`, func(s *state.AppSettings) {
			s.Audit.MaxMB = 10000
			s.Audit.RetentionDays = 3650
		}},
		{`{"settings":{"git":{"activeIdentityProfileId":null}}}`, func(s *state.AppSettings) { s.Git.ActiveIdentityProfileID = nil }},
		{`{"settings":{"git":{"activeIdentityProfileId":"gitacct_1"}}}`, func(s *state.AppSettings) {
			id := "gitacct_1"
			s.Git.ActiveIdentityProfileID = &id
		}},
		// Removing the active profile resets the choice to "use git config".
		{`{"settings":{"git":{"identityProfiles":[]}}}`, func(s *state.AppSettings) {
			s.Git.IdentityProfiles = []state.IdentityProfile{}
			s.Git.ActiveIdentityProfileID = nil
		}},
	}
	want := state.DefaultSettings()
	for _, tt := range tests {
		tt.want(&want)
		res := call(reg, "set_app_settings", tt.args)
		var got settingstools.Result
		if !res.OK || json.Unmarshal(res.Content, &got) != nil || !reflect.DeepEqual(got.Settings, want) {
			t.Errorf("set_app_settings(%s) = %s %+v, want %+v", tt.args, res.Content, res.Error, want)
		}
		if stored := st.Settings(); !reflect.DeepEqual(stored, want) {
			t.Errorf("after set_app_settings(%s) stored %+v, want %+v", tt.args, stored, want)
		}
	}
	if len(*changes) != len(tests) || !reflect.DeepEqual((*changes)[len(tests)-1], want) {
		t.Errorf("OnChange calls = %v, want %d ending in %+v", *changes, len(tests), want)
	}
}

func TestPatchRefused(t *testing.T) {
	reg, st, _ := setup(t)
	tests := []struct {
		args string
		msg  string
	}{
		{`{}`, "settings"},
		{`{"settings":{"git":{"refreshIntervalMs":5}}}`, "refreshIntervalMs"},
		{`{"settings":{"git":{"activeIdentityProfileId":"gitacct_nope"}}}`, "gitacct_nope"},
		{`{"settings":{"git":{"activeIdentityProfileId":7}}}`, "activeIdentityProfileId"},
		{`{"settings":{"git":{"identityProfiles":[{"id":"x","label":"","name":"","email":""}]}}}`, "gitacct_"},
		{`{"settings":{"git":{"identityProfiles":[{"id":"gitacct_a","label":"A","name":"A","email":"a@x"},{"id":"gitacct_a","label":"B","name":"B","email":"b@x"}]}}}`, "duplicate"},
		{`{"settings":{"autoRun":true}}`, "autoRun"},
		{`{"settings":{"defaultPackageManager":"pip"}}`, "defaultPackageManager"},
		{`{"settings":{"debugMode":"yes"}}`, "debugMode"},
		{`{"settings":{"devServerOpenBrowser":"always"}}`, "devServerOpenBrowser"},
		{`{"settings":{"stopOrphansOnStart":"no"}}`, "stopOrphansOnStart"},
		{`{"settings":{"audit":{"retentionDays":0}}}`, "settings.audit.retentionDays"},
		{`{"settings":{"audit":{"retentionDays":3651}}}`, "settings.audit.retentionDays"},
		{`{"settings":{"audit":{"maxMB":0}}}`, "settings.audit.maxMB"},
		{`{"settings":{"audit":{"maxMB":10001}}}`, "settings.audit.maxMB"},
		{`{"settings":{"audit":{"maxMB":"big"}}}`, "settings.audit.maxMB"},
		{`{"settings":{"audit":{"days":5}}}`, "days"},
	}
	for _, tt := range tests {
		res := call(reg, "set_app_settings", tt.args)
		if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(res.Error.Message+fmt.Sprint(res.Error.Details), tt.msg) {
			t.Errorf("set_app_settings(%s) = %+v, want VALIDATION_ERROR naming %q", tt.args, res.Error, tt.msg)
		}
	}
	if !reflect.DeepEqual(st.Settings(), state.DefaultSettings()) {
		t.Errorf("refused patches changed the settings to %+v", st.Settings())
	}
}

func TestAppGetState(t *testing.T) {
	reg, st, _ := setup(t)
	res := call(reg, "app_get_state", `{}`)
	var got state.State
	if !res.OK || json.Unmarshal(res.Content, &got) != nil {
		t.Fatalf("app_get_state = %s %+v", res.Content, res.Error)
	}
	if want := st.Get(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("app_get_state = %+v, want %+v", got, want)
	}
	for _, key := range []string{fmt.Sprintf(`"version":%d`, state.CurrentVersion), `"spaces":[`, `"activeSpaceId":"space_`, `"browserTabs":[]`, `"workspaceTabs":[]`, `"settings":{`} {
		if !strings.Contains(string(res.Content), key) {
			t.Errorf("app_get_state content %s lacks %s", res.Content, key)
		}
	}
}

// TestPatchBounds: the strings of identity profiles and the active profile
// id are bounded; a longer one is refused with a VALIDATION_ERROR naming
// the argument and the bound, not the value.
func TestPatchBounds(t *testing.T) {
	reg, st, _ := setup(t)
	long := strings.Repeat("x", 5000)
	tests := []struct{ args, path, want string }{
		{`{"settings":{"git":{"identityProfiles":[{"id":"gitacct_a","label":"` + long + `","name":"A","email":"a@x"}]}}}`,
			"settings.git.identityProfiles[0].label", "at most 256 characters"},
		{`{"settings":{"git":{"identityProfiles":[{"id":"gitacct_a","label":"A","name":"A","email":"` + long + `"}]}}}`,
			"settings.git.identityProfiles[0].email", "at most 256 characters"},
		{`{"settings":{"git":{"activeIdentityProfileId":"gitacct_` + long + `"}}}`,
			"settings.git.activeIdentityProfileId", "at most 256 characters"},
	}
	for _, tt := range tests {
		res := call(reg, "set_app_settings", tt.args)
		if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(res.Error.Message, tt.want) ||
			!strings.Contains(res.Error.Message, tt.path) || strings.Contains(res.Error.Message, "xxxxxxxx") {
			t.Errorf("set_app_settings(%s …) = %+v, want VALIDATION_ERROR naming it and the bound", tt.path, res.Error)
		}
	}
	if !reflect.DeepEqual(st.Settings(), state.DefaultSettings()) {
		t.Errorf("refused patches changed the settings")
	}
}
