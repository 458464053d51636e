package instance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TestAuditRetentionAppliedLive: set_app_settings' audit retention removes
// the archives beyond it at once, without a restart; the live file stays.
func TestAuditRetentionAppliedLive(t *testing.T) {
	inst := instancetest.New(t)
	rotated := time.Now().Add(-10 * 24 * time.Hour).UTC().Format("20060102T150405.000000000Z")
	archive := filepath.Join(inst.UserData, "audit-"+rotated+"-audit_0123456789ab.jsonl.gz")
	if err := os.WriteFile(archive, []byte("not read by retention"), 0o600); err != nil {
		t.Fatal(err)
	}
	set := func(args string) {
		t.Helper()
		res := inst.Registry().Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: "set_app_settings",
			Args: json.RawMessage(args), Client: protocol.ClientInfo{Caller: protocol.CallerRenderer}})
		if !res.OK {
			t.Fatalf("set_app_settings(%s) = %+v", args, res.Error)
		}
	}
	set(`{"settings":{"audit":{"retentionDays":30}}}`)
	if _, err := os.Stat(archive); err != nil {
		t.Fatalf("an archive of 10 days ago is gone with a retention of 30 days: %v", err)
	}
	set(`{"settings":{"audit":{"retentionDays":5}}}`)
	if _, err := os.Stat(archive); !os.IsNotExist(err) {
		t.Errorf("the archive of 10 days ago is still there after the retention became 5 days (err %v)", err)
	}
	if _, err := os.Stat(filepath.Join(inst.UserData, "audit.jsonl")); err != nil {
		t.Errorf("the live audit file: %v", err)
	}
}
