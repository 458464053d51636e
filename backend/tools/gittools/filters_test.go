package gittools_test

import (
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
