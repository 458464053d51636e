package permissiontools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// newRegistry serves the tools over a service whose rules file holds one
// rule; cli callers hold every capability (the operator's --grant-cli),
// so only the tools' own trust check stands between them and the rules.
func newRegistry(t *testing.T) (*registry.Registry, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "approval-rules.json")
	doc := `{"version":1,"rules":[{"id":"rule_0123456789ab","folder":"/home/me/todo-api","capability":"writes-files","createdAt":"2026-12-01T10:00:00Z"}]}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := permission.New(permission.Options{RulesFile: file, CLIGrants: protocol.Capabilities})
	r := registry.New(registry.Options{Authorizer: svc})
	Register(r, Deps{Service: svc})
	return r, file
}

func call(r *registry.Registry, caller protocol.Caller, tool, args string) protocol.ToolResult {
	return r.Call(context.Background(), registry.Request{RequestID: "req_1", ToolName: tool, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: caller, SessionID: "socket:1"}, Timeout: 10 * time.Second})
}

func TestRulesToolsTrustedOnly(t *testing.T) {
	r, file := newRegistry(t)
	for _, c := range []protocol.Caller{protocol.CallerCLI, protocol.CallerAgent} {
		for _, tc := range []struct{ tool, args string }{
			{"permission_list_rules", `{}`}, {"permission_revoke_rule", `{"id":"rule_0123456789ab"}`},
		} {
			if res := call(r, c, tc.tool, tc.args); protocol.CodeOf(res.Err()) != protocol.CodePermissionDenied {
				t.Errorf("%s by %s = %v, want PERMISSION_DENIED", tc.tool, c, res.Err())
			}
		}
	}
	res := call(r, protocol.CallerRenderer, "permission_list_rules", `{}`)
	var list RuleList
	if err := json.Unmarshal(res.Content, &list); err != nil || len(list.Rules) != 1 || list.Rules[0].Folder != "/home/me/todo-api" {
		t.Fatalf("list by the window = %s (%v)", res.Content, res.Err())
	}
	res = call(r, protocol.CallerRenderer, "permission_revoke_rule", `{"id":"rule_0123456789ab"}`)
	var rev RevokeRuleResult
	if err := json.Unmarshal(res.Content, &rev); err != nil || rev.Revoked != "rule_0123456789ab" || len(rev.Rules) != 0 {
		t.Fatalf("revoke by the window = %s (%v)", res.Content, res.Err())
	}
	if again := permission.New(permission.Options{RulesFile: file}); len(again.Rules()) != 0 {
		t.Errorf("rules on disk after revoke = %+v", again.Rules())
	}
	if res := call(r, protocol.CallerRenderer, "permission_revoke_rule", `{"id":"rule_0123456789ab"}`); protocol.CodeOf(res.Err()) != protocol.CodeValidation {
		t.Errorf("revoking an unknown rule = %v, want VALIDATION_ERROR", res.Err())
	}
}
