package agenttools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// call runs a tool on a real runtime as caller.
func call(t *testing.T, reg *registry.Registry, caller protocol.Caller, tool, args string) protocol.ToolResult {
	t.Helper()
	return reg.Call(context.Background(), registry.Request{ToolName: tool, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: caller, SessionID: "socket:test", Cwd: t.TempDir()}})
}

func TestTrustedOnlyOperations(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles, protocol.CapStartsProcess))
	reg := inst.Registry()
	cases := []struct {
		caller protocol.Caller
		tool   string
		args   string
		code   protocol.ErrorCode // "" = ok
		msg    string
	}{
		{protocol.CallerCLI, "agent_decide_permission", `{"sessionId":"sess_x","toolCallId":"call_x","decision":"allow"}`, protocol.CodePermissionDenied, "Only the meith window"},
		{protocol.CallerRenderer, "agent_decide_permission", `{"sessionId":"sess_x","toolCallId":"call_x","decision":"allow"}`, protocol.CodeValidation, "No permission request"},
		{protocol.CallerRenderer, "agent_decide_permission", `{"sessionId":"sess_x","toolCallId":"call_x","decision":"maybe"}`, protocol.CodeValidation, "decision"},
		{protocol.CallerCLI, "agent_set_config", `{"autoAccept":true}`, protocol.CodePermissionDenied, "Full access"},
		{protocol.CallerCLI, "agent_set_config", `{"preset":"nope"}`, protocol.CodeValidation, "unknown agent preset"},
		{protocol.CallerRenderer, "agent_set_config", `{"preset":"claude","autoAccept":false}`, "", ""},
		{protocol.CallerCLI, "agent_get_transcript", `{"sessionId":"sess_nope"}`, protocol.CodeValidation, "Unknown agent session"},
		{protocol.CallerCLI, "agent_create_session", `{"cwd":"/nonexistent/dir"}`, protocol.CodeValidation, "does not exist"},
		{protocol.CallerCLI, "agent_send_message", `{"text":"  "}`, protocol.CodeValidation, "empty"},
	}
	for _, c := range cases {
		res := call(t, reg, c.caller, c.tool, c.args)
		switch {
		case c.code == "" && !res.OK:
			t.Errorf("%s as %s = %+v, want ok", c.tool, c.caller, res.Error)
		case c.code != "" && (res.OK || res.Error.Code != c.code || !strings.Contains(res.Error.Message, c.msg)):
			t.Errorf("%s as %s = %+v, want %s containing %q", c.tool, c.caller, res.Error, c.code, c.msg)
		}
	}
	// agent_get_config lists the presets and the saved config.
	res := call(t, reg, protocol.CallerCLI, "agent_get_config", `{}`)
	var cfg struct {
		Config  struct{ Preset string } `json:"config"`
		Presets []struct {
			ID, Label, Command string
			Args               []string
		} `json:"presets"`
	}
	if !res.OK || json.Unmarshal(res.Content, &cfg) != nil || cfg.Config.Preset != "claude" || len(cfg.Presets) != 4 ||
		cfg.Presets[0].Label != "Claude Code" || strings.Join(cfg.Presets[0].Args, " ") != "-y @agentclientprotocol/claude-agent-acp" {
		t.Fatalf("agent_get_config = %s", res.Content)
	}
	// A session in a folder, listed.
	dir := t.TempDir()
	res = call(t, reg, protocol.CallerCLI, "agent_create_session", `{"cwd":"`+dir+`","spaceId":"space_1"}`)
	if !res.OK {
		t.Fatal(res.Error)
	}
	res = call(t, reg, protocol.CallerCLI, "agent_list_sessions", `{"spaceId":"space_1"}`)
	var list struct {
		Sessions []struct {
			ID, Title, Cwd, Status string
			Unseen                 bool
			PendingPermissions     int
		} `json:"sessions"`
	}
	if !res.OK || json.Unmarshal(res.Content, &list) != nil || len(list.Sessions) != 1 || list.Sessions[0].Title != "New session" ||
		list.Sessions[0].Cwd != dir || list.Sessions[0].Status != "idle" {
		t.Fatalf("agent_list_sessions = %s", res.Content)
	}
}

func TestNoAgentConfiguredIsAClearError(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess, protocol.CapAccessesNetwork))
	res := call(t, inst.Registry(), protocol.CallerCLI, "ai_complete", `{"prompt":"hi"}`)
	if res.OK || res.Error.Code != protocol.CodeToolFailed || !strings.Contains(res.Error.Message, "Settings → Agent") {
		t.Fatalf("ai_complete without an agent = %+v", res.Error)
	}
	res = call(t, inst.Registry(), protocol.CallerCLI, "agent_send_message", `{"text":"hello"}`)
	if res.OK || !strings.Contains(res.Error.Message, "No ACP agent configured") {
		t.Fatalf("agent_send_message without an agent = %+v", res.Error)
	}
}

func TestNewSessionFolder(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles))
	reg := inst.Registry()
	folderOf := func(res protocol.ToolResult) string {
		t.Helper()
		var out struct {
			Session struct{ Cwd string } `json:"session"`
		}
		if !res.OK || json.Unmarshal(res.Content, &out) != nil {
			t.Fatalf("agent_create_session = %+v %s", res.Error, res.Content)
		}
		return out.Session.Cwd
	}
	// No space folder, no cwd: the caller's folder; a relative cwd is the
	// caller's too.
	caller := t.TempDir()
	os.Mkdir(filepath.Join(caller, "sub"), 0o755)
	args := func(a string) registry.Request {
		return registry.Request{ToolName: "agent_create_session", Args: json.RawMessage(a),
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:t", Cwd: caller}}
	}
	if got := folderOf(reg.Call(context.Background(), args(`{}`))); got != caller {
		t.Errorf("default folder %q, want the caller's %q", got, caller)
	}
	if got := folderOf(reg.Call(context.Background(), args(`{"cwd":"sub"}`))); got != filepath.Join(caller, "sub") {
		t.Errorf("relative folder %q", got)
	}
	// A space with a project folder: that folder.
	proj := t.TempDir()
	res := reg.Call(context.Background(), registry.Request{ToolName: "create_space", Args: json.RawMessage(`{"name":"P","cwd":"` + proj + `"}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:t"}})
	var sp struct{ ID string }
	if !res.OK || json.Unmarshal(res.Content, &sp) != nil {
		t.Fatalf("create_space = %+v", res.Error)
	}
	if got := folderOf(reg.Call(context.Background(), args(`{"spaceId":"`+sp.ID+`"}`))); got != proj {
		t.Errorf("space folder %q, want %q", got, proj)
	}
}
