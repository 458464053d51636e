package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/project/detect"
)

// TestMigrateToV3FromEveryVersion: files of versions 0, 1 and 2 (the
// fixtures of the older migration tests) come up through version 3 (to
// CurrentVersion) with an empty project list and spaces without a project,
// and are written that way.
func TestMigrateToV3FromEveryVersion(t *testing.T) {
	v1 := `{"version":1,"spaces":[{"id":"space_a","name":"A","color":"#000","projectId":null,"createdAt":1,"updatedAt":1}],
	"activeSpaceId":"space_a","browserTabs":[],"workspaceTabs":[{"id":"wtab_1","spaceId":"space_a","kind":"git","title":"Git","cwd":"/r","active":true,
	"terminalId":null,"activeFilePath":null,"openFilePaths":[],"selectedGitFilePath":null,"createdAt":1}],"settings":{}}`
	tests := []struct {
		name, content string
		from          int
	}{
		{"v0 empty object", `{}`, 0},
		{"v0 spaces without version", `{"spaces":[{"id":"space_a","name":"A","color":"#000"},{"id":"space_b","name":"B","color":"#111"}],"activeSpaceId":"space_b"}`, 0},
		{"v1", v1, 1},
		{"v2", doc(spaceJSON("space_a", "Alpha"), "space_a", wtabJSON("wtab_1", "space_a", "editor", true), ""), 2},
		{"v2 with a stray projectId", doc(`{"id":"space_a","name":"A","color":"#000","projectId":"proj_x"}`, "space_a", "", ""), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			s := open(t, path, Options{Debounce: -1})
			st := s.Get()
			if st.Version != CurrentVersion || st.Projects == nil || len(st.Projects) != 0 || s.Loaded().From != tt.from {
				t.Errorf("loaded version %d projects %v from %d; want %d, [], from %d", st.Version, st.Projects, s.Loaded().From, CurrentVersion, tt.from)
			}
			for _, sp := range st.Spaces {
				if sp.ProjectID != nil {
					t.Errorf("space %s has projectId %q, want null", sp.ID, *sp.ProjectID)
				}
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			var written struct {
				Version  int               `json:"version"`
				Projects *[]map[string]any `json:"projects"`
			}
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &written); err != nil || written.Version != CurrentVersion || written.Projects == nil || len(*written.Projects) != 0 {
				t.Errorf("written %s; want version %d and \"projects\": []", b, CurrentVersion)
			}
		})
	}
}

// addProject is an Update that adds a project in a new space.
func addProject(s *State, id, cwd string) *Project {
	sp := NewSpace(id, Palette[0], 1)
	s.Spaces = append(s.Spaces, sp)
	s.Projects = append(s.Projects, Project{ID: id, Name: id, Cwd: cwd, Kind: ProjectKindApp, SpaceID: sp.ID, OpenedAt: 1, UpdatedAt: 1})
	return &s.Projects[len(s.Projects)-1]
}

// TestProjectInvariants: Update sets the spaces' projectId from the
// projects and refuses what breaks the invariants, leaving the state as it
// was.
func TestProjectInvariants(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.json"), Options{})
	var changes []Change
	s.Subscribe(func(c Change) { changes = append(changes, c) })
	if err := s.Update(func(st *State) error { addProject(st, "proj_a", "/p/a"); return nil }); err != nil {
		t.Fatal(err)
	}
	st := s.Get()
	p := st.Project("proj_a")
	if p == nil || st.Space(p.SpaceID).ProjectID == nil || *st.Space(p.SpaceID).ProjectID != "proj_a" {
		t.Fatalf("after adding: %+v; want the space to name proj_a", st.Spaces)
	}
	if !slices.ContainsFunc(changes, func(c Change) bool { return c.Kind == ChangeProjects && slices.Contains(c.IDs, "proj_a") }) {
		t.Errorf("changes %+v, want a projects change naming proj_a", changes)
	}
	badRC := detect.RunConfig{Commands: []detect.RunCommand{{ID: "Bad ID", Command: "x"}}, DefaultCommandID: "Bad ID"}
	tooMany := func(st *State) error {
		for i := range MaxProjects {
			addProject(st, fmt.Sprintf("proj_%d", i), fmt.Sprintf("/p/%d", i))
		}
		return nil
	}
	refused := []struct {
		name string
		fn   func(st *State) error
		want string
	}{
		{"same folder", func(st *State) error { addProject(st, "proj_b", "/p/a"); return nil }, "same folder"},
		{"same space", func(st *State) error {
			p := addProject(st, "proj_b", "/p/b")
			p.SpaceID = st.Project("proj_a").SpaceID
			return nil
		}, "already holds project proj_a"},
		{"relative folder", func(st *State) error { addProject(st, "proj_b", "p/b"); return nil }, "absolute"},
		{"unknown kind", func(st *State) error { addProject(st, "proj_b", "/p/b").Kind = "library"; return nil }, "unknown kind"},
		{"bad run config", func(st *State) error { st.Project("proj_a").RunConfig = &badRC; return nil }, "commands[0].id"},
		{"too many", tooMany, "more than 500"},
		{"over-long name", func(st *State) error {
			st.Project("proj_a").Name = strings.Repeat("n", MaxNameLength+1)
			return nil
		}, "name is longer"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Get()
			err := s.Update(tt.fn)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Update = %v, want a refusal naming %q", err, tt.want)
			}
			a, _ := json.Marshal(s.Get())
			b, _ := json.Marshal(before)
			if string(a) != string(b) {
				t.Errorf("state changed by a refused update")
			}
		})
	}
	// Closing the project's space removes the record (the files are not
	// touched: the state never held them).
	changes = nil
	if err := s.Update(func(st *State) error {
		st.Spaces = slices.DeleteFunc(st.Spaces, func(sp Space) bool { return sp.ID == p.SpaceID })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := s.Get().Projects; len(got) != 0 {
		t.Errorf("projects after closing the space: %+v, want none", got)
	}
	if !slices.ContainsFunc(changes, func(c Change) bool { return c.Kind == ChangeProjects }) {
		t.Errorf("changes %+v, want a projects change", changes)
	}
}

// TestRepairProjects: a loaded version-3 file keeps its valid projects and
// drops or fixes the rest, keeping every space.
func TestRepairProjects(t *testing.T) {
	proj := func(id, cwd, space, extra string) string {
		return fmt.Sprintf(`{"id":%q,"name":"n","cwd":%q,"kind":"app","spaceId":%q,"detection":{"framework":"node"},"runConfig":null,"openedAt":1,"updatedAt":1%s}`,
			id, cwd, space, extra)
	}
	sp := func(id, project string) string {
		return fmt.Sprintf(`{"id":%q,"name":%q,"color":"#000","projectId":%s}`, id, id, project)
	}
	v3 := func(spaces, projects string) string {
		return fmt.Sprintf(`{"version":3,"spaces":[%s],"activeSpaceId":"space_a","browserTabs":[],"workspaceTabs":[],"projects":[%s],"settings":{}}`,
			spaces, projects)
	}
	tests := []struct {
		name, content, note string
		wantProjects        string // ids
		wantSpaceProject    map[string]string
	}{
		{"valid", v3(sp("space_a", `"proj_a"`), proj("proj_a", "/p/a", "space_a", "")), "", "[proj_a]", map[string]string{"space_a": "proj_a"}},
		{"dangling project", v3(sp("space_a", "null"), proj("proj_a", "/p/a", "space_gone", "")), "does not exist", "[]", map[string]string{"space_a": ""}},
		{"same folder", v3(sp("space_a", `"proj_a"`)+","+sp("space_b", `"proj_b"`), proj("proj_a", "/p/a", "space_a", "")+","+proj("proj_b", "/p/a", "space_b", "")),
			"folder of an earlier", "[proj_a]", map[string]string{"space_a": "proj_a", "space_b": ""}},
		{"same space", v3(sp("space_a", `"proj_a"`), proj("proj_a", "/p/a", "space_a", "")+","+proj("proj_b", "/p/b", "space_a", "")),
			"space of an earlier", "[proj_a]", map[string]string{"space_a": "proj_a"}},
		{"space names a missing project", v3(sp("space_a", `"proj_gone"`), ""), "corrected", "[]", map[string]string{"space_a": ""}},
		{"space without its projectId", v3(sp("space_a", "null"), proj("proj_a", "/p/a", "space_a", "")), "", "[proj_a]", map[string]string{"space_a": "proj_a"}},
		{"bad run config", v3(sp("space_a", `"proj_a"`), proj("proj_a", "/p/a", "space_a", "")[:len(proj("proj_a", "/p/a", "space_a", ""))-1]+
			`,"runConfig":{"commands":[{"id":"a","label":"a","command":""}],"defaultCommandId":"a","env":{}}}`), "run configurations", "[proj_a]",
			map[string]string{"space_a": "proj_a"}},
		{"relative folder", v3(sp("space_a", `"proj_a"`), proj("proj_a", "p/a", "space_a", "")), "absolute", "[]", map[string]string{"space_a": ""}},
		{"projects not a list", strings.Replace(v3(sp("space_a", "null"), ""), `"projects":[]`, `"projects":{}`, 1), "projects", "[]", map[string]string{"space_a": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			var logged []string
			s := open(t, path, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			st := s.Get()
			var ids []string
			for _, p := range st.Projects {
				ids = append(ids, p.ID)
			}
			if got := fmt.Sprint(ids); got != tt.wantProjects && !(got == "[]" && tt.wantProjects == "[]") {
				t.Errorf("projects %s, want %s", got, tt.wantProjects)
			}
			for id, want := range tt.wantSpaceProject {
				sp := st.Space(id)
				if sp == nil {
					t.Fatalf("space %s was dropped", id)
				}
				got := ""
				if sp.ProjectID != nil {
					got = *sp.ProjectID
				}
				if got != want {
					t.Errorf("space %s projectId %q, want %q", id, got, want)
				}
			}
			if tt.note != "" && !slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") && strings.Contains(l, tt.note) }) {
				t.Errorf("logged %q, want a repair note with %q", logged, tt.note)
			}
			if tt.note == "" && slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, "repaired") }) && tt.name == "valid" {
				t.Errorf("logged %q for a valid file", logged)
			}
		})
	}
}

// TestValidateRunConfig: each bound is refused with the field it names,
// never the value.
func TestValidateRunConfig(t *testing.T) {
	cmd := func(id, command string) detect.RunCommand {
		return detect.RunCommand{ID: id, Label: id, Command: command, IsDevServer: true}
	}
	many := make([]detect.RunCommand, MaxRunCommands+1)
	for i := range many {
		many[i] = cmd(fmt.Sprintf("c%d", i), "x")
	}
	bigEnv := map[string]string{}
	for i := range MaxRunEnvKeys + 1 {
		bigEnv[fmt.Sprintf("K%d", i)] = "v"
	}
	secret := "sekrit-value-" + strings.Repeat("s", MaxRunEnvValueLength)
	tests := []struct {
		name  string
		rc    detect.RunConfig
		field string // "" = valid
	}{
		{"empty", detect.RunConfig{}, ""},
		{"one", detect.RunConfig{Commands: []detect.RunCommand{cmd("dev", "npm run dev")}, DefaultCommandID: "dev", Env: map[string]string{"PORT": "3000"}}, ""},
		{"too many", detect.RunConfig{Commands: many, DefaultCommandID: "c0"}, "commands"},
		{"bad id", detect.RunConfig{Commands: []detect.RunCommand{cmd("Dev!", "x")}, DefaultCommandID: "Dev!"}, "commands[0].id"},
		{"long id", detect.RunConfig{Commands: []detect.RunCommand{cmd(strings.Repeat("a", 65), "x")}, DefaultCommandID: strings.Repeat("a", 65)}, "commands[0].id"},
		{"repeated id", detect.RunConfig{Commands: []detect.RunCommand{cmd("a", "x"), cmd("a", "y")}, DefaultCommandID: "a"}, "commands[1].id"},
		{"long label", detect.RunConfig{Commands: []detect.RunCommand{{ID: "a", Label: strings.Repeat("l", MaxRunLabelLength+1), Command: "x"}}, DefaultCommandID: "a"}, "commands[0].label"},
		{"empty command", detect.RunConfig{Commands: []detect.RunCommand{cmd("a", "")}, DefaultCommandID: "a"}, "commands[0].command"},
		{"long command", detect.RunConfig{Commands: []detect.RunCommand{cmd("a", strings.Repeat("x", MaxRunCommandLength+1))}, DefaultCommandID: "a"}, "commands[0].command"},
		{"default missing", detect.RunConfig{Commands: []detect.RunCommand{cmd("a", "x")}, DefaultCommandID: "b"}, "defaultCommandId"},
		{"default empty", detect.RunConfig{Commands: []detect.RunCommand{cmd("a", "x")}}, "defaultCommandId"},
		{"default without commands", detect.RunConfig{DefaultCommandID: "a"}, "defaultCommandId"},
		{"bad env key", detect.RunConfig{Env: map[string]string{"1PORT": "x"}}, "env"},
		{"too many env keys", detect.RunConfig{Env: bigEnv}, "env"},
		{"long env value", detect.RunConfig{Env: map[string]string{"TOKEN": secret}}, "env.TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateRunConfig(tt.rc)
			var rce *RunConfigError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("ValidateRunConfig = %v, want valid", err)
			case tt.field != "" && (!errors.As(err, &rce) || rce.Field != tt.field):
				t.Errorf("ValidateRunConfig = %v, want a RunConfigError on %s", err, tt.field)
			case err != nil && strings.Contains(err.Error(), "sekrit"):
				t.Errorf("error %q echoes a value", err)
			}
		})
	}
}
