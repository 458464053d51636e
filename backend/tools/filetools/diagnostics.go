package filetools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// DiagnosticsInput is the input of get_diagnostics.
type DiagnosticsInput struct {
	Cwd          string `json:"cwd" jsonschema:"workspace folder the path is resolved against"`
	Path         string `json:"path,omitempty" jsonschema:"the file to check, relative to cwd (default: the files open in the workspace's editor tabs)" maxLength:"4096"`
	AllowOutside bool   `json:"allowOutside,omitempty" jsonschema:"accept a cwd that is not a space's or an open workspace tab's folder (agents stay confined to their session's folder)" default:"false"`
}

// DiagnosticsResult is the result of get_diagnostics.
type DiagnosticsResult struct {
	// Unsupported is true when no file could be checked: its language has
	// no server meith knows, or the server is not installed.
	Unsupported bool `json:"unsupported"`
	// Language is the file's language ("go", "typescript", …); without a
	// path, the languages checked, comma-separated; "" when unknown.
	Language string `json:"language"`
	// Server is the language server that checked it (likewise).
	Server string `json:"server,omitempty"`
	// InstallHint says how to install the missing server.
	InstallHint string `json:"installHint,omitempty"`
	// Diagnostics are sorted by path, line and column.
	Diagnostics []FileDiagnostic `json:"diagnostics"`
}

// FileDiagnostic is one problem in a file. Lines and columns are 1-based;
// columns count UTF-16 code units, as the editor and the patch offsets do.
type FileDiagnostic struct {
	// Path is relative to cwd (forward slashes), absolute outside it.
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity" enum:"error,warning,info,hint"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
	Code      string `json:"code,omitempty"`
}

// diagnostics is get_diagnostics over the language servers.
type diagnostics struct {
	boundary  files.Boundary
	servers   *lsp.Manager
	openFiles func(root string) []string
}

func (t *diagnostics) get(ctx context.Context, call *registry.Call, in DiagnosticsInput) (DiagnosticsResult, error) {
	scope, err := t.boundary.Scope(call.Client, call.Path(in.Cwd), in.AllowOutside)
	if err != nil {
		return DiagnosticsResult{}, pathError(err)
	}
	root := scope.Root
	if root == "" {
		root = scope.Cwd
	}
	var paths []string
	if in.Path != "" {
		target, err := scope.Resolve("path", in.Path)
		if err != nil {
			return DiagnosticsResult{}, pathError(err)
		}
		fi, err := os.Stat(target.Abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return DiagnosticsResult{}, registry.InvalidArg("path", "path: no such file: "+in.Path)
		case err != nil:
			return DiagnosticsResult{}, registry.InvalidArg("path", "path: cannot be read: "+in.Path)
		case fi.IsDir():
			return DiagnosticsResult{}, registry.InvalidArg("path", "path: is a folder, not a file: "+in.Path)
		}
		paths = []string{target.Abs}
	} else if t.openFiles != nil {
		for _, p := range t.openFiles(root) {
			target, err := scope.Resolve("path", p)
			if err != nil || !inside(scope.Cwd, target.Abs) {
				continue // another tab's file, outside this call's folder
			}
			if fi, err := os.Stat(target.Abs); err == nil && fi.Mode().IsRegular() {
				paths = append(paths, target.Abs)
			}
		}
	}
	out := DiagnosticsResult{Diagnostics: []FileDiagnostic{}}
	if len(paths) == 0 {
		return out, nil
	}
	if t.servers == nil {
		return DiagnosticsResult{}, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: "the language servers are not available in this runtime"}
	}

	rep, err := t.servers.Check(ctx, root, paths, func(msg string) { call.Progress(msg, -1) })
	if err != nil {
		return DiagnosticsResult{}, registry.MapError(err, func(err error) error {
			if errors.Is(err, lsp.ErrClosed) {
				return &protocol.ToolError{Code: protocol.CodeRuntimeShuttingDown, Message: "the runtime is shutting down", Err: err}
			}
			return nil // a *lsp.ServerError says what the server did: TOOL_FAILED
		})
	}
	for _, n := range rep.Notes {
		call.Diagnose(protocol.Diagnostic{Level: "warn", Message: n})
	}
	var langs, servers, hints []string
	for _, c := range rep.Checked {
		langs = appendNew(langs, c.Language)
		servers = appendNew(servers, c.Server)
	}
	for _, u := range rep.Unsupported {
		if len(rep.Checked) == 0 {
			langs = appendNew(langs, u.Language)
		}
		hints = appendNew(hints, u.InstallHint)
		call.Diagnose(protocol.Diagnostic{Level: "info", Message: "not checked: " + relTo(scope.Cwd, u.Path) + ": " + u.Reason})
	}
	out.Unsupported = len(rep.Checked) == 0
	out.Language = strings.Join(langs, ",")
	out.Server = strings.Join(servers, ",")
	out.InstallHint = strings.Join(hints, "; ")
	for _, d := range rep.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, FileDiagnostic{Path: relTo(scope.Cwd, d.Path), Line: d.Line, Column: d.Column,
			EndLine: d.EndLine, EndColumn: d.EndColumn, Severity: d.Severity, Message: d.Message, Source: d.Source, Code: d.Code})
	}
	return out, nil
}

// pathError maps the boundary's refusal to VALIDATION_ERROR naming the
// field, in its details and in its message (as the other file tools do).
func pathError(err error) error {
	var pe *files.PathError
	if errors.As(err, &pe) {
		return registry.InvalidArg(pe.Field, pe.Error())
	}
	return registry.MapError(err, nil)
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// relTo is p relative to dir with forward slashes, or p when it is not
// inside dir.
func relTo(dir, p string) string {
	if !inside(dir, p) {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// inside reports whether p is dir or below it (both clean and absolute).
func inside(dir, p string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+string(filepath.Separator))
}
