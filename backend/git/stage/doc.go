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
// Content goes through git's end-of-line conversion (status.Converter):
// staged as git add stores it, written back as git checkout writes it,
// and a patch applied to worktree files as git apply does (CRLF lines
// cleaned first unless the patch has them, the result written with the
// file's line endings). Clean/smudge filters (git-lfs), ident and
// working-tree-encoding are not applied; the git tools warn about the
// files concerned.
package stage
