package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeCLI writes an executable shell script named name into dir.
func fakeCLI(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDetectIdentities(t *testing.T) {
	isolateConfig(t, "[user]\n\tname = Global Person\n\temail = global@example.com\n")
	bin := t.TempDir()
	argsLog := filepath.Join(bin, "args.log")
	// gh 2.40+ writes to stdout, with colours, two accounts on github.com
	// and one on an enterprise host, and exits 1 for the failing one.
	fakeCLI(t, bin, "gh", `echo "gh $*" >> `+argsLog+`
printf 'github.com\n  \033[32m✓\033[0m Logged in to github.com account octocat (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: gho_************************************\n\n'
printf '  ✓ Logged in to github.com account hubot (keyring)\n  - Active account: false\n\n'
printf 'ghe.corp.example\n  X Failed to log in to ghe.corp.example account broken (default)\n' >&2
printf '  ✓ Logged in to ghe.corp.example account worker (GH_ENTERPRISE_TOKEN)\n'
exit 1
`)
	// glab writes the older "as <user>" form to stderr.
	fakeCLI(t, bin, "glab", `echo "glab $*" >> `+argsLog+`
printf 'gitlab.com\n  ✓ Logged in to gitlab.com as tanuki (/home/u/.config/glab-cli/config.yml)\n  ✓ Git operations for gitlab.com configured to use ssh protocol.\n  ✓ Token: **************************\n' >&2
`)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	dir := newRepo(t)
	git(t, dir, "config", "user.email", "repo@example.com")
	got, err := DetectIdentities(testCtx(t), filepath.Join(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got.Root != dir {
		t.Errorf("root = %q, want %q", got.Root, dir)
	}
	var summary []string
	for _, s := range got.Suggestions {
		summary = append(summary, s.Source+"|"+s.Name+"|"+s.Email+"|"+s.Username+"|"+s.Host)
		if strings.Contains(s.Detail, "gho_") || strings.Contains(s.Detail, "Token") {
			t.Errorf("a token line leaked into %+v", s)
		}
	}
	want := []string{
		"repo|Global Person|repo@example.com||",
		"global|Global Person|global@example.com||",
		"github-cli|Global Person|octocat@users.noreply.github.com|octocat|github.com",
		"github-cli|Global Person|hubot@users.noreply.github.com|hubot|github.com",
		"github-cli|Global Person|worker@users.noreply.ghe.corp.example|worker|ghe.corp.example",
		"gitlab-cli|Global Person|tanuki@users.noreply.gitlab.com|tanuki|gitlab.com",
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("suggestions =\n%s\nwant\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	if b, _ := os.ReadFile(argsLog); string(b) != "gh auth status\nglab auth status\n" && string(b) != "glab auth status\ngh auth status\n" {
		t.Errorf("the CLIs were called with %q", b)
	}

	// Outside a repository, with the same identity in repo and global config
	// (deduplicated) and no CLIs.
	t.Setenv("PATH", t.TempDir())
	got, err = DetectIdentities(testCtx(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got.Root != "" || len(got.Suggestions) != 1 || got.Suggestions[0].Source != "global" {
		t.Errorf("outside a repo: %+v", got)
	}
	git(t, dir, "config", "user.email", "global@example.com")
	got, _ = DetectIdentities(testCtx(t), dir)
	if len(got.Suggestions) != 1 || got.Suggestions[0].Source != "repo" {
		t.Errorf("duplicate repo/global identity: %+v", got.Suggestions)
	}
}

func TestDetectIdentitiesTimeout(t *testing.T) {
	isolateConfig(t, "")
	bin := t.TempDir()
	fakeCLI(t, bin, "gh", "sleep 5\necho '  ✓ Logged in to github.com account late (keyring)'\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	old := providerTimeout
	providerTimeout = 200 * time.Millisecond
	defer func() { providerTimeout = old }()
	start := time.Now()
	got, err := DetectIdentities(testCtx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Suggestions) != 0 {
		t.Errorf("a timed-out CLI produced %+v", got.Suggestions)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("DetectIdentities waited %v for a hanging CLI", d)
	}
}
