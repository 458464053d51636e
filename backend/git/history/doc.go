// Package history implements meith's history and branch git tools on
// go-git: log, blame, branches (list, create, switch), worktrees (list,
// create, remove), commit from the index, and identity detection.
//
// Files a switch or a new worktree writes get the line endings git
// writes (status.Converter, with the attributes of the index being
// written), and local changes are found by comparing files as git add
// would store them; clean/smudge filters, ident and working-tree-encoding
// are not applied (Switch and CreateWorktree list the files concerned).
//
// No git executable is ever run; the only external program is a provider
// CLI (gh or glab) asked for its login state by DetectIdentities.
package history
