// Package stage changes the index and the worktree the way the git tools'
// stage, unstage and restore actions need: whole paths (`git add`, `git
// restore --staged`, `git checkout --`) and hunk patches (`git apply
// --cached [--reverse]`, `git apply --reverse`), all in Go on go-git's
// object store and the index plumbing of package repo. No git executable
// runs, so no hook or filter of the repository can run either.
//
// Every operation takes index.lock (git's protocol) for the whole change
// and writes the index once, with fresh stat data for the entries whose
// worktree file it has verified, so a following status need not read
// those files again. Patch operations apply every file in memory first
// and change nothing when one file does not apply.
//
// Content is stored as it is in the worktree: clean filters and
// end-of-line conversion (core.autocrlf, the text attribute) are not
// applied.
package stage
