package gittools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// TestCommitSaysItIsUnsignedWhenSigningIsConfigured is the attack's G3
// second half: commit.gpgSign was silently ignored. meith never runs gpg,
// so the commit stays unsigned, but the result says so whenever git (the
// oracle: git config --type=bool) reads commit.gpgSign as true.
func TestCommitSaysItIsUnsignedWhenSigningIsConfigured(t *testing.T) {
	tests := []struct {
		name, config string
	}{
		{"unset", ""},
		{"true", "[commit]\n\tgpgSign = true\n"},
		{"yes", "[commit]\n\tgpgsign = yes\n"},
		{"bare key", "[commit]\n\tgpgsign\n"},
		{"number", "[commit]\n\tgpgsign = 2\n"},
		{"false", "[commit]\n\tgpgsign = false\n"},
		{"true then off", "[commit]\n\tgpgsign = true\n[commit]\n\tgpgsign = off\n"},
		{"in an included file", "[include]\n\tpath = signing.inc\n"},
		{"tags only", "[tag]\n\tgpgSign = true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gittest.Isolate(t) // meith and the oracle read the same (no) global config
			e := newEnv(t)
			dir := newRepo(t)
			gitDir := filepath.Join(dir, ".git")
			if err := os.WriteFile(filepath.Join(gitDir, "signing.inc"), []byte("[commit]\n\tgpgsign = on\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			appendFile(t, filepath.Join(gitDir, "config"), tt.config)
			out, _, err := gittest.Run(dir, nil, nil, "config", "--type=bool", "--get", "commit.gpgsign")
			gitSigns := err == nil && strings.TrimSpace(out) == "true"

			write(t, dir, "a.txt", "changed\n")
			git(t, dir, "add", "a.txt")
			res := e.call(dir, "git_commit", map[string]any{"message": "m"}, nil)
			if !res.OK {
				t.Fatalf("git_commit = %+v", res.Error)
			}
			warned := false
			for _, d := range res.Diagnostics {
				if d.Level == "warn" && strings.Contains(d.Message, "commit.gpgsign") && strings.Contains(d.Message, "unsigned") {
					warned = true
				}
			}
			if warned != gitSigns {
				t.Errorf("git reads commit.gpgsign as %v, git_commit warned %v (diagnostics %+v)", gitSigns, warned, res.Diagnostics)
			}
			if raw := git(t, dir, "cat-file", "commit", "HEAD"); strings.Contains(raw, "gpgsig") {
				t.Errorf("the commit is signed:\n%s", raw)
			}
		})
	}
}
