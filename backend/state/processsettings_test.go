package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessSettingsDefaults: a fresh install stops orphans at start and
// offers a browser tab for a dev server's port.
func TestProcessSettingsDefaults(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	got := s.Settings()
	if !got.StopOrphansOnStart || got.DevServerOpenBrowser != DevServerBrowserOffer {
		t.Errorf("defaults: stopOrphansOnStart %v, devServerOpenBrowser %q; want true, offer", got.StopOrphansOnStart, got.DevServerOpenBrowser)
	}
	b, _ := json.Marshal(got)
	for _, key := range []string{`"stopOrphansOnStart":true`, `"devServerOpenBrowser":"offer"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("settings JSON %s lacks %s", b, key)
		}
	}
}

// TestProcessSettingsLoad: a version-2 file written before the settings
// existed gets their defaults; one that has them keeps them; an unknown
// mode is a corrupt file (backed up, reset).
func TestProcessSettingsLoad(t *testing.T) {
	base := Default(1)
	raw, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	settings := doc["settings"].(map[string]any)
	write := func(t *testing.T, mutate func(map[string]any)) string {
		t.Helper()
		m := map[string]any{}
		for k, v := range settings {
			m[k] = v
		}
		mutate(m)
		doc["settings"] = m
		b, _ := json.Marshal(doc)
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name     string
		mutate   func(map[string]any)
		orphans  bool
		browser  string
		spacesID string // the file's space survives unless reset
	}{
		{"absent keys take defaults", func(m map[string]any) {
			delete(m, "stopOrphansOnStart")
			delete(m, "devServerOpenBrowser")
		}, true, "offer", base.Spaces[0].ID},
		{"stored values kept", func(m map[string]any) {
			m["stopOrphansOnStart"] = false
			m["devServerOpenBrowser"] = "off"
		}, false, "off", base.Spaces[0].ID},
		{"open", func(m map[string]any) { m["devServerOpenBrowser"] = "open" }, true, "open", base.Spaces[0].ID},
		{"unknown mode resets the mode only", func(m map[string]any) {
			m["stopOrphansOnStart"] = false
			m["devServerOpenBrowser"] = "sometimes"
		}, false, "offer", base.Spaces[0].ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, write(t, tt.mutate), Options{Logf: func(string, ...any) {}})
			st := s.Get()
			if st.Settings.StopOrphansOnStart != tt.orphans || st.Settings.DevServerOpenBrowser != tt.browser {
				t.Errorf("loaded stopOrphansOnStart %v, devServerOpenBrowser %q; want %v, %q",
					st.Settings.StopOrphansOnStart, st.Settings.DevServerOpenBrowser, tt.orphans, tt.browser)
			}
			if kept := st.Spaces[0].ID == base.Spaces[0].ID; kept != (tt.spacesID != "") {
				t.Errorf("space kept = %v, want %v", kept, tt.spacesID != "")
			}
		})
	}
}

// TestProcessSettingsInvariant: an unknown devServerOpenBrowser mode is
// refused by Update.
func TestProcessSettingsInvariant(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	err := s.Update(func(st *State) error { st.Settings.DevServerOpenBrowser = "always"; return nil })
	if err == nil || !strings.Contains(err.Error(), "devServerOpenBrowser") {
		t.Errorf("Update(devServerOpenBrowser always) = %v, want an error naming it", err)
	}
	if err := s.Update(func(st *State) error { st.Settings.DevServerOpenBrowser = DevServerBrowserOpen; return nil }); err != nil {
		t.Errorf("Update(open) = %v", err)
	}
}
