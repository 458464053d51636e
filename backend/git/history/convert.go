package history

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// indexAttributes is an attribute source reading in-tree .gitattributes
// files from the merged entries of an index.
func indexAttributes(r *repo.Repo, idx *index.Index) status.AttrSource {
	return func(p string) ([]byte, bool) {
		es := idx.Entries
		i := sort.Search(len(es), func(i int) bool { return es[i].Name >= p })
		for ; i < len(es) && es[i].Name == p; i++ {
			if es[i].Stage == 0 {
				return regularBlob(r, es[i].Mode, es[i].Hash)
			}
		}
		return nil, false
	}
}

// treeAttributes is an attribute source reading in-tree .gitattributes
// files from a flattened tree (or the planned index of a checkout).
func treeAttributes(r *repo.Repo, files map[string]treeFile) status.AttrSource {
	return func(p string) ([]byte, bool) {
		f, ok := files[p]
		if !ok {
			return nil, false
		}
		return regularBlob(r, f.Mode, f.Hash)
	}
}

func regularBlob(r *repo.Repo, mode filemode.FileMode, h plumbing.Hash) ([]byte, bool) {
	if canonicalMode(mode) != filemode.Regular && canonicalMode(mode) != filemode.Executable {
		return nil, false
	}
	b, err := readBlob(r.Git.Storer, h)
	return b, err == nil
}

// cleanerFor returns the function fileMatchesEntry cleans the content of
// e's worktree file with before hashing it: git's line-ending conversion
// for e's path, with e's blob for the safe-autocrlf rule.
func cleanerFor(r *repo.Repo, conv *status.Converter, e *index.Entry) func([]byte) []byte {
	if conv == nil {
		return nil
	}
	return func(b []byte) []byte {
		return conv.Clean(e.Name, b, func() ([]byte, bool) {
			blob, err := readBlob(r.Git.Storer, e.Hash)
			return blob, err == nil
		})
	}
}

// unconverted records a file written without a conversion git would apply.
func unconverted(conv *status.Converter, p string, out *[]status.Unconverted) {
	if what := conv.Unsupported(p); what != "" {
		*out = append(*out, status.Unconverted{Path: p, What: what})
	}
}

// cleanLock makes the index lock compare racily clean entries with their
// files as git add would store them (conv's line-ending conversion).
func cleanLock(r *repo.Repo, lock *repo.IndexLock, conv *status.Converter) {
	lock.Clean = func(e *index.Entry, content []byte) []byte { return cleanerFor(r, conv, e)(content) }
}
