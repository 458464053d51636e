package gittools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/protocol"
)

// filterWarning returns the diagnostic about filters not applied, if any.
func filterWarning(res protocol.ToolResult) string {
	for _, d := range res.Diagnostics {
		if d.Level == "warn" && strings.Contains(d.Message, "filter") {
			return d.Message
		}
	}
	return ""
}

// TestStageAndRestoreSayFiltersAreNotApplied: meith never runs clean or
// smudge filters (git-lfs), so git_stage stores the raw content and
// git_restore writes the stored one. The result says so for the files
// whose filter attribute (the oracle: git check-attr) names a driver git
// would run (filter.<name>.clean, .smudge or .process set).
func TestStageAndRestoreSayFiltersAreNotApplied(t *testing.T) {
	gittest.Isolate(t)
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n*.dat filter=unconfigured\n")
	git(t, dir, "config", "filter.lfs.clean", "git-lfs clean -- %f")
	git(t, dir, "config", "filter.lfs.smudge", "git-lfs smudge -- %f")
	write(t, dir, "big.bin", "raw binary\n")
	write(t, dir, "assets/deep.bin", "raw too\n")
	write(t, dir, "table.dat", "no driver\n")
	write(t, dir, "a.txt", "plain change\n")

	tests := []struct {
		tool  string
		paths []string
		// names are the files the warning must name; none: no warning.
		names []string
	}{
		{"git_stage", []string{"a.txt"}, nil},
		{"git_stage", []string{"table.dat"}, nil},
		{"git_stage", []string{"big.bin", "a.txt"}, []string{"big.bin"}},
		{"git_stage", []string{"assets"}, []string{"assets/deep.bin"}},
		{"git_restore", []string{"big.bin"}, []string{"big.bin"}},
		{"git_restore", []string{"a.txt"}, nil},
	}
	for _, tt := range tests {
		// The oracle: git's filter attribute of every file in the call,
		// and whether its driver is configured.
		var want []string
		for _, p := range tt.paths {
			out := git(t, dir, "ls-files", "-co", "--exclude-standard", "--", p)
			for _, f := range strings.Fields(out) {
				attr := git(t, dir, "check-attr", "filter", "--", f)
				name := strings.TrimSpace(attr[strings.LastIndex(attr, ":")+1:])
				if _, _, err := gittest.Run(dir, nil, nil, "config", "--get-regexp", `^filter\.`+name+`\.(clean|smudge|process)$`); err == nil {
					want = append(want, f)
				}
			}
		}
		if strings.Join(want, ",") != strings.Join(tt.names, ",") {
			t.Fatalf("%s %v: the test expects warnings for %v, git's attributes say %v", tt.tool, tt.paths, tt.names, want)
		}
		args := map[string]any{"paths": tt.paths}
		if tt.tool == "git_restore" {
			args["confirm"] = true
			args["target"] = "both"
		}
		res := e.call(dir, tt.tool, args, nil)
		if !res.OK {
			t.Fatalf("%s %v = %+v", tt.tool, tt.paths, res.Error)
		}
		msg := filterWarning(res)
		t.Logf("%s %v: %s", tt.tool, tt.paths, msg)
		if (msg != "") != (len(tt.names) > 0) {
			t.Errorf("%s %v: filter warning %q, want one naming %v", tt.tool, tt.paths, msg, tt.names)
		}
		for _, n := range tt.names {
			if !strings.Contains(msg, n) {
				t.Errorf("%s %v: warning %q does not name %s", tt.tool, tt.paths, msg, n)
			}
		}
	}
	// The raw content was staged (git would have run git-lfs clean).
	if got := git(t, dir, "cat-file", "blob", ":"+filepath.ToSlash("assets/deep.bin")); got != "raw too\n" {
		t.Errorf("staged assets/deep.bin = %q", got)
	}
}

// TestUnsupportedConversionsAreReported: meith applies git's line-ending
// conversion but no clean/smudge filter (git-lfs), ident or
// working-tree-encoding. Every tool whose result depends on one says so
// in a warning that names the files and the attribute: git_status and
// git_diff for changed files, git_branch switch, git_worktree create and
// git_checkpoint_restore for the files they wrote.
func TestUnsupportedConversionsAreReported(t *testing.T) {
	gittest.Isolate(t)
	e := newEnv(t)
	dir := newRepo(t)
	write(t, dir, ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n*.id ident\n*.l1 working-tree-encoding=ISO-8859-1\n")
	write(t, dir, "big.bin", "raw binary\n")
	write(t, dir, "rev.id", "$Id$\n")
	write(t, dir, "latin.l1", "text\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "attributes")
	git(t, dir, "checkout", "-q", "-b", "other")
	write(t, dir, "big.bin", "raw binary on other\n")
	write(t, dir, "rev.id", "$Id$ other\n")
	write(t, dir, "latin.l1", "text on other\n")
	git(t, dir, "commit", "-q", "-am", "other")
	git(t, dir, "checkout", "-q", "main")
	// The driver is configured only now: git ran no filter above.
	git(t, dir, "config", "filter.lfs.process", "git-lfs filter-process")

	warning := func(tool string, args map[string]any) string {
		t.Helper()
		res := e.call(dir, tool, args, nil)
		if !res.OK {
			t.Fatalf("%s = %+v", tool, res.Error)
		}
		msg := filterWarning(res)
		t.Logf("%s: %s", tool, msg)
		return msg
	}
	all := []string{"big.bin (filter=lfs)", "rev.id (ident)", "latin.l1 (working-tree-encoding=ISO-8859-1)"}
	expect := func(tool, msg string, names []string) {
		t.Helper()
		for _, n := range names {
			if !strings.Contains(msg, n) {
				t.Errorf("%s: warning %q does not name %s", tool, msg, n)
			}
		}
	}

	// git expanded $Id$ when it checked rev.id out (meith compares the
	// file as it is: modified, where git sees it unchanged).
	if msg := warning("git_status", nil); !strings.Contains(msg, "rev.id (ident)") || strings.Contains(msg, "big.bin") {
		t.Errorf("git_status after git's checkout: warning %q, want one naming rev.id only", msg)
	}
	e = newEnv(t) // a fresh status engine: no watcher to wait for
	write(t, dir, "big.bin", "changed\n")
	write(t, dir, "rev.id", "$Id$ changed\n")
	write(t, dir, "latin.l1", "changed\n")
	write(t, dir, "a.txt", "plain change\n")
	for _, tool := range []string{"git_status", "git_diff"} {
		msg := warning(tool, nil)
		expect(tool, msg, all)
		if strings.Contains(msg, "a.txt") {
			t.Errorf("%s names a.txt: %q", tool, msg)
		}
	}

	var cp struct{ ID string }
	e.ok(dir, "git_checkpoint_create", nil, &cp)
	noLFS := []string{"-c", "filter.lfs.process="} // git-lfs is not installed
	git(t, dir, append(noLFS, "checkout", "--", ".")...)
	expect("git_checkpoint_restore", warning("git_checkpoint_restore", map[string]any{"id": cp.ID, "confirm": true}), all)
	git(t, dir, append(noLFS, "checkout", "--", ".")...)
	// git's checkout expanded $Id$, which meith would see as a local change
	// in the way of the switch: put the stored content back, and its stat
	// data in the index.
	write(t, dir, "rev.id", git(t, dir, "cat-file", "blob", ":rev.id"))
	git(t, dir, append(noLFS, "add", "rev.id")...)

	expect("git_branch", warning("git_branch", map[string]any{"action": "switch", "name": "other"}), all)
	if got, _ := os.ReadFile(filepath.Join(dir, "big.bin")); string(got) != "raw binary on other\n" {
		t.Errorf("big.bin after the switch = %q", got)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	expect("git_worktree", warning("git_worktree", map[string]any{"action": "create", "path": wt, "branch": "main"}), all)
}
