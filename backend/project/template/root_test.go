package template

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseUserDirs(t *testing.T) {
	const home = "/home/ada"
	tests := []struct {
		name, file, want string
	}{
		{"xdg-user-dirs-update output", "# This file is written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n", "/home/ada/Docs"},
		{"braced HOME", `XDG_DOCUMENTS_DIR="${HOME}/Papers"`, "/home/ada/Papers"},
		{"absolute", `XDG_DOCUMENTS_DIR="/data/docs/"`, "/data/docs"},
		{"space in the folder", `XDG_DOCUMENTS_DIR="$HOME/My Documents"`, "/home/ada/My Documents"},
		{"escaped quote", `XDG_DOCUMENTS_DIR="$HOME/a\"b"`, `/home/ada/a"b`},
		{"HOME alone (the folder disabled)", `XDG_DOCUMENTS_DIR="$HOME"`, "/home/ada"},
		{"unquoted", `XDG_DOCUMENTS_DIR=$HOME/Unquoted`, "/home/ada/Unquoted"},
		{"surrounding space", "   XDG_DOCUMENTS_DIR=\"$HOME/Spaced\"   ", "/home/ada/Spaced"},
		{"the last one wins", "XDG_DOCUMENTS_DIR=\"$HOME/A\"\nXDG_DOCUMENTS_DIR=\"$HOME/B\"", "/home/ada/B"},
		{"commented out", `# XDG_DOCUMENTS_DIR="$HOME/Commented"`, ""},
		{"relative is invalid", `XDG_DOCUMENTS_DIR="Documents"`, ""},
		{"another variable", `XDG_DOWNLOAD_DIR="$HOME/Downloads"`, ""},
		{"a prefix of the name", `XDG_DOCUMENTS_DIRX="$HOME/X"`, ""},
		{"empty file", "", ""},
		{"garbage", "\x00\xff not a file\n=\n==", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseUserDirs(strings.NewReader(tt.file), home); got != tt.want {
				t.Errorf("parseUserDirs = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRootFrom resolves the projects root over real user-dirs.dirs files.
func TestRootFrom(t *testing.T) {
	home := t.TempDir()
	config := filepath.Join(home, ".config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "user-dirs.dirs"), []byte("XDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	otherConfig := t.TempDir()
	if err := os.WriteFile(filepath.Join(otherConfig, "user-dirs.dirs"), []byte("XDG_DOCUMENTS_DIR=\"/srv/papers\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bareHome := t.TempDir() // no user-dirs.dirs
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		invalid bool
	}{
		{"override", map[string]string{"MEITH_PROJECTS_DIR": "/work/projects/", "HOME": home, "XDG_DOCUMENTS_DIR": "/x"}, "/work/projects", false},
		{"relative override", map[string]string{"MEITH_PROJECTS_DIR": "projects", "HOME": home}, "", true},
		{"documents from env", map[string]string{"HOME": home, "XDG_DOCUMENTS_DIR": "/mnt/docs"}, "/mnt/docs/meith", false},
		{"relative env ignored", map[string]string{"HOME": home, "XDG_DOCUMENTS_DIR": "docs"}, filepath.Join(home, "Docs", "meith"), false},
		{"user-dirs.dirs with $HOME", map[string]string{"HOME": home}, filepath.Join(home, "Docs", "meith"), false},
		{"XDG_CONFIG_HOME", map[string]string{"HOME": home, "XDG_CONFIG_HOME": otherConfig}, "/srv/papers/meith", false},
		{"no user-dirs.dirs", map[string]string{"HOME": bareHome}, filepath.Join(bareHome, "Documents", "meith"), false},
		{"no HOME", map[string]string{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rootFrom(func(k string) string { return tt.env[k] })
			if tt.want == "" {
				if err == nil {
					t.Fatalf("rootFrom = %q, want an error", got)
				}
				if IsInvalid(err) != tt.invalid {
					t.Errorf("IsInvalid(%v) = %v, want %v", err, IsInvalid(err), tt.invalid)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("rootFrom = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestRoot reads the real environment: HOME with a user-dirs.dirs that says
// "$HOME/Docs".
func TestRoot(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "user-dirs.dirs"), []byte("XDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("MEITH_PROJECTS_DIR", "")
	t.Setenv("XDG_DOCUMENTS_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	got, err := Root()
	if want := filepath.Join(home, "Docs", "meith"); err != nil || got != want {
		t.Fatalf("Root() = %q, %v; want %q", got, err, want)
	}
	t.Setenv("MEITH_PROJECTS_DIR", filepath.Join(home, "elsewhere"))
	if got, err := Root(); err != nil || got != filepath.Join(home, "elsewhere") {
		t.Fatalf("Root() with MEITH_PROJECTS_DIR = %q, %v", got, err)
	}
}
