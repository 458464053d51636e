// Package checkpoint snapshots a repository's worktree and index as hidden
// git commits and brings them back, for the git_checkpoint_* tools: an
// agent run can be undone without touching the user's branch.
//
// A checkpoint is two commits made with go-git's object store, never with
// the git executable: I, whose tree is the index (merged entries), and W,
// whose tree is every tracked file present in the worktree and every
// untracked file that is not ignored, with HEAD and I as parents. The ref
// refs/meith/checkpoints/<id> points at W in the common git directory
// (linked worktrees share it), and <common dir>/meith/checkpoints.json
// lists the checkpoints' metadata, newest first.
//
// Create changes nothing the user sees: not the index, not a file, not HEAD
// or a branch. Restore first takes a checkpoint of the current state, then
// makes the worktree equal to W and the index equal to I; HEAD stays. Ignored
// files and the .git directory are never touched.
//
// W holds files as git add (and git stash) would store them: line endings
// converted by core.autocrlf and the text/eol attributes; Restore writes
// them back with the line endings git would write (status.Converter, with
// the checkpoint's own .gitattributes files). Clean/smudge filters, ident
// and working-tree-encoding are not applied (Restored lists the files
// concerned).
//
// A checkpoint keeps only merged index entries, never conflict stages or
// the state of a merge, rebase, cherry-pick, revert or am. So Create and
// Restore refuse with an *InProgressError while one of those is in
// progress (its marker, such as MERGE_HEAD, is in the git directory) or
// the index has unmerged paths: restoring such a checkpoint would silently
// lose the operation's state (see docs/decisions/2026-12-02-git-line-endings-and-mid-merge-checkpoints.md).
package checkpoint
