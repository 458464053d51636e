package state

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/meith-dev/meith/backend/project/detect"
)

// ProjectPrefix is the id prefix of projects ("proj_<12 hex>").
const ProjectPrefix = "proj"

// Project kinds ([Project.Kind]).
const (
	ProjectKindApp    = "app"
	ProjectKindPlugin = "plugin"
)

// ProjectKinds lists the valid project kinds.
var ProjectKinds = []string{ProjectKindApp, ProjectKindPlugin}

// Project is a folder opened as a project: its detection, its run
// configuration and the space it lives in (spaces and projects are 1:1).
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Cwd is the project folder, a real path (symlinks resolved).
	Cwd string `json:"cwd"`
	// Kind is app or plugin.
	Kind string `json:"kind"`
	// Detection is what the folder held when it was last detected.
	Detection detect.Detection `json:"detection"`
	// RunConfig is the user's run configuration; nil uses the one
	// detected (detect.DefaultRunConfig).
	RunConfig *detect.RunConfig `json:"runConfig"`
	// SpaceID is the project's space.
	SpaceID  string `json:"spaceId"`
	OpenedAt int64  `json:"openedAt"` // Unix milliseconds
	// UpdatedAt is the last change of the record (Unix milliseconds).
	UpdatedAt int64 `json:"updatedAt"`
	// Missing is set when listing a project whose folder no longer exists
	// (never stored).
	Missing bool `json:"missing,omitempty"`
}

// Bounds of projects and run configurations. Tools refuse more
// (ValidateRunConfig names the field); a loaded file is repaired.
const (
	// MaxProjects bounds the project records.
	MaxProjects = 500
	// MaxRunCommands bounds a run configuration's commands.
	MaxRunCommands = 50
	// MaxRunLabelLength bounds a run command's label.
	MaxRunLabelLength = 200
	// MaxRunCommandLength bounds a run command's command line.
	MaxRunCommandLength = 8000
	// MaxRunEnvKeys bounds a run configuration's environment.
	MaxRunEnvKeys = 100
	// MaxRunEnvValueLength bounds one environment value.
	MaxRunEnvValueLength = 8000
	// maxDetectionItems bounds each list of a stored detection.
	maxDetectionItems = 200
	// maxDetectionText bounds each string of a stored detection.
	maxDetectionText = 1000
)

var (
	runCommandIDPattern = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)
	envKeyPattern       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// RunConfigError is a run configuration outside its bounds: Field is the
// JSON path of the offending value ("commands[2].id", "env"), Msg says
// what is wrong without quoting the value.
type RunConfigError struct {
	Field string
	Msg   string
}

func (e *RunConfigError) Error() string { return e.Field + ": " + e.Msg }

// ValidateRunConfig checks a run configuration against its bounds: at most
// MaxRunCommands commands with unique ids of [a-z0-9-]{1,64}, labels up to
// MaxRunLabelLength, command lines of 1..MaxRunCommandLength characters,
// a default that is one of the ids (or "" with no commands), at most
// MaxRunEnvKeys env keys named like shell variables with values up to
// MaxRunEnvValueLength. The error is a *RunConfigError.
func ValidateRunConfig(rc detect.RunConfig) error {
	if len(rc.Commands) > MaxRunCommands {
		return &RunConfigError{"commands", fmt.Sprintf("has %d commands, at most %d are allowed", len(rc.Commands), MaxRunCommands)}
	}
	ids := map[string]bool{}
	for i, c := range rc.Commands {
		at := fmt.Sprintf("commands[%d]", i)
		switch {
		case !runCommandIDPattern.MatchString(c.ID):
			return &RunConfigError{at + ".id", "must be 1 to 64 characters of a-z, 0-9 and -"}
		case ids[c.ID]:
			return &RunConfigError{at + ".id", "repeats the id of an earlier command"}
		case overLong(c.Label, MaxRunLabelLength):
			return &RunConfigError{at + ".label", fmt.Sprintf("is longer than %d characters", MaxRunLabelLength)}
		case c.Command == "":
			return &RunConfigError{at + ".command", "is empty"}
		case overLong(c.Command, MaxRunCommandLength):
			return &RunConfigError{at + ".command", fmt.Sprintf("is longer than %d characters", MaxRunCommandLength)}
		}
		ids[c.ID] = true
	}
	if rc.DefaultCommandID == "" && len(rc.Commands) > 0 {
		return &RunConfigError{"defaultCommandId", "is empty; it must be the id of one of the commands"}
	}
	if rc.DefaultCommandID != "" && !ids[rc.DefaultCommandID] {
		return &RunConfigError{"defaultCommandId", "is not the id of one of the commands"}
	}
	if len(rc.Env) > MaxRunEnvKeys {
		return &RunConfigError{"env", fmt.Sprintf("has %d keys, at most %d are allowed", len(rc.Env), MaxRunEnvKeys)}
	}
	for _, k := range slices.Sorted(maps.Keys(rc.Env)) {
		if !envKeyPattern.MatchString(k) {
			return &RunConfigError{"env", "has a key that is not a variable name (letters, digits and _, not starting with a digit)"}
		}
		if overLong(rc.Env[k], MaxRunEnvValueLength) {
			return &RunConfigError{"env." + k, fmt.Sprintf("is longer than %d characters", MaxRunEnvValueLength)}
		}
	}
	return nil
}

// Project returns a pointer to the project with id in s, or nil.
func (s *State) Project(id string) *Project {
	for i := range s.Projects {
		if s.Projects[i].ID == id {
			return &s.Projects[i]
		}
	}
	return nil
}

// ProjectByCwd returns a pointer to the project of folder cwd, or nil.
func (s *State) ProjectByCwd(cwd string) *Project {
	for i := range s.Projects {
		if s.Projects[i].Cwd == cwd {
			return &s.Projects[i]
		}
	}
	return nil
}

// ProjectOfSpace returns a pointer to the project of a space, or nil.
func (s *State) ProjectOfSpace(spaceID string) *Project {
	for i := range s.Projects {
		if s.Projects[i].SpaceID == spaceID {
			return &s.Projects[i]
		}
	}
	return nil
}

// Clone returns a deep copy of p.
func (p Project) Clone() Project {
	c := p
	c.Detection = cloneDetection(p.Detection)
	if p.RunConfig != nil {
		rc := CloneRunConfig(*p.RunConfig)
		c.RunConfig = &rc
	}
	return c
}

// CloneRunConfig returns a deep copy of rc (nil lists and maps made empty).
func CloneRunConfig(rc detect.RunConfig) detect.RunConfig {
	c := rc
	c.Commands = slices.Clone(rc.Commands)
	if c.Commands == nil {
		c.Commands = []detect.RunCommand{}
	}
	c.Env = maps.Clone(rc.Env)
	if c.Env == nil {
		c.Env = map[string]string{}
	}
	return c
}

func cloneDetection(d detect.Detection) detect.Detection {
	c := d
	c.Stacks = emptyIfNil(slices.Clone(d.Stacks))
	c.Scripts = emptyIfNil(slices.Clone(d.Scripts))
	c.Commands = emptyIfNil(slices.Clone(d.Commands))
	c.Workspaces = emptyIfNil(slices.Clone(d.Workspaces))
	c.LikelyPort = clonePtr(d.LikelyPort)
	return c
}

func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ClampDetection cuts a detection to the bounds state.json keeps: at most
// 200 items per list, strings of at most 1,000 characters.
func ClampDetection(d *detect.Detection) {
	cut := func(s *string) { *s = truncate(*s, maxDetectionText) }
	for _, s := range []*string{&d.Name, &d.Framework, &d.Label, &d.PackageManager} {
		cut(s)
	}
	d.Stacks = d.Stacks[:min(len(d.Stacks), maxDetectionItems)]
	d.Scripts = d.Scripts[:min(len(d.Scripts), maxDetectionItems)]
	d.Commands = d.Commands[:min(len(d.Commands), maxDetectionItems)]
	d.Workspaces = d.Workspaces[:min(len(d.Workspaces), maxDetectionItems)]
	for i := range d.Stacks {
		cut(&d.Stacks[i])
	}
	for i := range d.Scripts {
		cut(&d.Scripts[i].Name)
		cut(&d.Scripts[i].Command)
	}
	for i := range d.Commands {
		c := &d.Commands[i]
		cut(&c.ID)
		cut(&c.Label)
		c.Command = truncate(c.Command, MaxRunCommandLength)
	}
	for i := range d.Workspaces {
		w := &d.Workspaces[i]
		cut(&w.Name)
		cut(&w.Framework)
		w.Dir = truncate(w.Dir, MaxPathLength)
	}
}

// NormalizeProjects keeps the projects and their spaces in step: a project
// whose space no longer exists is dropped (closing a project's space
// removes the record; the files stay), detections are cut to their bounds,
// and every space's ProjectID names the project bound to it (nil for
// none). [Store.Update] calls it after every change, so mutations only edit
// [State.Projects].
func (s *State) NormalizeProjects() {
	s.Projects = slices.DeleteFunc(s.Projects, func(p Project) bool { return s.Space(p.SpaceID) == nil })
	bySpace := map[string]string{}
	for i := range s.Projects {
		p := &s.Projects[i]
		ClampDetection(&p.Detection)
		p.Missing = false
		if _, taken := bySpace[p.SpaceID]; !taken {
			bySpace[p.SpaceID] = p.ID
		}
	}
	for i := range s.Spaces {
		sp := &s.Spaces[i]
		if id, ok := bySpace[sp.ID]; ok {
			if sp.ProjectID == nil || *sp.ProjectID != id {
				sp.ProjectID = &id
			}
		} else {
			sp.ProjectID = nil
		}
	}
}

// validateProjects checks the project invariants: at most MaxProjects; ids
// unique among all ids (checked by seen); a known kind; a non-empty
// absolute cwd, one project per cwd; an existing space, one project per
// space, whose ProjectID names it; names and folders within their bounds;
// a valid run configuration.
func (s *State) validateProjects(seen func(id, what string) error) error {
	if len(s.Projects) > MaxProjects {
		return fmt.Errorf("%d projects, more than %d", len(s.Projects), MaxProjects)
	}
	cwds := map[string]string{}
	spaces := map[string]string{}
	for _, p := range s.Projects {
		if err := seen(p.ID, "project"); err != nil {
			return err
		}
		if !slices.Contains(ProjectKinds, p.Kind) {
			return fmt.Errorf("project %s has unknown kind %q (app or plugin)", p.ID, p.Kind)
		}
		if p.Cwd == "" || !filepath.IsAbs(p.Cwd) {
			return fmt.Errorf("project %s has no absolute folder", p.ID)
		}
		if other, ok := cwds[p.Cwd]; ok {
			return fmt.Errorf("projects %s and %s have the same folder", other, p.ID)
		}
		cwds[p.Cwd] = p.ID
		sp := s.Space(p.SpaceID)
		if sp == nil {
			return fmt.Errorf("project %s is in space %q, which does not exist", p.ID, p.SpaceID)
		}
		if other, ok := spaces[p.SpaceID]; ok {
			return fmt.Errorf("space %s already holds project %s, so it cannot hold %s", p.SpaceID, other, p.ID)
		}
		spaces[p.SpaceID] = p.ID
		if sp.ProjectID == nil || *sp.ProjectID != p.ID {
			return fmt.Errorf("space %s does not name its project %s", sp.ID, p.ID)
		}
		if p.RunConfig != nil {
			if err := ValidateRunConfig(*p.RunConfig); err != nil {
				return fmt.Errorf("project %s run configuration: %w", p.ID, err)
			}
		}
	}
	for _, sp := range s.Spaces {
		if sp.ProjectID != nil && spaces[sp.ID] != *sp.ProjectID {
			return fmt.Errorf("space %s names a project that is not bound to it", sp.ID)
		}
	}
	return nil
}

// repairProjects fixes loaded project records: junk and over-the-bound
// records are dropped, as is a project whose space does not exist (the
// space is kept), the later of two projects with one folder or one space,
// one of an unknown kind or without an absolute folder; an invalid run
// configuration is reset to the detected one. ids are repaired by claim.
func (s *State) repairProjects(claim func(id *string, prefix, what string), rep *repairLog) {
	cwds := map[string]bool{}
	spaces := map[string]bool{}
	kept := s.Projects[:0]
	for _, p := range s.Projects {
		switch {
		case p.ID == "" && p.Cwd == "" && p.SpaceID == "":
			rep.add("empty project entries were dropped")
			continue
		case s.Space(p.SpaceID) == nil:
			rep.add("projects of a space that does not exist were dropped (their spaces are closed)")
			continue
		case !filepath.IsAbs(p.Cwd):
			rep.add("projects without an absolute folder were dropped")
			continue
		case cwds[p.Cwd]:
			rep.add("projects with the folder of an earlier project were dropped")
			continue
		case spaces[p.SpaceID]:
			rep.add("projects in the space of an earlier project were dropped")
			continue
		case len(kept) >= MaxProjects:
			rep.add(fmt.Sprintf("projects beyond %d were dropped", MaxProjects))
			continue
		}
		if p.Kind == "" {
			p.Kind = ProjectKindApp
		}
		if !slices.Contains(ProjectKinds, p.Kind) {
			rep.add("projects of an unknown kind were dropped")
			continue
		}
		claim(&p.ID, ProjectPrefix, "project")
		if p.Name == "" {
			p.Name = filepath.Base(p.Cwd)
		}
		if overLong(p.Name, MaxNameLength) {
			p.Name = truncate(p.Name, MaxNameLength)
			rep.add(fmt.Sprintf("project names longer than %d characters were shortened", MaxNameLength))
		}
		if overLong(p.Cwd, MaxPathLength) {
			rep.add(fmt.Sprintf("projects with folders longer than %d characters were dropped", MaxPathLength))
			continue
		}
		if p.RunConfig != nil && ValidateRunConfig(*p.RunConfig) != nil {
			p.RunConfig = nil
			rep.add("invalid run configurations of projects were reset to the detected ones")
		}
		cwds[p.Cwd] = true
		spaces[p.SpaceID] = true
		kept = append(kept, p)
	}
	s.Projects = kept
	before := make([]*string, len(s.Spaces))
	for i := range s.Spaces {
		before[i] = s.Spaces[i].ProjectID
	}
	s.NormalizeProjects()
	for i := range s.Spaces {
		if b, a := before[i], s.Spaces[i].ProjectID; b != nil && (a == nil || *a != *b) {
			rep.add("spaces naming a project that is not theirs were corrected")
		}
	}
}
