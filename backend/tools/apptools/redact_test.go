package apptools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/applog"
)

// TestBugReportRedactsLogsAndHealth: the bug report's logs (an older line
// written before the scanner included) and its health checks hold no
// secret.
func TestBugReportRedactsLogsAndHealth(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs.jsonl")
	old := `{"id":"log_1","ts":"2026-11-30T10:00:00.000Z","level":"info","source":"process","message":"dev server started: DB_PASSWORD=hunter2 npm run dev"}` + "\n"
	if err := os.WriteFile(logs, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := applog.Open(logs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := Deps{Version: "test", StartedAt: time.Now(), UserData: dir, Logger: l,
		Checks: func(context.Context) []Check {
			return []Check{{Name: "agents", Message: "probe https://u:hunter2@example.com failed",
				Details: map[string]any{"command": "env API_TOKEN=hunter2 agent", "args": []any{"--password", "hunter2"}}}}
		}}
	report, err := bugReport(context.Background(), d, os.Getpid(), 10)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(report)
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("bug report holds a secret:\n%s", b)
	}
	for _, want := range []string{"DB_PASSWORD=[REDACTED] npm run dev", "https://[REDACTED]@example.com", "API_TOKEN=[REDACTED] agent"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("bug report lacks %q:\n%s", want, b)
		}
	}
}
