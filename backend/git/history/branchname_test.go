package history

import (
	"testing"
)

// TestValidateBranchNameMatchesGit checks ValidateBranchName against
// `git check-ref-format --branch` for a table of names.
func TestValidateBranchNameMatchesGit(t *testing.T) {
	dir := newRepo(t)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"main", true},
		{"feature/x", true},
		{"feature/x/y-z_1", true},
		{"v1.2", true},
		{"ünïcode", true},
		{"a@b", true},
		{"a{b}", true},
		{"a.lockx", true},
		{"", false},
		{"-x", false},
		{"--force", false},
		{"HEAD", false},
		{"@", true},
		{"a..b", false},
		{"a b", false},
		{"a~1", false},
		{"a^", false},
		{"a:b", false},
		{"a?", false},
		{"a*", false},
		{"a[b", false},
		{`a\b`, false},
		{"a.lock", false},
		{"x/a.lock/y", false},
		{"a@{1}", false},
		{"a/", false},
		{"/a", false},
		{"a//b", false},
		{"a.", false},
		{".a", false},
		{"x/.a", false},
		{"a\tb", false},
		{"a\x7fb", false},
	} {
		err := ValidateBranchName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateBranchName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !IsInvalidBranchName(err) {
			t.Errorf("ValidateBranchName(%q) = %T, want *InvalidBranchNameError", tc.name, err)
		}
		if tc.name == "" {
			continue // git check-ref-format --branch "" has its own message
		}
		_, gitErr := gitE(dir, nil, "check-ref-format", "--branch", tc.name)
		if (gitErr == nil) != tc.ok {
			t.Errorf("git check-ref-format --branch %q = %v, table says ok=%v", tc.name, gitErr, tc.ok)
		}
	}
}
