package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/audit"
)

// Bounds of the age of storage_delete_old_screenshots and
// storage_prune_stale_agent_sessions, in days.
const (
	MinAgeDays     = 1
	MaxAgeDays     = 3650
	DefaultAgeDays = 30
)

// ClearResult is what [Store.Clear] removed.
type ClearResult struct {
	Collection   string `json:"collection"`
	DeletedBytes int64  `json:"deletedBytes"`
	DeletedFiles int    `json:"deletedFiles"`
}

// Clearable returns the names of the collections that can be cleared.
func Clearable() []string {
	var out []string
	for _, c := range Table {
		if c.Clearable {
			out = append(out, c.Name)
		}
	}
	return out
}

// Clear empties a clearable collection (logs, audit, artifacts). Clearing
// the audit writes first as the first entry of the new file (it records the
// clear itself). Clearing the artifacts removes what is inside the folder,
// never anything outside it: links are removed, not followed.
func (s *Store) Clear(ctx context.Context, name string, first audit.Entry) (ClearResult, error) {
	c, ok := Lookup(name)
	if !ok || !c.Clearable {
		return ClearResult{}, &UnknownCollectionError{Known: Clearable(), NotClearable: ok}
	}
	r := ClearResult{Collection: c.Name}
	var err error
	switch c.Name {
	case CollectionLogs:
		r.DeletedBytes, r.DeletedFiles, err = s.o.Logs.Clear()
	case CollectionAudit:
		if s.o.Audit != nil {
			r.DeletedBytes, r.DeletedFiles, err = s.o.Audit.Clear(first)
		}
	case CollectionArtifacts:
		r.DeletedBytes, r.DeletedFiles, err = clearDir(ctx, filepath.Join(s.o.UserData, ArtifactsDir))
	}
	return r, err
}

// clearDir removes everything inside dir (not dir itself) through an
// os.Root, so nothing outside dir is reached: a symbolic link is removed as
// a link. It counts the files (links included) and their bytes.
func clearDir(ctx context.Context, dir string) (bytes int64, files int, err error) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("clear %s: %w", filepath.Base(dir), err)
	}
	defer root.Close()
	ents, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return 0, 0, fmt.Errorf("clear %s: %w", filepath.Base(dir), err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return bytes, files, err
		}
		b, n := measure(root, e)
		if err := root.RemoveAll(e.Name()); err != nil {
			return bytes, files, fmt.Errorf("clear %s: %w", filepath.Base(dir), err)
		}
		bytes, files = bytes+b, files+n
	}
	return bytes, files, nil
}

// measure counts the files and bytes of one entry of root (a folder is
// walked inside root; links are not followed).
func measure(root *os.Root, e fs.DirEntry) (bytes int64, files int) {
	if !e.IsDir() {
		if fi, err := e.Info(); err == nil {
			return fi.Size(), 1
		}
		return 0, 1
	}
	_ = fs.WalkDir(root.FS(), e.Name(), func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			bytes += fi.Size()
		}
		files++
		return nil
	})
	return bytes, files
}

// ScreenshotsResult is what [Store.DeleteOldScreenshots] removed.
type ScreenshotsResult struct {
	DeletedFiles int    `json:"deletedFiles"`
	DeletedBytes int64  `json:"deletedBytes"`
	Cutoff       string `json:"cutoff"`
}

// DeleteOldScreenshots removes the screenshot PNGs among the artifacts
// (see [IsScreenshot]) last modified before now − olderThanDays. Only
// regular files are removed.
func (s *Store) DeleteOldScreenshots(ctx context.Context, olderThanDays int) (ScreenshotsResult, error) {
	cutoff := s.o.Now().Add(-time.Duration(olderThanDays) * 24 * time.Hour)
	r := ScreenshotsResult{Cutoff: cutoff.UTC().Format(time.RFC3339Nano)}
	root, err := os.OpenRoot(filepath.Join(s.o.UserData, ArtifactsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("delete screenshots: %w", err)
	}
	defer root.Close()
	for _, dir := range []string{".", ScreenshotsDir} {
		ents, err := fs.ReadDir(root.FS(), dir)
		if err != nil {
			continue // no such folder (or not a folder)
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return r, err
			}
			rel := e.Name()
			if dir != "." {
				rel = dir + "/" + rel
			}
			if !e.Type().IsRegular() || !IsScreenshot(rel) {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.ModTime().Before(cutoff) {
				continue
			}
			if err := root.Remove(rel); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return r, fmt.Errorf("delete screenshot %s: %w", rel, err)
			}
			r.DeletedFiles++
			r.DeletedBytes += fi.Size()
		}
	}
	return r, nil
}

// PruneResult is what [Store.PruneAgentSessions] removed.
type PruneResult struct {
	Collection      string `json:"collection"`
	DeletedSessions int    `json:"deletedSessions"`
	DeletedBytes    int64  `json:"deletedBytes"`
	Cutoff          string `json:"cutoff"`
}

// PruneAgentSessions deletes, through the agent service, the sessions that
// are not running and whose metadata (updatedAt) is older than now −
// olderThanDays. A running session is never touched; a session that starts
// running between the listing and its deletion is skipped.
func (s *Store) PruneAgentSessions(ctx context.Context, olderThanDays int) (PruneResult, error) {
	cutoff := s.o.Now().Add(-time.Duration(olderThanDays) * 24 * time.Hour)
	r := PruneResult{Collection: CollectionAgentSessions, Cutoff: cutoff.UTC().Format(time.RFC3339Nano)}
	if s.o.Agents == nil {
		return r, nil
	}
	for _, info := range s.o.Agents.Sessions("", "") {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if info.Status == agent.StatusRunning || info.UpdatedAt >= cutoff.UnixMilli() {
			continue
		}
		sess, err := s.o.Agents.Session(info.ID) // fresh: it may have started since
		if err != nil || sess.Status == agent.StatusRunning || sess.UpdatedAt >= cutoff.UnixMilli() {
			continue
		}
		size := s.transcriptSize(sess.ID)
		if err := s.o.Agents.Delete(ctx, sess.ID); err != nil {
			return r, fmt.Errorf("prune agent session: %w", err)
		}
		r.DeletedSessions++
		r.DeletedBytes += size
	}
	return r, nil
}

// transcriptSize is the size of a session's transcript file (0 when it has
// none); id comes from the agent service, which validates its form.
func (s *Store) transcriptSize(id string) int64 {
	if strings.ContainsAny(id, `/\`) {
		return 0
	}
	fi, err := os.Lstat(filepath.Join(s.o.UserData, AgentDir, "sessions", id+".jsonl"))
	if err != nil {
		return 0
	}
	return fi.Size()
}
