package artifact

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts", "shots")
	tests := []struct {
		body     string
		wantName string
	}{
		{"one", "shot.png"},
		{"two", "shot-2.png"},
		{"three", "shot-3.png"},
	}
	for _, tt := range tests {
		path, err := Write(dir, "shot", ".png", []byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if filepath.Base(path) != tt.wantName || string(got) != tt.body || fi.Mode().Perm() != 0o600 {
			t.Errorf("Write(%q) = %s (%q, %v), want %s with the body, 0600", tt.body, path, got, fi.Mode().Perm(), tt.wantName)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
	}
	if _, err := Write(filepath.Join(dir, "shot.png", "x"), "a", ".txt", nil); err == nil {
		t.Error("Write under a file succeeded")
	}
}
