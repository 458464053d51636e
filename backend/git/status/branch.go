package status

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"strings"

	gitcfg "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// headInfo is what HEAD points at.
type headInfo struct {
	branch   string        // short branch name ("" when detached)
	detached bool          // HEAD holds a commit, not a branch
	commit   plumbing.Hash // ZeroHash on an unborn branch
	tree     plumbing.Hash // the commit's tree
}

// readHead resolves HEAD and reads the commit's tree.
func readHead(s storer.Storer) (headInfo, error) {
	var hi headInfo
	ref, err := s.Reference(plumbing.HEAD)
	if err != nil {
		return hi, fmt.Errorf("read HEAD: %w", err)
	}
	if ref.Type() == plumbing.SymbolicReference {
		hi.branch = ref.Target().Short()
		if !ref.Target().IsBranch() {
			hi.branch = string(ref.Target())
		}
		resolved, err := storer.ResolveReference(s, ref.Target())
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return hi, nil // unborn branch
		}
		if err != nil {
			return hi, fmt.Errorf("read HEAD: %w", err)
		}
		hi.commit = resolved.Hash()
	} else {
		hi.detached = true
		hi.commit = ref.Hash()
	}
	c, err := object.GetCommit(s, hi.commit)
	if err != nil {
		return hi, fmt.Errorf("read HEAD commit %s: %w", hi.commit, err)
	}
	hi.tree = c.TreeHash
	return hi, nil
}

// upstreamOf finds the branch's upstream from branch.<name>.remote and
// branch.<name>.merge, mapped through the remote's fetch refspecs: the
// tracking ref and its short name ("origin/main").
func upstreamOf(c *gitConfig, branch string) (plumbing.ReferenceName, bool) {
	remote := c.get("branch", branch, "remote")
	merge := c.get("branch", branch, "merge")
	if remote == "" || merge == "" {
		return "", false
	}
	mergeRef := plumbing.ReferenceName(merge)
	if !strings.HasPrefix(merge, "refs/") {
		mergeRef = plumbing.NewBranchReferenceName(merge)
	}
	if remote == "." {
		return mergeRef, true
	}
	for _, spec := range c.getAll("remote", remote, "fetch") {
		rs := gitcfg.RefSpec(strings.TrimSpace(spec))
		if rs.Validate() != nil {
			continue
		}
		if rs.Match(mergeRef) {
			return rs.Dst(mergeRef), true
		}
	}
	return "", false
}

// Commit flags of the ahead/behind walk.
const (
	fromLocal = 1 << iota
	fromUpstream
	bothSides = fromLocal | fromUpstream
)

// aheadBehind counts the commits reachable from local but not upstream
// (ahead) and the reverse (behind), walking both histories newest first
// and stopping once every commit still queued is reachable from both, like
// git's symmetric-difference walk (which assumes commit dates roughly
// follow the graph too).
func aheadBehind(ctx context.Context, s storer.EncodedObjectStorer, local, upstream plumbing.Hash) (ahead, behind int, err error) {
	if local == upstream {
		return 0, 0, nil
	}
	flags := make(map[plumbing.Hash]int)
	q := &commitQueue{}
	push := func(h plumbing.Hash, f int) error {
		old := flags[h]
		if old|f == old {
			return nil
		}
		flags[h] = old | f
		c, err := object.GetCommit(s, h)
		if err != nil {
			return fmt.Errorf("ahead/behind: %w", err)
		}
		heap.Push(q, queued{c: c, flags: old | f})
		return nil
	}
	if err := push(local, fromLocal); err != nil {
		return 0, 0, err
	}
	if err := push(upstream, fromUpstream); err != nil {
		return 0, 0, err
	}
	for q.Len() > 0 && !q.allBoth() {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		it := heap.Pop(q).(queued)
		if it.flags == bothSides {
			q.both--
		}
		f := flags[it.c.Hash]
		for _, p := range it.c.ParentHashes {
			if err := push(p, f); err != nil {
				return 0, 0, err
			}
		}
	}
	for _, f := range flags {
		switch f {
		case fromLocal:
			ahead++
		case fromUpstream:
			behind++
		}
	}
	return ahead, behind, nil
}

type queued struct {
	c     *object.Commit
	flags int
}

// commitQueue is a max-heap of commits by committer date that also counts
// how many queued items carry both flags.
type commitQueue struct {
	items []queued
	both  int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	return q.items[i].c.Committer.When.After(q.items[j].c.Committer.When)
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any) {
	it := x.(queued)
	if it.flags == bothSides {
		q.both++
	}
	q.items = append(q.items, it)
}
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}
func (q *commitQueue) allBoth() bool { return q.both == len(q.items) }
