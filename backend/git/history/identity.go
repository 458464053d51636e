package history

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// IdentitySuggestion is one proposed commit identity.
type IdentitySuggestion struct {
	// Source is "repo", "global", "github-cli" or "gitlab-cli".
	Source   string `json:"source"`
	Label    string `json:"label"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Username string `json:"username,omitempty"`
	Host     string `json:"host,omitempty"`
	Detail   string `json:"detail"`
}

// IdentityDetection is what DetectIdentities returns.
type IdentityDetection struct {
	// Root is the repository root containing cwd, or "" outside a
	// repository.
	Root        string               `json:"root"`
	Suggestions []IdentitySuggestion `json:"suggestions"`
}

// providerTimeout bounds each provider CLI call.
var providerTimeout = 3 * time.Second

// DetectIdentities proposes commit identities from the effective config of
// the repository containing cwd (when there is one), the global git
// config, and the accounts the GitHub and GitLab CLIs are logged in to
// (`gh auth status`, `glab auth status`, run only when found on PATH, with
// a 3-second timeout and no token flags; their accounts get the provider's
// noreply address). Suggestions are deduplicated by name and email.
//
// No credential helper, token or key is ever read: only user.name and
// user.email from config, and the account lines of the CLIs' status
// output.
func DetectIdentities(ctx context.Context, cwd string) (*IdentityDetection, error) {
	out := &IdentityDetection{Suggestions: []IdentitySuggestion{}}
	var r *repo.Repo
	if cwd != "" {
		opened, err := repo.Open(ctx, cwd)
		if err == nil {
			r = opened
			out.Root = r.Root
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}

	// The CLIs run in the background while config is read.
	var wg sync.WaitGroup
	var gh, glab []cliAccount
	wg.Add(2)
	go func() { defer wg.Done(); gh = providerAccounts(ctx, "gh") }()
	go func() { defer wg.Done(); glab = providerAccounts(ctx, "glab") }()

	add := func(s IdentitySuggestion) {
		for _, have := range out.Suggestions {
			if have.Name == s.Name && strings.EqualFold(have.Email, s.Email) {
				return
			}
		}
		out.Suggestions = append(out.Suggestions, s)
	}
	var globalName string
	if r != nil {
		// The identity in effect in the repository, offered when the
		// repository's own config sets part of it (else it is the global one).
		if cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo); err == nil {
			name, nameFile, _ := cfg.getFile("user", "", "name")
			email, emailFile, _ := cfg.getFile("user", "", "email")
			inRepo := func(f string) bool {
				return strings.HasPrefix(f, r.CommonDir+string(os.PathSeparator)) || strings.HasPrefix(f, r.GitDir+string(os.PathSeparator))
			}
			if name != "" && email != "" && (inRepo(nameFile) || inRepo(emailFile)) {
				add(IdentitySuggestion{Source: "repo", Label: "This repository's git config", Name: name, Email: email,
					Detail: "user.name from " + nameFile + ", user.email from " + emailFile})
			}
		}
	}
	if cfg, err := loadConfig(nil, scopeGlobal); err == nil {
		name, nameFile, _ := cfg.getFile("user", "", "name")
		email, _ := cfg.get("user", "", "email")
		globalName = name
		if name != "" && email != "" {
			add(IdentitySuggestion{Source: "global", Label: "Global git config", Name: name, Email: email,
				Detail: "user.name and user.email from " + nameFile})
		}
	}
	wg.Wait()
	for _, p := range []struct {
		source, label, domain string
		accounts              []cliAccount
	}{
		{"github-cli", "GitHub", "github.com", gh},
		{"gitlab-cli", "GitLab", "gitlab.com", glab},
	} {
		for _, a := range p.accounts {
			name := globalName
			if name == "" {
				name = a.user
			}
			domain := p.domain
			if a.host != p.domain {
				domain = a.host
			}
			add(IdentitySuggestion{
				Source: p.source, Label: p.label + " account " + a.user + " (" + a.host + ")",
				Name: name, Email: a.user + "@users.noreply." + domain,
				Username: a.user, Host: a.host,
				Detail: a.line,
			})
		}
	}
	return out, nil
}

// cliAccount is one logged-in account from a provider CLI.
type cliAccount struct {
	host, user string
	line       string // the status line it came from, for the detail
}

var (
	ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)
	// "Logged in to github.com account octocat (keyring)" (gh 2.40+) and
	// "Logged in to github.com as octocat (/home/u/.config/gh/hosts.yml)"
	// (older gh, glab).
	loggedIn = regexp.MustCompile(`Logged in to (\S+) (?:account|as) ([A-Za-z0-9][A-Za-z0-9._-]*)`)
)

// providerAccounts runs "<cli> auth status" when the CLI is on PATH and
// returns the accounts it reports; any failure just means none.
func providerAccounts(ctx context.Context, cli string) []cliAccount {
	path, err := exec.LookPath(cli)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "auth", "status")
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "CLICOLOR=0", "GH_PROMPT_DISABLED=1",
		"GH_NO_UPDATE_NOTIFIER=1", "GLAB_NO_PROMPT=1", "GLAB_CHECK_UPDATE=false")
	cmd.Stdin = nil
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	cmd.WaitDelay = time.Second
	_ = cmd.Run() // gh exits 1 when any host has a problem; the output still counts
	if ctx.Err() != nil {
		return nil
	}
	return parseAuthStatus(buf.String())
}

// parseAuthStatus extracts the accounts from `gh auth status` or `glab
// auth status` output. Token lines are never looked at.
func parseAuthStatus(out string) []cliAccount {
	var accounts []cliAccount
	seen := map[string]bool{}
	for _, line := range strings.Split(ansiEscape.ReplaceAllString(out, ""), "\n") {
		m := loggedIn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		host := strings.ToLower(strings.TrimSuffix(m[1], ":"))
		key := host + "\x00" + m[2]
		if seen[key] {
			continue
		}
		seen[key] = true
		detail := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "✓-*"))
		accounts = append(accounts, cliAccount{host: host, user: m[2], line: detail})
	}
	return accounts
}
