package cli

import (
	"testing"

	"github.com/meith-dev/meith/backend/audit"
)

// TestAuditLimitMatchesTheRuntime: the CLI checks --limit against its own
// copy of audit_query's largest page (it does not import the audit package).
func TestAuditLimitMatchesTheRuntime(t *testing.T) {
	if maxAuditLimit != audit.MaxQueryLimit {
		t.Errorf("maxAuditLimit = %d, want audit.MaxQueryLimit %d", maxAuditLimit, audit.MaxQueryLimit)
	}
}
