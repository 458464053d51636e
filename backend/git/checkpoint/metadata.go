package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Checkpoint is the metadata of one checkpoint, as checkpoints.json keeps
// it and the tools return it.
type Checkpoint struct {
	// ID is "<unix milliseconds in base 36>-<8 random base-36 digits>".
	ID string `json:"id"`
	// Ref is refs/meith/checkpoints/<id>, pointing at the worktree commit.
	Ref string `json:"ref"`
	// Root is the worktree root the checkpoint was taken in.
	Root string `json:"root"`
	// BaseHead is the commit HEAD pointed at, "" on an unborn branch.
	BaseHead string `json:"baseHead"`
	// Commit is the worktree commit W (what Ref points at).
	Commit string `json:"commit"`
	// IndexCommit is the index commit I.
	IndexCommit string `json:"indexCommit"`
	// CreatedAt is the creation time in RFC 3339 (UTC, milliseconds).
	CreatedAt  string `json:"createdAt"`
	Label      string `json:"label,omitempty"`
	Source     string `json:"source,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
}

// repoLocks serialises checkpoint work per common git directory inside
// this process (map of directory to *sync.Mutex).
var repoLocks sync.Map

func lockRepo(r *repo.Repo) func() {
	m, _ := repoLocks.LoadOrStore(r.CommonDir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func metadataPath(r *repo.Repo) string {
	return filepath.Join(r.CommonDir, "meith", "checkpoints.json")
}

// readMetadata reads checkpoints.json; a missing file is an empty list. A
// file that does not parse is moved aside (never lost) and read as empty.
func readMetadata(r *repo.Repo) ([]Checkpoint, error) {
	p := metadataPath(r)
	b, err := repo.ReadRegular(p, repo.MaxTextFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	var list []Checkpoint
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(b, &list); err != nil {
		aside := fmt.Sprintf("%s.corrupt-%d", p, time.Now().UnixMilli())
		if rerr := os.Rename(p, aside); rerr != nil {
			return nil, fmt.Errorf("read checkpoints: %s is not valid JSON (%v) and cannot be moved aside: %w", p, err, rerr)
		}
		return nil, nil
	}
	return list, nil
}

// updateMetadata changes checkpoints.json under git's lock-file protocol,
// so that another process updating it at the same time is kept out:
// checkpoints.json.lock is created exclusively, the list is read, changed
// by change, written to the lock file, synced and renamed over the file
// (an atomic replacement). When change reports no change nothing is
// written.
func updateMetadata(r *repo.Repo, change func([]Checkpoint) ([]Checkpoint, bool)) error {
	p := metadataPath(r)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return fmt.Errorf("write checkpoints: %w", err)
	}
	lock := p + ".lock"
	var f *os.File
	var err error
	for attempt := 0; ; attempt++ {
		f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 100 {
			return fmt.Errorf("write checkpoints: %w (remove %s if no meith process is running)", err, lock)
		}
		time.Sleep(20 * time.Millisecond) // another process is writing it
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	list, err := readMetadata(r)
	if err != nil {
		return err
	}
	list, changed := change(list)
	if !changed {
		return nil
	}
	if list == nil {
		list = []Checkpoint{}
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("write checkpoints: %w", err)
	}
	b = append(b, '\n')
	_, werr := f.Write(b)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write checkpoints: %w", err)
	}
	if err := os.Rename(lock, p); err != nil {
		return fmt.Errorf("write checkpoints: %w", err)
	}
	done = true
	return nil
}
