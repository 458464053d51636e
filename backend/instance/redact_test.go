package instance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/protocol"
)

// The secrets of the attack of 2026-12-01 (A1): a GitHub token, a
// password, an OpenAI project key and a JWT.
const (
	secretGitHub = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	secretPass   = "hunter2"
	secretOpenAI = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDc"
	secretJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	// secretOld is in a log line an older meith wrote, before the scanner.
	secretOld = "ghp_0ldL0gLineFr0mAnOlderMeithZz9Yy8Xx7W"
)

// secretFragments are the parts of the secrets that must not appear
// anywhere: each secret and a distinctive piece of it (a cut-off value
// leaks too).
var secretFragments = []string{
	secretGitHub, secretGitHub[:12], secretPass, secretOpenAI, secretOpenAI[:14],
	secretJWT, secretJWT[:30], "SflKxwRJSMeKKF2QT4fw",
}

// TestSecretsStayOutOfAuditLogsAndBugReport makes the attack's calls
// through a real runtime (socket, registry, audit, app log, tools) and
// greps audit.jsonl, logs.jsonl, app_get_logs and the exported bug report
// for the secrets.
func TestSecretsStayOutOfAuditLogsAndBugReport(t *testing.T) {
	root := t.TempDir()
	ud := filepath.Join(root, "u")
	if err := os.MkdirAll(ud, 0o700); err != nil {
		t.Fatal(err)
	}
	old := `{"id":"log_000000000001","ts":"2026-11-30T10:00:00.000Z","level":"info","source":"process","message":"dev server dev_1 started (pid 1): GITHUB_TOKEN=` +
		secretOld + ` npm run dev","data":{"cmd":"TOKEN=` + secretOld + `"}}` + "\n"
	if err := os.WriteFile(filepath.Join(ud, instance.LogsFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	inst := startAt(t, root, protocol.CapStartsProcess, protocol.CapWritesFiles, protocol.CapControlsBrowser)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, inst.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	callRaw := func(tool string, args any) protocol.ToolResult {
		t.Helper()
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Call(ctx, tool, b, client.CallOptions{})
		if err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
		return res
	}
	dir := t.TempDir()
	type m = map[string]any
	calls := []struct {
		tool   string
		args   m
		failed bool // the call fails (so logs.jsonl has its message)
	}{
		{"git_restore", m{"paths": []string{"a"}, "confirm": secretGitHub}, true},
		{"app_ping", m{"delayMs": secretJWT}, true},
		{"app_ping", m{"message": "my token is " + secretGitHub}, false},
		{"app_ping", m{"message": "clone https://user:" + secretPass + "@example.com/r.git?access_token=" + secretOpenAI + "&page=2"}, false},
		{"app_ping", m{"message": "curl -H 'Authorization: Bearer " + secretJWT + "' https://example.com"}, false},
		{"start_dev_server", m{"cwd": dir, "command": "GITHUB_TOKEN=" + secretGitHub + " DB_PASSWORD=" + secretPass + " true --password " + secretPass}, false},
		{"start_dev_server", m{"cwd": dir, "command": "true", "args": []string{"--password", secretPass, "--api-key", secretOpenAI}}, false},
		{"ai_complete", m{"prompt": "my key is " + secretOpenAI, "systemPrompt": "use " + secretGitHub}, true},
		{"stop_dev_server", m{"devServerId": "dev_x", "signal": secretGitHub}, true},
		{"open_browser_tab", m{"url": "ftp://user:" + secretPass + "@example.com/?token=" + secretGitHub}, true},
	}
	for _, cl := range calls {
		res := callRaw(cl.tool, cl.args)
		if res.OK == cl.failed {
			t.Errorf("%s %v: ok = %v, want %v (%+v)", cl.tool, cl.args, res.OK, !cl.failed, res.Error)
		}
	}
	if err := inst.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	logsRes := callRaw("app_get_logs", m{"limit": 1000})
	if !logsRes.OK {
		t.Fatalf("app_get_logs = %+v", logsRes.Error)
	}
	reportRes := callRaw("app_export_bug_report", m{"logsLimit": 1000})
	if !reportRes.OK {
		t.Fatalf("app_export_bug_report = %+v", reportRes.Error)
	}
	var report struct{ Path string }
	if err := json.Unmarshal(reportRes.Content, &report); err != nil {
		t.Fatal(err)
	}
	reportFile, err := os.ReadFile(report.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	auditFile, err := os.ReadFile(filepath.Join(ud, instance.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	logsFile, err := os.ReadFile(filepath.Join(ud, instance.LogsFile))
	if err != nil {
		t.Fatal(err)
	}
	// logs.jsonl still holds the old line as it was; the new lines are clean.
	newLogs := strings.TrimPrefix(string(logsFile), old)

	outputs := []struct{ name, text string }{
		{"audit.jsonl", string(auditFile)},
		{"logs.jsonl (the new lines)", newLogs},
		{"app_get_logs", string(logsRes.Content)},
		{"app_export_bug_report's file", string(reportFile)},
		{"app_export_bug_report's result", string(reportRes.Content)},
	}
	// The outputs hold what they should, so that a clean grep means something.
	for _, want := range []struct{ output, text string }{
		{"audit.jsonl", `"toolName":"git_restore"`},
		{"audit.jsonl", `"toolName":"ai_complete"`},
		{"audit.jsonl", "[REDACTED_TEXT "},
		{"audit.jsonl", "[REDACTED]"},
		{"logs.jsonl (the new lines)", "must be a boolean"},
		{"logs.jsonl (the new lines)", "started (pid"},
		{"app_get_logs", "started (pid"},
		{"app_get_logs", "GITHUB_TOKEN=[REDACTED]"},
		{"app_get_logs", "must be an integer"},
		{"app_export_bug_report's file", "started (pid"},
		{"app_export_bug_report's file", "must be a boolean"},
	} {
		for _, o := range outputs {
			if o.name == want.output && !strings.Contains(o.text, want.text) {
				t.Errorf("%s lacks %q: the calls did not reach it\n%s", o.name, want.text, o.text)
			}
		}
	}
	for _, o := range outputs {
		for _, s := range append(secretFragments, secretOld) {
			if n := strings.Count(o.text, s); n > 0 {
				t.Errorf("%s holds %q %d times", o.name, s, n)
			}
		}
	}
	if t.Failed() {
		t.Logf("audit.jsonl:\n%s\nlogs.jsonl:\n%s", auditFile, logsFile)
	}
}
