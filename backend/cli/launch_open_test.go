package cli

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestOpenRaisesWindow: `meith <dir>` and `meith new` raise the app's
// window after a successful open (the opened space is in front), and only
// then; `meith new` asks for the new app to open running.
func TestOpenRaisesWindow(t *testing.T) {
	dir := t.TempDir()
	opened := `{"cwd":"/p/my-app","project":{"name":"my-app","detection":{"label":"Node.js + npm"}},"space":{"name":"my-app"},` +
		`"devServer":{"command":"npm run dev"}}`
	okConn := func() *fakeConn {
		return &fakeConn{respond: func(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error) {
			if tool == "app_focus_window" {
				return protocol.ToolResult{OK: true, Content: json.RawMessage(`{"focused":false,"reason":"headless"}`)}, nil
			}
			return protocol.ToolResult{OK: true, Content: json.RawMessage(opened)}, nil
		}}
	}
	tools := func(f *fakeConn) []string {
		var names []string
		for _, c := range f.calls {
			names = append(names, c.Tool)
		}
		return names
	}

	f := okConn()
	expect(t, run(f, "--socket", sock, dir), 0, "Opened my-app (Node.js + npm) in space my-app\n", "")
	if got := tools(f); !slices.Equal(got, []string{"project_open", "app_focus_window"}) {
		t.Errorf("meith <dir> called %v, want project_open then app_focus_window", got)
	}

	f = okConn()
	expect(t, run(f, "--socket", sock, "new", "My App"), 0,
		"Created /p/my-app\nOpened my-app (Node.js + npm) in space my-app\nRunning npm run dev\n", "")
	if got := tools(f); !slices.Equal(got, []string{"project_create", "app_focus_window"}) {
		t.Errorf("meith new called %v, want project_create then app_focus_window", got)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(f.calls[0].Args), &args); err != nil || args["template"] != "app-basic" ||
		args["name"] != "My App" || args["startDevServer"] != true {
		t.Errorf("project_create args %s, want app-basic, the name and startDevServer true", f.calls[0].Args)
	}

	// A failed open raises nothing.
	f = &fakeConn{respond: func(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error) {
		return protocol.ToolResult{Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "nope"}}, nil
	}}
	if r := run(f, "--socket", sock, dir); r.code != exitFailure {
		t.Errorf("failed open: %s", r)
	}
	if got := tools(f); !slices.Equal(got, []string{"project_open"}) {
		t.Errorf("failed open called %v, want project_open only", got)
	}
}
