package instance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
)

// auditEntryOf waits until audit.jsonl holds an entry of tool and returns
// the newest, as written.
func auditEntryOf(t *testing.T, inst *instancetest.Instance, tool string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := inst.FlushAudit(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(inst.UserData, instance.AuditFile))
		if err != nil {
			t.Fatal(err)
		}
		var found map[string]any
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e map[string]any
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("audit line %q: %v", sc.Text(), err)
			}
			if e["toolName"] == tool {
				found = e
			}
		}
		f.Close()
		if found != nil {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("no audit entry of %s", tool)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAuditOfCLICallsThatWaitedForApproval: a CLI call over the real socket
// that waits on the window's prompt is audited as what happened to it. A
// client that disconnects or interrupts the call while the prompt is open
// gets "cancelled" (never "allow"), and the tool never ran.
func TestAuditOfCLICallsThatWaitedForApproval(t *testing.T) {
	cases := []struct {
		name     string
		answer   permission.Decision // "" for none
		end      string              // "disconnect" or "interrupt" while the prompt is open
		decision string
		ran      bool
	}{
		{"approved", permission.AllowOnce, "", "approved", true},
		{"refused", permission.Deny, "", "refused", false},
		{"client disconnects while waiting", "", "disconnect", "cancelled", false},
		{"client interrupts the call while waiting", "", "interrupt", "cancelled", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inst := instancetest.New(t, instancetest.WithApprovalUI())
			pending := make(chan string, 1)
			resolved := make(chan permission.Resolution, 1)
			stop := inst.Approvals().Subscribe(func(ev permission.ApprovalEvent) {
				switch ev.Kind {
				case permission.ApprovalPending:
					pending <- ev.Request.ID
					if c.answer != "" {
						go inst.Approvals().Decide(ev.Request.ID, c.answer)
					}
				case permission.ApprovalResolved:
					resolved <- ev.Resolution
				}
			})
			defer stop()
			detach := inst.Approvals().Attach()
			defer detach()

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c2, err := client.Dial(ctx, inst.SocketPath)
			if err != nil {
				t.Fatal(err)
			}
			defer c2.Close()
			callCtx, interrupt := context.WithCancel(ctx)
			defer interrupt()
			done := make(chan error, 1)
			go func() {
				_, err := c2.Call(callCtx, "app_set_debug_mode", json.RawMessage(`{"enabled":true}`), client.CallOptions{})
				done <- err
			}()
			var approvalID string
			select {
			case approvalID = <-pending:
			case <-ctx.Done():
				t.Fatal("no approval request")
			}
			switch c.end {
			case "disconnect":
				c2.Close()
			case "interrupt":
				interrupt()
			}
			<-done
			select {
			case <-resolved:
			case <-ctx.Done():
				t.Fatal("the approval request was never resolved")
			}

			e := auditEntryOf(t, inst, "app_set_debug_mode")
			if e["decision"] != c.decision || e["approvalId"] != approvalID || e["decidedBy"] != "window" {
				t.Errorf("audit entry %v, want decision %s, approvalId %s, decidedBy window", e, c.decision, approvalID)
			}
			if id, _ := e["requestId"].(string); !strings.HasPrefix(id, "req_") {
				t.Errorf("audit requestId = %v, want the client's req_…", e["requestId"])
			}
			if pid, _ := e["clientPid"].(float64); int(pid) != os.Getpid() {
				t.Errorf("audit clientPid = %v, want this process %d (peer credentials)", e["clientPid"], os.Getpid())
			}
			if exe, _ := e["clientExe"].(string); exe == "" {
				t.Errorf("audit clientExe is empty, want this test binary")
			}
			if got := inst.Logger().Debug(); got != c.ran {
				t.Errorf("debug mode = %v after the call, want %v (the tool ran: %v)", got, c.ran, c.ran)
			}
		})
	}
}

// TestAuditOfHeadlessDenial: a runtime without a window denies a privileged
// CLI call at once, and the audit says deny with no question asked.
func TestAuditOfHeadlessDenial(t *testing.T) {
	inst := instancetest.New(t)
	c := dial(t, inst)
	call(t, c, "app_set_debug_mode", `{"enabled":true}`, nil)
	e := auditEntryOf(t, inst, "app_set_debug_mode")
	if e["decision"] != "deny" || e["approvalId"] != nil || e["decidedBy"] != nil {
		t.Errorf("audit entry %v, want decision deny without approvalId or decidedBy", e)
	}
}
