package status

import (
	"github.com/meith-dev/meith/backend/git/repo"
)

// IgnoreRules are a repository's ignore rules in the form a top-down walk
// of its worktree uses them (backend/files/find lists and searches
// workspaces with them): the rules that apply everywhere
// (.git/info/exclude, core.excludesFile) and, per directory, the chain of
// .gitignore files read on the way down ([IgnoreFrame]). A walker that
// never enters an ignored directory asks [IgnoreRules.Ignored] once per
// entry, as status's own walk does. It is safe for concurrent use.
type IgnoreRules struct {
	root  string
	rules *ignoreRules
}

// IgnoreFrame is the chain of .gitignore files in effect in one directory
// of a walk. The zero IgnoreFrame holds none (the root before its own
// .gitignore is read). Frames are immutable: goroutines share them freely.
type IgnoreFrame struct{ stack *ignoreStack }

// LoadIgnoreRules reads the ignore rules of r that apply everywhere:
// .git/info/exclude and core.excludesFile (or git's default
// $XDG_CONFIG_HOME/git/ignore), through repo's bounded reader. Missing or
// unreadable files contribute nothing, as with git.
func LoadIgnoreRules(r *repo.Repo) *IgnoreRules {
	s := newSettings(loadConfig(r))
	return &IgnoreRules{root: r.Root, rules: loadIgnoreRules(r, s)}
}

// Enter returns the frame of dir ("" for the worktree root, else "a/b/"):
// parent plus dir's .gitignore when it is a regular file (read without
// following a symbolic link, at most repo.MaxTextFileBytes, as git does).
// A walker calls it only for a directory whose listing has a .gitignore.
func (ir *IgnoreRules) Enter(parent IgnoreFrame, dir string) IgnoreFrame {
	if pats := readGitignore(ir.root, dir); pats != nil {
		return IgnoreFrame{stack: &ignoreStack{parent: parent.stack, pats: pats}}
	}
	return parent
}

// Ignored reports whether the repository-relative path p (slash form;
// isDir says whether it names a directory), whose parent directories are
// known not to be ignored, is ignored in frame f (the frame of its parent
// directory): the deepest .gitignore with a matching pattern decides, then
// info/exclude, then core.excludesFile. As with [IgnoreMatcher.IsIgnored],
// tracked files are not special here.
func (ir *IgnoreRules) Ignored(f IgnoreFrame, p string, isDir bool) bool {
	return ir.rules.ignored(f.stack, p, isDir)
}
