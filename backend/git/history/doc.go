// Package history implements meith's history and branch git tools on
// go-git: log, blame, branches (list, create, switch), worktrees (list,
// create, remove), commit from the index, and identity detection.
//
// No git executable is ever run; the only external program is a provider
// CLI (gh or glab) asked for its login state by DetectIdentities.
package history
