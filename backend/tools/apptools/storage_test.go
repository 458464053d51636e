package apptools

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStorageCheck: the storage check fails when the data directory does
// not take a write or when a durable file cannot be written, naming the
// file, the cause and since when; each collection shows its last write and
// error.
func TestStorageCheck(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	cols := map[string]string{"state": "state.json", "audit": "audit.jsonl"}
	tests := []struct {
		name   string
		dir    string
		health map[string]FileHealth
		ok     bool
		msg    string
	}{
		{"healthy", dir, map[string]FileHealth{"state": {LastWriteAt: at}, "audit": {LastWriteAt: at}}, true, ""},
		{"state failing", dir, map[string]FileHealth{"state": {Error: "no space left on device", LastErrorAt: at}, "audit": {}}, false,
			"state.json cannot be written: no space left on device (since 2026-12-01T12:00:00Z)"},
		{"both failing", dir, map[string]FileHealth{"state": {Error: "no space left on device", LastErrorAt: at},
			"audit": {Error: "input/output error", LastErrorAt: at, Details: map[string]any{"entriesKeptInMemory": 3}}}, false,
			"audit.jsonl cannot be written: input/output error (since 2026-12-01T12:00:00Z); state.json cannot be written"},
		{"directory gone", filepath.Join(dir, "missing"), nil, false, "data directory does not take a write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Deps{UserData: tt.dir, Collections: cols}
			if tt.health != nil {
				d.FileHealth = func() map[string]FileHealth { return tt.health }
			}
			c := storageCheck(d)
			if c.OK != tt.ok || !strings.Contains(c.Message, tt.msg) {
				t.Errorf("storage check = ok %v, %q; want ok %v and %q", c.OK, c.Message, tt.ok, tt.msg)
			}
			info := c.Details["collections"].(map[string]any)["state"].(map[string]any)
			if h := tt.health["state"]; h.Error != "" && (info["error"] != h.Error || info["lastErrorAt"] != "2026-12-01T12:00:00Z") {
				t.Errorf("state collection details = %v, want its error and when", info)
			}
			if tt.name == "both failing" && c.Details["collections"].(map[string]any)["audit"].(map[string]any)["entriesKeptInMemory"] != 3 {
				t.Errorf("audit collection details = %v, want entriesKeptInMemory", c.Details["collections"])
			}
		})
	}
}
