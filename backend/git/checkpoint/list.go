package checkpoint

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// List returns the checkpoints of r's worktree root, newest first. Entries
// whose ref no longer resolves to a stored commit (deleted, or garbage
// collected) are pruned from checkpoints.json.
func List(ctx context.Context, r *repo.Repo) ([]Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer lockRepo(r)()
	list, err := readMetadata(r)
	if err != nil {
		return nil, err
	}
	valid := func(cp Checkpoint) bool {
		_, ok := checkpointCommit(r, cp)
		return ok
	}
	stale := false
	for _, cp := range list {
		if !valid(cp) {
			stale = true
			break
		}
	}
	if stale {
		var kept []Checkpoint
		err := updateMetadata(r, func(cur []Checkpoint) ([]Checkpoint, bool) {
			kept = kept[:0]
			for _, cp := range cur {
				if valid(cp) {
					kept = append(kept, cp)
				}
			}
			return kept, len(kept) != len(cur)
		})
		if err != nil {
			return nil, fmt.Errorf("checkpoint list: %w", err)
		}
		list = kept
	}
	out := []Checkpoint{}
	for _, cp := range list {
		if cp.Root == r.Root {
			out = append(out, cp)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
	return out, nil
}

// checkpointCommit resolves a checkpoint's ref to its stored commit.
func checkpointCommit(r *repo.Repo, cp Checkpoint) (plumbing.Hash, bool) {
	if !idPattern.MatchString(cp.ID) || cp.Ref != refPrefix+cp.ID {
		return plumbing.ZeroHash, false
	}
	h, ok, err := resolveRef(r, cp.Ref)
	if err != nil || !ok {
		return plumbing.ZeroHash, false
	}
	if _, err := r.Git.Storer.EncodedObject(plumbing.CommitObject, h); err != nil {
		return plumbing.ZeroHash, false
	}
	return h, true
}
