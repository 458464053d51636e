package gittools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/stage"
	"github.com/meith-dev/meith/backend/git/status"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// StageInput is the input of git_stage and git_unstage.
type StageInput struct {
	Cwd   string   `json:"cwd,omitempty" jsonschema:"a path inside the git repository (default: the caller's working directory)"`
	Paths []string `json:"paths,omitempty" jsonschema:"repository-relative files or folders"`
	Patch string   `json:"patch,omitempty" jsonschema:"a unified diff (hunks or selected lines) to apply to the index instead of whole files"`
}

// stageChanges is git_stage.
func (t *tools) stageChanges(ctx context.Context, call *registry.Call, in StageInput) (*protocol.ToolResult, error) {
	st, rp, err := t.indexEdit(ctx, call, in, stage.StagePaths, stage.StagePatch)
	if err != nil {
		return nil, err
	}
	// What this call staged is in the new status.
	res := protocol.OKResult(st)
	res.Diagnostics = t.filterDiagnostics(rp, st, in.Paths, in.Patch,
		"git_stage stored them as they are where git would store them converted (for git-lfs, the clean filter's pointer)")
	return &res, nil
}

// unstageChanges is git_unstage.
func (t *tools) unstageChanges(ctx context.Context, call *registry.Call, in StageInput) (*status.Result, error) {
	st, _, err := t.indexEdit(ctx, call, in, stage.UnstagePaths, stage.UnstagePatch)
	return st, err
}

// indexEdit runs a by-path or by-patch index edit and returns the new
// status (and the repository).
func (t *tools) indexEdit(ctx context.Context, call *registry.Call, in StageInput,
	byPaths func(context.Context, *repo.Repo, []string) error, byPatch func(context.Context, *repo.Repo, string) error,
) (*status.Result, *repo.Repo, error) {
	rp, err := t.openRepo(ctx, call, in.Cwd)
	if err != nil {
		return nil, nil, err
	}
	paths, err := t.pathsOrPatch(rp, in.Paths, in.Patch)
	if err != nil {
		return nil, nil, err
	}
	if paths != nil {
		err = byPaths(ctx, rp, paths)
	} else {
		err = byPatch(ctx, rp, in.Patch)
	}
	e := t.d.Hub.StatusEngine(rp) // the status below follows
	e.Invalidate(paths...)
	if err != nil {
		return nil, nil, toolError(err)
	}
	st, err := t.status(ctx, rp)
	return st, rp, err
}

// maxNamedFiltered is how many filtered files a diagnostic names.
const maxNamedFiltered = 10

// filterDiagnostics warns when files a call wrote have a conversion git
// would apply and meith does not (a clean/smudge filter such as git-lfs,
// ident, working-tree-encoding). The files are those of st (a status that
// lists them) under the given paths, or those a patch names; consequence
// says what happened instead.
func (t *tools) filterDiagnostics(rp *repo.Repo, st *status.Result, paths []string, patchText, consequence string) []protocol.Diagnostic {
	var candidates []string
	if strings.TrimSpace(patchText) != "" {
		fps, err := patch.Parse([]byte(patchText))
		if err != nil {
			return nil
		}
		for _, fp := range fps {
			candidates = append(candidates, fp.NewPath)
		}
	} else if st != nil {
		confined := make([]string, 0, len(paths))
		for _, p := range paths {
			if c, err := rp.Confine(p); err == nil {
				confined = append(confined, c)
			}
		}
		for _, f := range st.Files {
			for _, p := range confined {
				if f.Path == p || strings.HasPrefix(f.Path, p+"/") {
					candidates = append(candidates, f.Path)
					break
				}
			}
		}
	}
	return t.unsupportedDiagnostics(rp, candidates, consequence)
}

// unsupportedDiagnostics returns a warning naming the files of paths whose
// content git would transform in a way meith does not (see
// status.Converter.Unsupported), with what their attributes say and
// consequence, or nothing when there are none.
func (t *tools) unsupportedDiagnostics(rp *repo.Repo, paths []string, consequence string) []protocol.Diagnostic {
	if len(paths) == 0 {
		return nil
	}
	conv, err := t.d.Hub.Engine(rp).Converter()
	if err != nil {
		return nil
	}
	var files []status.Unconverted
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if what := conv.Unsupported(p); what != "" {
			files = append(files, status.Unconverted{Path: p, What: what})
		}
	}
	return unconvertedDiagnostics(files, consequence)
}

// unconvertedDiagnostics returns a warning naming files read or written
// without a conversion git would apply (up to maxNamedFiltered of them,
// each with what its attributes say) and consequence, or nothing when
// there are none.
func unconvertedDiagnostics(files []status.Unconverted, consequence string) []protocol.Diagnostic {
	if len(files) == 0 {
		return nil
	}
	named := make([]string, 0, min(len(files), maxNamedFiltered))
	for _, f := range files[:min(len(files), maxNamedFiltered)] {
		named = append(named, f.Path+" ("+f.What+")")
	}
	list := strings.Join(named, ", ")
	if len(files) > len(named) {
		list += fmt.Sprintf(" and %d more", len(files)-len(named))
	}
	return []protocol.Diagnostic{{Level: "warn", Message: fmt.Sprintf(
		"meith does not run clean/smudge filters (git-lfs) or apply ident and working-tree-encoding: %s; %s",
		list, consequence)}}
}

// diagnose adds diagnostics to the call's result.
func diagnose(call *registry.Call, ds []protocol.Diagnostic) {
	for _, d := range ds {
		call.Diagnose(d)
	}
}

// pathsOrPatch checks that exactly one of paths and patch is given and
// confines the paths; it returns nil paths for a patch.
func (t *tools) pathsOrPatch(rp *repo.Repo, paths []string, patch string) ([]string, error) {
	switch {
	case len(paths) > 0 && strings.TrimSpace(patch) != "":
		return nil, registry.InvalidArg("paths", "give either paths or patch, not both")
	case len(paths) == 0 && strings.TrimSpace(patch) == "":
		return nil, registry.InvalidArg("paths", "paths or patch is required.")
	case len(paths) == 0:
		return nil, nil
	}
	out := make([]string, 0, len(paths))
	for i, p := range paths {
		c, err := rp.Confine(p)
		if err != nil {
			return nil, registry.InvalidArg("paths."+strconv.Itoa(i), err.Error())
		}
		out = append(out, c)
	}
	return out, nil
}
