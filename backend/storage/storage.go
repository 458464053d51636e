package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/internal/artifact"
	"github.com/meith-dev/meith/backend/redact"
	"github.com/meith-dev/meith/backend/state"
)

// Limits of the reads.
const (
	// DefaultReadLimit is how many records storage_read_collection returns
	// when the call sets no limit; MaxReadLimit is the most it returns.
	DefaultReadLimit = 200
	MaxReadLimit     = 5000
	// DefaultBundleLogs is how many log entries a support bundle holds when
	// the call sets no limit; MaxBundleLogs the most.
	DefaultBundleLogs = 500
	MaxBundleLogs     = 2000
	// BundleAuditEntries is how many of the newest audit entries a support
	// bundle holds.
	BundleAuditEntries = 200
	// maxJSONFile bounds the read of a JSON collection's file.
	maxJSONFile = 4 << 20
)

// BundleSchema names the format of the support bundle.
const BundleSchema = "meith-support-bundle/v1"

// UnknownCollectionError is the error of a name no collection has (or, for
// a clear, of a collection that cannot be cleared). It never holds the
// name asked for (it may be anything): Known lists the names that work.
type UnknownCollectionError struct {
	Known []string
	// NotClearable is true when the name is a collection that cannot be
	// cleared.
	NotClearable bool
}

// Error implements error.
func (e *UnknownCollectionError) Error() string {
	if e.NotClearable {
		return "this collection cannot be cleared; clearable collections: " + strings.Join(e.Known, ", ")
	}
	return "unknown collection; known collections: " + strings.Join(e.Known, ", ")
}

// IsUnknownCollection reports whether err is (or wraps) an
// [*UnknownCollectionError].
func IsUnknownCollection(err error) bool {
	var e *UnknownCollectionError
	return errors.As(err, &e)
}

// Options configures a [Store]. UserData is required; the others may be nil
// in tests (their collections then read as empty and clear nothing).
type Options struct {
	UserData string
	State    *state.Store
	Logs     *applog.Logger
	Audit    *audit.Log
	Agents   *agent.Service
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Store is the storage engine over one user data folder. It is safe for
// concurrent use.
type Store struct {
	o Options
}

// New returns the engine of o.UserData.
func New(o Options) *Store {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Store{o: o}
}

// UserData returns the user data folder.
func (s *Store) UserData() string { return s.o.UserData }

// Info is a collection with what is stored in it now.
type Info struct {
	Name        string `json:"name"`
	Kind        Kind   `json:"kind"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Exists      bool   `json:"exists"`
	SizeBytes   int64  `json:"sizeBytes"`
	Files       int    `json:"files"`
	Clearable   bool   `json:"clearable"`
}

// List returns every collection of [Table] with its size: the bytes and the
// number of files (symbolic links count as files of their own size).
func (s *Store) List() []Info {
	out := make([]Info, 0, len(Table))
	for _, c := range Table {
		out = append(out, s.info(c))
	}
	return out
}

// info measures one collection.
func (s *Store) info(c Collection) Info {
	in := Info{Name: c.Name, Kind: c.Kind, Path: filepath.Join(s.o.UserData, filepath.FromSlash(c.Path)),
		Description: c.Description, Clearable: c.Clearable}
	var paths []string
	for _, e := range c.Entries {
		if c.Kind == KindDirectory {
			paths = []string{in.Path}
			break
		}
		paths = append(paths, filepath.Join(s.o.UserData, e))
	}
	if c.Name == CollectionAudit && s.o.Audit != nil {
		paths = s.o.Audit.Files()
	}
	if ents, err := os.ReadDir(s.o.UserData); err == nil && c.Kind != KindDirectory {
		for _, e := range ents {
			for _, p := range c.Prefixes {
				if strings.HasPrefix(e.Name(), p) {
					paths = append(paths, filepath.Join(s.o.UserData, e.Name()))
					break
				}
			}
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if _, err := os.Lstat(in.Path); err == nil {
		in.Exists = true
	}
	for _, p := range paths {
		root := p
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if c.Match != nil {
				rel, rerr := filepath.Rel(root, path)
				if rerr != nil || !c.Match(filepath.ToSlash(rel)) {
					return nil
				}
			}
			if fi, err := d.Info(); err == nil {
				in.SizeBytes += fi.Size()
				in.Files++
			}
			return nil
		})
	}
	return in
}

// lookup returns the collection called name or an
// [*UnknownCollectionError].
func lookup(name string) (Collection, error) {
	c, ok := Lookup(name)
	if !ok {
		return Collection{}, &UnknownCollectionError{Known: Names()}
	}
	return c, nil
}

// FileInfo is one file of a directory collection.
type FileInfo struct {
	// Path is relative to the collection's folder, slash-separated.
	Path       string `json:"path"`
	SizeBytes  int64  `json:"sizeBytes"`
	ModifiedAt string `json:"modifiedAt"`
}

// CollectionContent is what [Store.Read] returns: the state for "state", the
// newest records (oldest first) for "logs" and "audit", the redacted
// document of another JSON collection, or the files of a directory
// collection (the newest first).
type CollectionContent struct {
	Name  string       `json:"name"`
	Kind  Kind         `json:"kind"`
	State *state.State `json:"state,omitempty"`
	// Records are log or audit entries.
	Records any `json:"records,omitempty"`
	// Document is a JSON collection's content, redacted.
	Document any        `json:"document,omitempty"`
	Files    []FileInfo `json:"files,omitempty"`
	// Truncated says that there is more than was returned.
	Truncated bool `json:"truncated"`
}

// Read reads collection name: at most limit records or files (0 means
// DefaultReadLimit; more than MaxReadLimit is cut to it).
func (s *Store) Read(ctx context.Context, name string, limit int) (CollectionContent, error) {
	c, err := lookup(name)
	if err != nil {
		return CollectionContent{}, err
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	limit = min(limit, MaxReadLimit)
	r := CollectionContent{Name: c.Name, Kind: c.Kind}
	switch c.Name {
	case CollectionState:
		if s.o.State != nil {
			st := s.o.State.Get()
			r.State = &st
		}
	case CollectionLogs:
		logs, err := s.o.Logs.Query(applog.Filter{Limit: limit})
		if err != nil {
			return CollectionContent{}, err
		}
		r.Records, r.Truncated = nonNil(logs), len(logs) == limit
	case CollectionAudit:
		var entries []audit.Entry
		if s.o.Audit != nil {
			if entries, err = s.o.Audit.Tail(limit); err != nil {
				return CollectionContent{}, err
			}
		}
		r.Records, r.Truncated = nonNil(entries), len(entries) == limit
	default:
		if c.Kind == KindJSON {
			doc, err := readJSON(filepath.Join(s.o.UserData, c.Path))
			if err != nil {
				return CollectionContent{}, err
			}
			r.Document = doc
			break
		}
		r.Files, r.Truncated, err = s.files(ctx, c, limit)
		if err != nil {
			return CollectionContent{}, err
		}
	}
	return r, nil
}

// nonNil returns xs, or an empty slice for nil.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// readJSON reads a JSON file of at most maxJSONFile bytes (never following
// a link, never blocking on a FIFO) and returns it decoded and redacted;
// nil when it does not exist.
func readJSON(path string) (any, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", filepath.Base(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxJSONFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if len(b) > maxJSONFile {
		return nil, fmt.Errorf("read %s: larger than %d MiB", filepath.Base(path), maxJSONFile>>20)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("read %s: not JSON: %w", filepath.Base(path), err)
	}
	return redact.Value(v), nil
}

// files lists the files of a directory collection, the newest first, at
// most limit of them.
func (s *Store) files(ctx context.Context, c Collection, limit int) ([]FileInfo, bool, error) {
	root := filepath.Join(s.o.UserData, filepath.FromSlash(c.Path))
	var all []FileInfo
	var times []time.Time
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if c.Match != nil && !c.Match(rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		all = append(all, FileInfo{Path: rel, SizeBytes: fi.Size(), ModifiedAt: fi.ModTime().UTC().Format(time.RFC3339Nano)})
		times = append(times, fi.ModTime())
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return times[b].Compare(times[a]) })
	out := make([]FileInfo, 0, min(limit, len(all)))
	for _, i := range idx[:min(limit, len(idx))] {
		out = append(out, all[i])
	}
	return out, len(all) > limit, nil
}

// StateExport is the result of storage_export_state.
type StateExport struct {
	ExportedAt    string      `json:"exportedAt"`
	DataDirectory string      `json:"dataDirectory"`
	StateVersion  int         `json:"stateVersion"`
	Collections   []Info      `json:"collections"`
	State         state.State `json:"state"`
}

// ExportState returns the full state with the storage metadata.
func (s *Store) ExportState() StateExport {
	var st state.State
	if s.o.State != nil {
		st = s.o.State.Get()
	}
	return StateExport{ExportedAt: s.o.Now().UTC().Format(time.RFC3339Nano), DataDirectory: s.o.UserData,
		StateVersion: st.Version, Collections: s.List(), State: st}
}

// Bundle is the support bundle: storage metadata, the state, recent logs
// and recent audit entries, every value redacted by backend/redact (keys
// that name secrets, strings that look like secrets).
type Bundle struct {
	Schema        string `json:"schema"`
	ExportedAt    string `json:"exportedAt"`
	DataDirectory string `json:"dataDirectory"`
	Collections   []Info `json:"collections"`
	// State, Logs and Audit are redacted JSON values.
	State any `json:"state"`
	Logs  any `json:"logs"`
	Audit any `json:"audit"`
}

// BundleResult is the result of [Store.ExportSupportBundle].
type BundleResult struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Bundle Bundle `json:"bundle"`
}

// ExportSupportBundle gathers a support bundle (logsLimit log entries: 0
// means DefaultBundleLogs) and writes it as the artifact
// support-bundle-<UTC timestamp>.json (mode 0600).
func (s *Store) ExportSupportBundle(ctx context.Context, logsLimit int) (BundleResult, error) {
	if logsLimit <= 0 {
		logsLimit = DefaultBundleLogs
	}
	logsLimit = min(logsLimit, MaxBundleLogs)
	logs, err := s.o.Logs.Query(applog.Filter{Limit: logsLimit})
	if err != nil {
		return BundleResult{}, err
	}
	var entries []audit.Entry
	if s.o.Audit != nil {
		if entries, err = s.o.Audit.Tail(BundleAuditEntries); err != nil {
			return BundleResult{}, err
		}
	}
	var st any
	if s.o.State != nil {
		if st, err = redacted(s.o.State.Get()); err != nil {
			return BundleResult{}, err
		}
	}
	rl, err := redacted(nonNil(logs))
	if err != nil {
		return BundleResult{}, err
	}
	ra, err := redacted(nonNil(entries))
	if err != nil {
		return BundleResult{}, err
	}
	now := s.o.Now().UTC()
	b := Bundle{Schema: BundleSchema, ExportedAt: now.Format(time.RFC3339Nano), DataDirectory: s.o.UserData,
		Collections: s.List(), State: st, Logs: rl, Audit: ra}
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return BundleResult{}, fmt.Errorf("encode support bundle: %w", err)
	}
	raw = append(raw, '\n')
	p, err := artifact.Write(filepath.Join(s.o.UserData, ArtifactsDir), "support-bundle-"+now.Format("20060102T150405.000Z"), ".json", raw)
	if err != nil {
		return BundleResult{}, err
	}
	return BundleResult{Path: p, Bytes: int64(len(raw)), Bundle: b}, nil
}

// redacted returns v as a JSON value with its secrets redacted.
func redacted(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode for redaction: %w", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode for redaction: %w", err)
	}
	return redact.Value(out), nil
}
