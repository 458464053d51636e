package detect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// write creates the files of a folder: name → content; a name ending in "/"
// is a folder.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// detectBounded runs SetupDetect in a goroutine and fails the test if it has
// not returned after a generous deadline (a blocking open of a FIFO would
// hang forever).
func detectBounded(t *testing.T, dir string) SetupDetection {
	t.Helper()
	type result struct {
		s   SetupDetection
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := SetupDetect(dir)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("SetupDetect(%s) error %v", filepath.Base(dir), r.err)
		}
		return r.s
	case <-time.After(30 * time.Second):
		t.Fatalf("SetupDetect(%s) did not return: it blocked", filepath.Base(dir))
	}
	return SetupDetection{}
}

func TestSetupDetectHostileFolders(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  SetupDetection
	}{
		{"big-package-json", func(t *testing.T, dir string) {
			// 5 MB of valid JSON: a reader without a bound would take its name.
			write(t, dir, map[string]string{
				"package.json": `{"name": "big", "description": "` + strings.Repeat("x", 5<<20) + `"}`,
			})
		}, SetupDetection{
			Detection: Detection{
				Name: "big-package-json", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + npm",
				PackageManager: "npm", HasPackageJSON: true, LikelyPort: port(3000),
			},
			SetupNotes: []string{"package.json is larger than 1 MiB and was not read"},
		}},
		{"fifos", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"go.mod": "module example.com/fifos\n"})
			for _, name := range []string{"package.json", "main.go", "cmd", ".env", "Makefile", "pnpm-workspace.yaml"} {
				mkfifo(t, filepath.Join(dir, name))
			}
		}, SetupDetection{
			Detection: Detection{Name: "fifos", Stacks: []string{"go", "make"}, Framework: "go", Label: "Go"},
			SetupNotes: []string{
				"package.json is not a regular file and was not read",
				"Makefile is not a regular file and was not read",
			},
		}},
		{"package-json-folder", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"package.json/": ""})
		}, SetupDetection{
			Detection: Detection{Name: "package-json-folder", Framework: "unknown", Label: "Folder"},
			SetupNotes: []string{
				"package.json is not a regular file and was not read",
				"No known project files found (package.json, go.mod, pyproject.toml, Cargo.toml, Gemfile, Makefile, Procfile, compose.yaml)",
			},
		}},
		{"links-out", func(t *testing.T, dir string) {
			outside := filepath.Join(filepath.Dir(dir), "outside")
			write(t, outside, map[string]string{
				"package.json":       `{"name": "outside-secret", "scripts": {"dev": "vite"}, "dependencies": {"vite": "5"}}`,
				"go.mod":             "module example.com/outside\n",
				"cmd/server/main.go": "package main\n",
				".env":               "TOKEN=secret\n",
				"Gemfile":            "gem 'rails'\n",
			})
			symlink(t, "../outside/package.json", filepath.Join(dir, "package.json"))
			symlink(t, filepath.Join(outside, "go.mod"), filepath.Join(dir, "go.mod"))
			symlink(t, "../outside/.env", filepath.Join(dir, ".env"))
			symlink(t, "../outside/Gemfile", filepath.Join(dir, "Gemfile"))
			write(t, dir, map[string]string{"Cargo.toml": "[package]\nname = \"inside\"\n", "src/": ""})
			symlink(t, "../../outside/cmd", filepath.Join(dir, "src", "cmd"))
		}, SetupDetection{
			Detection: Detection{
				Name: "inside", Stacks: []string{"rust"}, Framework: "rust", Label: "Rust (cargo)",
				Commands: []RunCommand{task("cargo-run", "cargo run", "cargo run")},
			},
			SetupNotes: []string{
				"package.json could not be read (a link out of the folder or no permission)",
				"go.mod could not be read (a link out of the folder or no permission)",
				"Gemfile could not be read (a link out of the folder or no permission)",
			},
		}},
		{"links-inside", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{
				"config/package.json": `{"name": "linked", "scripts": {"dev": "vite"}, "devDependencies": {"vite": "5"}}`,
				"config/.env":         "",
				"node_modules/":       "",
				"config/bun.lock":     "",
			})
			symlink(t, "config/package.json", filepath.Join(dir, "package.json"))
			symlink(t, "config/.env", filepath.Join(dir, ".env"))
			symlink(t, "config/bun.lock", filepath.Join(dir, "bun.lock"))
		}, SetupDetection{
			Detection: Detection{
				Name: "linked", Stacks: []string{"node"}, Framework: "vite", Label: "Vite + bun",
				PackageManager: "bun", Lockfile: true, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "vite"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "bun run dev")},
				LikelyPort: port(5173),
			},
			EnvFiles: []string{".env"},
		}},
		{"ten-thousand-entries", func(t *testing.T, dir string) {
			files := map[string]string{
				"package.json":   `{"name": "crowded", "scripts": {"dev": "next dev -p 3005"}, "dependencies": {"next": "14"}}`,
				"pnpm-lock.yaml": "",
				"node_modules/":  "",
			}
			for i := range 10000 {
				files[fmt.Sprintf("f%05d.txt", i)] = ""
			}
			write(t, dir, files)
		}, SetupDetection{
			Detection: Detection{
				Name: "crowded", Stacks: []string{"node"}, Framework: "nextjs", Label: "Next.js + pnpm",
				PackageManager: "pnpm", Lockfile: true, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "next dev -p 3005"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "pnpm dev")},
				LikelyPort: port(3005),
			},
			SetupNotes: []string{"The folder has more than 2000 entries: only the first 2000 were looked at"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tt.name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			checkDetection(t, tt.name, detectBounded(t, dir), tt.want)
		})
	}
}

func TestSetupDetectFolderErrors(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "secret-token-file")
	write(t, base, map[string]string{"secret-token-file": "x"})
	tests := []struct {
		name        string
		dir         string
		notExist    bool
		notFolder   bool
		wantMessage string
	}{
		{"missing", filepath.Join(base, "secret-token-missing"), true, false, "detect: the folder does not exist"},
		{"file", file, false, true, "detect: the path is not a folder"},
		{"under a file", filepath.Join(file, "sub"), true, false, "detect: the folder does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SetupDetect(tt.dir)
			if err == nil {
				t.Fatalf("SetupDetect(%s) = nil error, want %q", tt.name, tt.wantMessage)
			}
			if IsNotExist(err) != tt.notExist || IsNotFolder(err) != tt.notFolder {
				t.Errorf("SetupDetect(%s): IsNotExist = %v, IsNotFolder = %v, want %v, %v",
					tt.name, IsNotExist(err), IsNotFolder(err), tt.notExist, tt.notFolder)
			}
			if err.Error() != tt.wantMessage {
				t.Errorf("SetupDetect(%s) error %q, want %q (never the path)", tt.name, err, tt.wantMessage)
			}
			if _, derr := Detect(tt.dir); derr == nil || derr.Error() != err.Error() {
				t.Errorf("Detect(%s) error %v, want %v", tt.name, derr, err)
			}
		})
	}
}

func TestSetupDetectBounds(t *testing.T) {
	t.Run("scripts", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"name": "many", "scripts": {"first": "` + strings.Repeat("é", 1500) + `"`)
		for i := range 249 {
			fmt.Fprintf(&b, `, "s%03d": "echo %d"`, i, i)
		}
		b.WriteString("}}")
		dir := t.TempDir()
		write(t, dir, map[string]string{"package.json": b.String()})
		got := detectBounded(t, dir)
		if len(got.Scripts) != maxScripts {
			t.Fatalf("SetupDetect(250 scripts): %d scripts, want %d", len(got.Scripts), maxScripts)
		}
		if n := utf8.RuneCountInString(got.Scripts[0].Command); n != maxScriptChars || !utf8.ValidString(got.Scripts[0].Command) {
			t.Errorf("SetupDetect(a 1,500-character script): command of %d characters (valid UTF-8: %v), want %d",
				n, utf8.ValidString(got.Scripts[0].Command), maxScriptChars)
		}
		if last := got.Scripts[len(got.Scripts)-1].Name; last != "s198" {
			t.Errorf("SetupDetect(250 scripts): last script %q, want s198 (file order)", last)
		}
	})
	t.Run("workspaces", func(t *testing.T) {
		dir := t.TempDir()
		files := map[string]string{"package.json": `{"workspaces": ["packages/*"]}`}
		for i := range 60 {
			files[fmt.Sprintf("packages/p%02d/package.json", i)] = fmt.Sprintf(`{"name": "p%02d"}`, i)
		}
		write(t, dir, files)
		got := detectBounded(t, dir)
		if len(got.Workspaces) != maxWorkspaces || got.Workspaces[maxWorkspaces-1].Name != "p49" {
			t.Errorf("SetupDetect(60 workspaces) = %d workspaces, want the first %d", len(got.Workspaces), maxWorkspaces)
		}
	})
	t.Run("total bytes", func(t *testing.T) {
		// 24 workspaces of 0.9 MiB each: the 16 MiB budget runs out, and the
		// later workspaces keep their folder's name.
		dir := t.TempDir()
		files := map[string]string{"package.json": `{"workspaces": ["w/*"]}`}
		pad := strings.Repeat(" ", 900<<10)
		for i := range 24 {
			files[fmt.Sprintf("w/d%02d/package.json", i)] = fmt.Sprintf(`{"name": "n%02d"%s}`, i, pad)
		}
		write(t, dir, files)
		got := detectBounded(t, dir)
		read := 0
		for i, w := range got.Workspaces {
			if w.Name == fmt.Sprintf("n%02d", i) {
				read++
			} else if w.Name != fmt.Sprintf("d%02d", i) {
				t.Errorf("workspace %d named %q", i, w.Name)
			}
		}
		if len(got.Workspaces) != 24 || read == 0 || read > maxTotalBytes/(900<<10) {
			t.Errorf("SetupDetect(24 workspaces of 0.9 MiB): %d workspaces, %d package.json read; want 24, at most %d read",
				len(got.Workspaces), read, maxTotalBytes/(900<<10))
		}
	})
}
