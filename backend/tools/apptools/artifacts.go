package apptools

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/internal/artifact"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// ArtifactsDir is the directory under the user data dir where tools write
// the files they produce (bug reports, screenshots).
const ArtifactsDir = artifact.Dir

// BugReportSchema names the format of app_export_bug_report's report.
const BugReportSchema = "meith-bug-report/v1"

// ErrHeadless is the message of app_screenshot in a runtime without a window.
const ErrHeadless = "No application window is available to capture (running headless)."

// pngSignature starts every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// BugReportInput is the input of app_export_bug_report.
type BugReportInput struct {
	LogsLimit int `json:"logsLimit,omitempty" jsonschema:"how many of the newest app log entries to include" minimum:"1" maximum:"2000" default:"500"`
}

// BugReportResult is the result of app_export_bug_report.
type BugReportResult struct {
	Path   string    `json:"path"`
	Bytes  int64     `json:"bytes"`
	Report BugReport `json:"report"`
}

// BugReport is the document app_export_bug_report writes. It holds nothing
// secret: counts and settings of the state, health, the app log (what the
// runtime already logged, redacted again as it is read back, see
// [applog.Logger.Query]), the tool catalog and file sizes — never tool
// arguments or the audit log. The health checks' messages and details go
// through the value scanner (backend/redact) too.
type BugReport struct {
	Schema       string         `json:"schema"`
	ExportedAt   string         `json:"exportedAt"`
	App          BugReportApp   `json:"app"`
	Environment  Environment    `json:"environment"`
	StateSummary *StateSummary  `json:"stateSummary"`
	Health       Health         `json:"health"`
	Logs         []applog.Entry `json:"logs"`
	ToolRegistry []ToolSummary  `json:"toolRegistry"`
	Storage      Storage        `json:"storage"`
}

// BugReportApp identifies the runtime in a bug report.
type BugReportApp struct {
	Version    string `json:"version"`
	PID        int    `json:"pid"`
	StartedAt  string `json:"startedAt"`
	SocketPath string `json:"socketPath"`
	Label      string `json:"label"`
}

// Environment describes the process and platform in a bug report.
type Environment struct {
	Platform      string  `json:"platform"`
	Arch          string  `json:"arch"`
	Go            string  `json:"go"`
	PID           int     `json:"pid"`
	Cwd           string  `json:"cwd"`
	UptimeSeconds float64 `json:"uptimeSeconds"`
}

// StateSummary is the shape of state.json without its contents.
type StateSummary struct {
	Spaces        int               `json:"spaces"`
	WorkspaceTabs int               `json:"workspaceTabs"`
	BrowserTabs   int               `json:"browserTabs"`
	ActiveSpaceID string            `json:"activeSpaceId"`
	Settings      state.AppSettings `json:"settings"`
}

// ToolSummary is one tool of the registry in a bug report.
type ToolSummary struct {
	Name         string                `json:"name"`
	Capabilities []protocol.Capability `json:"capabilities"`
}

// Storage describes the data directory in a bug report.
type Storage struct {
	DataDirectory string         `json:"dataDirectory"`
	Collections   map[string]any `json:"collections"`
}

// ScreenshotResult is the result of app_screenshot.
type ScreenshotResult struct {
	Bytes int    `json:"bytes"`
	Path  string `json:"path"`
	// Width and Height are the image's size in pixels (from its header).
	Width  int `json:"width"`
	Height int `json:"height"`
}

// pngSize reads the width and height from a PNG's IHDR chunk (0, 0 when
// the header is too short).
func pngSize(png []byte) (width, height int) {
	// signature (8) + chunk length (4) + "IHDR" (4) + width (4) + height (4)
	if len(png) < 24 || string(png[12:16]) != "IHDR" {
		return 0, 0
	}
	return int(binary.BigEndian.Uint32(png[16:20])), int(binary.BigEndian.Uint32(png[20:24]))
}

// exportBugReport is app_export_bug_report.
func (t *tools) exportBugReport(ctx context.Context, call *registry.Call, in BugReportInput) (BugReportResult, error) {
	call.Progress("collecting the bug report", 0)
	report, err := bugReport(ctx, t.d, t.pid, in.LogsLimit)
	if err != nil {
		return BugReportResult{}, err
	}
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return BugReportResult{}, fmt.Errorf("encode bug report: %w", err)
	}
	b = append(b, '\n')
	call.Progress("writing the bug report", 0.5)
	path, err := writeArtifact(t.d.UserData, "bug-report-", ".json", b)
	if err != nil {
		return BugReportResult{}, err
	}
	call.Artifact("application/json", filepath.Base(path), path)
	call.Progress("bug report written", 1)
	return BugReportResult{Path: path, Bytes: int64(len(b)), Report: report}, nil
}

// screenshot is app_screenshot.
func (t *tools) screenshot(ctx context.Context, call *registry.Call, _ registry.NoArgs) (ScreenshotResult, error) {
	if t.d.CaptureWindow == nil {
		return ScreenshotResult{}, protocol.Errorf(protocol.CodeToolFailed, "%s", ErrHeadless)
	}
	png, err := t.d.CaptureWindow(ctx)
	if err != nil {
		return ScreenshotResult{}, fmt.Errorf("capture the window: %w", err)
	}
	if !bytes.HasPrefix(png, pngSignature) {
		return ScreenshotResult{}, errors.New("capture the window: the capture is not a PNG image")
	}
	path, err := writeArtifact(t.d.UserData, "app-", ".png", png)
	if err != nil {
		return ScreenshotResult{}, err
	}
	call.Artifact("image/png", filepath.Base(path), path)
	w, h := pngSize(png)
	return ScreenshotResult{Bytes: len(png), Path: path, Width: w, Height: h}, nil
}

// bugReport gathers the report of app_export_bug_report.
func bugReport(ctx context.Context, d Deps, pid, logsLimit int) (BugReport, error) {
	if logsLimit <= 0 {
		logsLimit = 500
	}
	logs, err := d.Logger.Query(applog.Filter{Limit: logsLimit})
	if err != nil {
		return BugReport{}, err
	}
	if logs == nil {
		logs = []applog.Entry{}
	}
	socketPath := ""
	if d.SocketPath != nil {
		socketPath = d.SocketPath()
	}
	cwd, _ := os.Getwd()
	var summary *StateSummary
	if d.State != nil {
		st := d.State.Get()
		summary = &StateSummary{Spaces: len(st.Spaces), WorkspaceTabs: len(st.WorkspaceTabs),
			BrowserTabs: len(st.BrowserTabs), ActiveSpaceID: st.ActiveSpaceID, Settings: st.Settings}
	}
	tools := []ToolSummary{}
	if d.Registry != nil {
		for _, t := range d.Registry.List() {
			caps := t.Capabilities
			if caps == nil {
				caps = []protocol.Capability{}
			}
			tools = append(tools, ToolSummary{Name: t.Name, Capabilities: caps})
		}
	}
	return BugReport{
		Schema:     BugReportSchema,
		ExportedAt: time.Now().UTC().Format(time.RFC3339Nano),
		App: BugReportApp{Version: d.Version, PID: pid, StartedAt: d.StartedAt.UTC().Format(time.RFC3339Nano),
			SocketPath: socketPath, Label: d.Label},
		Environment: Environment{Platform: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version(), PID: pid,
			Cwd: cwd, UptimeSeconds: time.Since(d.StartedAt).Seconds()},
		StateSummary: summary,
		Health:       redactHealth(health(ctx, d, pid)),
		Logs:         logs,
		ToolRegistry: tools,
		Storage:      Storage{DataDirectory: d.UserData, Collections: collections(d)},
	}, nil
}

// redactHealth returns h with the secrets in its checks' messages and
// details redacted (an error text in a check may quote a URL or a command).
func redactHealth(h Health) Health {
	checks := make([]Check, len(h.Checks))
	for i, c := range h.Checks {
		c.Message = redact.String(c.Message)
		if c.Details != nil {
			c.Details = redact.Value(c.Details).(map[string]any)
		}
		checks[i] = c
	}
	h.Checks = checks
	return h
}

// writeArtifact writes b to a new file <userData>/artifacts/<prefix><UTC
// timestamp><ext> (directory 0700, file 0600) and returns its path. Two
// artifacts of the same millisecond get distinct names.
func writeArtifact(userData, prefix, ext string, b []byte) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405.000Z")
	return artifact.Write(filepath.Join(userData, ArtifactsDir), prefix+stamp, ext, b)
}
