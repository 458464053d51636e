package instance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

func TestExportBugReport(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithLabel("bugs"))
	for i := range 5 {
		inst.Logger().Logf(protocol.LevelInfo, "test", "filler entry %d", i)
	}
	c := dial(t, inst)

	var events []protocol.Event
	res := call(t, c, "app_export_bug_report", `{"logsLimit":3}`, &events)
	if !res.OK {
		t.Fatalf("app_export_bug_report = %+v", res.Error)
	}
	var out struct {
		Path   string
		Bytes  int64
		Report struct {
			Schema     string
			ExportedAt string
			App        struct {
				Version    string
				PID        int
				SocketPath string
				Label      string
			}
			Environment struct {
				Platform, Arch, Go string
				PID                int
				UptimeSeconds      float64
			}
			StateSummary struct {
				Spaces        int
				ActiveSpaceID string
				Settings      map[string]any
			}
			Health struct {
				Status string
				Checks []struct{ Name string }
			}
			Logs         []struct{ Message string }
			ToolRegistry []struct {
				Name         string
				Capabilities []string
			}
			Storage struct {
				DataDirectory string
				Collections   map[string]struct {
					Path  string
					Bytes *int64
				}
			}
		}
	}
	if err := json.Unmarshal(res.Content, &out); err != nil {
		t.Fatal(err)
	}
	r := out.Report
	wantDir := filepath.Join(inst.UserData, "artifacts")
	if filepath.Dir(out.Path) != wantDir || !strings.HasPrefix(filepath.Base(out.Path), "bug-report-") ||
		!strings.HasSuffix(out.Path, ".json") {
		t.Errorf("path = %q, want %s/bug-report-<ts>.json", out.Path, wantDir)
	}
	if r.Schema != "meith-bug-report/v1" || r.ExportedAt == "" || r.App.PID != os.Getpid() ||
		r.App.Label != "bugs" || r.App.SocketPath != inst.SocketPath || r.App.Version == "" {
		t.Errorf("report schema/app = %q %q %+v", r.Schema, r.ExportedAt, r.App)
	}
	if r.Environment.Platform != runtime.GOOS || r.Environment.Arch != runtime.GOARCH ||
		r.Environment.Go != runtime.Version() || r.Environment.PID != os.Getpid() {
		t.Errorf("environment = %+v", r.Environment)
	}
	if r.StateSummary.Spaces != 1 || r.StateSummary.ActiveSpaceID == "" || r.StateSummary.Settings["defaultPackageManager"] == nil {
		t.Errorf("stateSummary = %+v, want one active space and the settings", r.StateSummary)
	}
	if r.Health.Status != "ok" || len(r.Health.Checks) < 4 {
		t.Errorf("health = %+v, want app_health's value", r.Health)
	}
	if len(r.Logs) != 3 {
		t.Errorf("logs = %d entries, want logsLimit 3", len(r.Logs))
	}
	found := false
	for _, tool := range r.ToolRegistry {
		if tool.Name == "app_set_debug_mode" {
			found = len(tool.Capabilities) == 1 && tool.Capabilities[0] == string(protocol.CapWritesFiles)
		}
	}
	if !found {
		t.Errorf("toolRegistry lacks app_set_debug_mode with writes-files: %+v", r.ToolRegistry)
	}
	if r.Storage.DataDirectory != inst.UserData || r.Storage.Collections["logs"].Bytes == nil {
		t.Errorf("storage = %+v, want the data dir and collection sizes", r.Storage)
	}

	fi, err := os.Stat(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() != out.Bytes {
		t.Errorf("file mode %v size %d, want 0600 and %d bytes", fi.Mode().Perm(), fi.Size(), out.Bytes)
	}
	if di, err := os.Stat(wantDir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("artifacts dir = %v, %v, want 0700", di, err)
	}
	var onDisk struct {
		Schema string
		Logs   []json.RawMessage
	}
	if b, err := os.ReadFile(out.Path); err != nil || json.Unmarshal(b, &onDisk) != nil ||
		onDisk.Schema != "meith-bug-report/v1" || len(onDisk.Logs) != 3 {
		t.Errorf("file on disk = %+v, %v, want the report", onDisk, err)
	}

	var artifact, progress bool
	for _, ev := range events {
		switch ev.Kind {
		case protocol.EventArtifact:
			artifact = ev.MimeType == "application/json" && ev.Path == out.Path && ev.Name == filepath.Base(out.Path)
		case protocol.EventProgress:
			progress = true
		}
	}
	if !artifact || !progress {
		t.Errorf("events = %+v, want progress and an application/json artifact at %s", events, out.Path)
	}

	// The default is 500; the limit is validated.
	res = call(t, c, "app_export_bug_report", `{}`, nil)
	if !res.OK {
		t.Errorf("app_export_bug_report {} = %+v", res.Error)
	}
	for _, bad := range []string{`{"logsLimit":0}`, `{"logsLimit":2001}`, `{"logsLimit":"many"}`} {
		if res := call(t, c, "app_export_bug_report", bad, nil); res.OK || res.Error.Code != protocol.CodeValidation {
			t.Errorf("app_export_bug_report %s = %+v, want VALIDATION_ERROR", bad, res)
		}
	}
}

// callDirect runs a tool through inst's registry as the renderer.
func callDirect(t *testing.T, inst *instance.Instance, tool string, events *[]protocol.Event) protocol.ToolResult {
	t.Helper()
	return inst.Registry().Call(context.Background(), registry.Request{
		RequestID: "req_test", ToolName: tool, Args: json.RawMessage(`{}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, SessionID: "renderer"},
		Emit: func(ev protocol.Event) {
			if events != nil {
				*events = append(*events, ev)
			}
		},
	})
}

func newInstance(t *testing.T, cfg instance.Config) *instance.Instance {
	t.Helper()
	root := t.TempDir()
	cfg.Home, cfg.UserData = filepath.Join(root, "h"), filepath.Join(root, "u")
	inst, err := instance.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(context.Background()) })
	return inst
}

func TestScreenshotHeadless(t *testing.T) {
	inst := instancetest.New(t)
	res := call(t, dial(t, inst), "app_screenshot", `{}`, nil)
	if res.OK || res.Error.Code != protocol.CodeToolFailed ||
		res.Error.Message != "No application window is available to capture (running headless)." {
		t.Errorf("headless app_screenshot = %+v, want TOOL_FAILED with the headless message", res)
	}
}

func TestScreenshotWithCapture(t *testing.T) {
	var buf bytes.Buffer
	if err := pngenc.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	png := buf.Bytes()
	inst := newInstance(t, instance.Config{CaptureWindow: func(ctx context.Context) ([]byte, error) { return png, nil }})
	var events []protocol.Event
	res := callDirect(t, inst, "app_screenshot", &events)
	var out struct {
		Bytes         int
		Path          string
		Width, Height int
	}
	if !res.OK || json.Unmarshal(res.Content, &out) != nil {
		t.Fatalf("app_screenshot = %+v", res)
	}
	wantDir := filepath.Join(inst.Paths().UserData, "artifacts")
	if out.Bytes != len(png) || filepath.Dir(out.Path) != wantDir ||
		!strings.HasPrefix(filepath.Base(out.Path), "app-") || !strings.HasSuffix(out.Path, ".png") {
		t.Errorf("app_screenshot = %s, want %d bytes at %s/app-<ts>.png", res.Content, len(png), wantDir)
	}
	if out.Width != 3 || out.Height != 2 {
		t.Errorf("app_screenshot size = %dx%d, want 3x2 (from the PNG header)", out.Width, out.Height)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || !bytes.Equal(b, png) {
		t.Errorf("screenshot file = %d bytes, %v, want the PNG", len(b), err)
	}
	if fi, err := os.Stat(out.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("screenshot file mode = %v, %v, want 0600", fi, err)
	}
	if len(events) != 1 || events[0].Kind != protocol.EventArtifact || events[0].MimeType != "image/png" || events[0].Path != out.Path {
		t.Errorf("events = %+v, want one image/png artifact", events)
	}

	// Two captures in a row get two files.
	if res2 := callDirect(t, inst, "app_screenshot", nil); !res2.OK || bytes.Equal(res2.Content, res.Content) {
		t.Errorf("second app_screenshot = %s, want a new file", res2.Content)
	}

	failing := newInstance(t, instance.Config{CaptureWindow: func(ctx context.Context) ([]byte, error) {
		return nil, errors.New("no frame")
	}})
	if res := callDirect(t, failing, "app_screenshot", nil); res.OK || res.Error.Code != protocol.CodeToolFailed ||
		!strings.Contains(res.Error.Message, "no frame") {
		t.Errorf("failing capture = %+v, want TOOL_FAILED naming the cause", res)
	}
	notPNG := newInstance(t, instance.Config{CaptureWindow: func(ctx context.Context) ([]byte, error) {
		return []byte("GIF89a"), nil
	}})
	if res := callDirect(t, notPNG, "app_screenshot", nil); res.OK || res.Error.Code != protocol.CodeToolFailed {
		t.Errorf("non-PNG capture = %+v, want TOOL_FAILED", res)
	}
}
