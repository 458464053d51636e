package filetools

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/files/find"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// ListFilesInput is the input of workspace_list_files.
type ListFilesInput struct {
	Cwd            string `json:"cwd" jsonschema:"workspace folder the path is resolved against" maxLength:"4096"`
	Path           string `json:"path,omitempty" jsonschema:"the folder to list, relative to cwd (default: cwd itself)" maxLength:"4096"`
	Recursive      bool   `json:"recursive,omitempty" jsonschema:"list everything below the folder, breadth first (default: the folder's own entries)"`
	MaxEntries     int    `json:"maxEntries,omitempty" jsonschema:"the most entries to return (the deepest are cut first)" minimum:"1" maximum:"20000" default:"5000"`
	IncludeIgnored bool   `json:"includeIgnored,omitempty" jsonschema:"also list what .gitignore and the fixed folders (node_modules, .git, dist, …) leave out (.git is listed, never entered)"`
	AllowOutside   bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside all known workspace roots (default false; agents stay in their session's folder)"`
}

// ListFilesOutput is the result of workspace_list_files.
type ListFilesOutput struct {
	// Cwd is the canonical cwd: the entries' paths are relative to it.
	Cwd string `json:"cwd"`
	// Root is the workspace root that holds cwd (cwd itself with
	// allowOutside outside every root).
	Root      string       `json:"root"`
	Entries   []find.Entry `json:"entries"`
	Truncated bool         `json:"truncated"`
}

// SearchInput is the input of workspace_search.
type SearchInput struct {
	Cwd           string `json:"cwd" jsonschema:"workspace folder the path is resolved against" maxLength:"4096"`
	Query         string `json:"query" jsonschema:"the text to find, or with isRegex a Go regular expression (RE2 syntax); matches never span lines" maxLength:"4096"`
	IsRegex       bool   `json:"isRegex,omitempty" jsonschema:"query is a regular expression"`
	CaseSensitive bool   `json:"caseSensitive,omitempty" jsonschema:"match case (default false: Unicode case folding)"`
	MaxResults    int    `json:"maxResults,omitempty" jsonschema:"the most matches to return (the first in path order)" minimum:"1" maximum:"5000" default:"500"`
	Path          string `json:"path,omitempty" jsonschema:"a folder or file to search, relative to cwd (default: cwd)" maxLength:"4096"`
	Glob          string `json:"glob,omitempty" jsonschema:"only files matching: \"*.go\", \"src/**/*.{ts,tsx}\", several separated by commas, \"!\" to exclude; a glob without / matches any path element" maxLength:"1024"`
	AllowOutside  bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside all known workspace roots (default false; agents stay in their session's folder)"`
}

// SearchOutput is the result of workspace_search.
type SearchOutput struct {
	Matches       []find.Match `json:"matches"`
	Truncated     bool         `json:"truncated"`
	FilesSearched int          `json:"filesSearched"`
}

// WatchInput is the input of workspace_watch.
type WatchInput struct {
	Cwd          string `json:"cwd" jsonschema:"the workspace folder to follow" maxLength:"4096"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"permit a cwd outside all known workspace roots (default false; agents stay in their session's folder)"`
}

// WatchOutput is the result of workspace_watch (when it is cancelled).
type WatchOutput struct {
	Root    string `json:"root"`
	Changes int    `json:"changes"`
}

// findError maps the errors of the find engine.
func findError(err error) error {
	return registry.MapError(err, func(err error) error {
		var qe *find.QueryError
		if errors.As(err, &qe) {
			return registry.InvalidArg(qe.Field, qe.Error()) // "query: is not …": the message names it
		}
		return nil
	})
}

// target resolves the path argument (default: cwd) and stats it.
func target(sc files.Scope, path string) (files.Target, fs.FileInfo, error) {
	tg, err := sc.Resolve("path", path)
	if err != nil {
		return files.Target{}, nil, mapError(err)
	}
	fi, err := os.Stat(tg.Abs)
	if errors.Is(err, fs.ErrNotExist) {
		return files.Target{}, nil, registry.InvalidArg("path", "path: no such file or folder: "+tg.Rel)
	}
	if err != nil {
		return files.Target{}, nil, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: "cannot read " + tg.Abs + ": " + errText(err)}
	}
	return tg, fi, nil
}

// listFiles is workspace_list_files.
func (t *tools) listFiles(ctx context.Context, call *registry.Call, in ListFilesInput) (ListFilesOutput, error) {
	sc, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return ListFilesOutput{}, err
	}
	tg, fi, err := target(sc, in.Path)
	if err != nil {
		return ListFilesOutput{}, err
	}
	if !fi.IsDir() {
		return ListFilesOutput{}, registry.InvalidArg("path", "path: is a file, not a folder: "+tg.Rel+" (read it with workspace_read_file)")
	}
	res, err := find.List(ctx, find.ListOptions{Root: tg.Abs, Base: sc.Cwd, Recursive: in.Recursive,
		MaxEntries: cmp.Or(in.MaxEntries, 5000), IncludeIgnored: in.IncludeIgnored, Stat: !in.Recursive})
	if err != nil {
		return ListFilesOutput{}, findError(err)
	}
	return ListFilesOutput{Cwd: sc.Cwd, Root: cmp.Or(sc.Root, sc.Cwd), Entries: res.Entries, Truncated: res.Truncated}, nil
}

// search is workspace_search.
func (t *tools) search(ctx context.Context, call *registry.Call, in SearchInput) (SearchOutput, error) {
	sc, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return SearchOutput{}, err
	}
	tg, _, err := target(sc, in.Path)
	if err != nil {
		return SearchOutput{}, err
	}
	res, err := find.Search(ctx, find.SearchOptions{Root: tg.Abs, Base: sc.Cwd, Query: in.Query, IsRegex: in.IsRegex,
		CaseSensitive: in.CaseSensitive, MaxResults: cmp.Or(in.MaxResults, find.DefaultMaxResults), Glob: in.Glob})
	if err != nil {
		return SearchOutput{}, findError(err)
	}
	return SearchOutput{Matches: res.Matches, Truncated: res.Truncated, FilesSearched: res.FilesSearched}, nil
}

// watch is workspace_watch: it holds cwd on the hub and streams its
// batches until cancelled.
func (t *tools) watch(ctx context.Context, call *registry.Call, in WatchInput) (WatchOutput, error) {
	sc, err := t.scope(call, in.Cwd, in.AllowOutside)
	if err != nil {
		return WatchOutput{}, err
	}
	root := sc.Cwd
	batches := make(chan fswatch.Batch, 64)
	var lost atomic.Bool
	cancel := t.d.Watch.Subscribe(func(b fswatch.Batch) {
		w, ok := b.Within(root)
		if !ok {
			return
		}
		select {
		case batches <- w:
		default:
			lost.Store(true) // the caller is behind: it hears "overflow"
		}
	})
	defer cancel()
	defer t.d.Watch.Watch(root)()
	call.Progress("watching "+root, -1)
	n := 0
	for {
		select {
		case <-ctx.Done():
			// Following ends only by cancellation: the call resolves CANCELLED.
			return WatchOutput{Root: root, Changes: n}, ctx.Err()
		case b := <-batches:
			n += b.Count
			var text strings.Builder
			for _, c := range b.Changes {
				text.WriteString(c.Kind + " " + c.Path + "\n")
			}
			if lost.Swap(false) || b.Overflow || b.Count > len(b.Changes) {
				text.WriteString("overflow .\n") // more changed than the lines say
			}
			call.Emit(protocol.Event{Kind: protocol.EventLog, Level: protocol.LevelInfo, Message: "files_changed",
				Path: root, Text: strings.TrimSuffix(text.String(), "\n")})
		}
	}
}

// errText is an error's text without the path a *fs.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
