package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meith-dev/meith/backend/state"
)

// TestFolder: a project folder must exist and be a folder; symlinks are
// resolved, so one folder has one path.
func TestFolder(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	os.Symlink(real, filepath.Join(dir, "link"))
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	cases := []struct {
		in, want, problem string
	}{
		{filepath.Join(dir, "real"), real, ""},
		{filepath.Join(dir, "link"), real, ""},
		{filepath.Join(dir, "missing"), "", "does not exist"},
		{filepath.Join(dir, "file"), "", "is not a folder"},
	}
	for _, c := range cases {
		got, err := Folder(c.in)
		var fe *FolderError
		switch {
		case c.problem == "" && (err != nil || got != c.want):
			t.Errorf("Folder(%s) = %q, %v; want %q", c.in, got, err, c.want)
		case c.problem != "" && (!IsFolder(err) || !asFolder(err, &fe) || fe.Problem != c.problem):
			t.Errorf("Folder(%s) = %v, want a FolderError %q", c.in, err, c.problem)
		}
	}
}

func asFolder(err error, fe **FolderError) bool {
	e, ok := err.(*FolderError)
	*fe = e
	return ok
}

// TestProjectAt: the project of a folder is the deepest project holding
// it; a sibling with a common prefix is not inside.
func TestProjectAt(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	root := t.TempDir()
	for _, d := range []string{"app", "app/packages/web", "app2"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	store.Update(func(s *state.State) error {
		for i, d := range []string{"app", "app/packages/web"} {
			sp := state.NewSpace(d, "#000", 1)
			s.Spaces = append(s.Spaces, sp)
			s.Projects = append(s.Projects, state.Project{ID: []string{"proj_app", "proj_web"}[i], Name: d, Kind: state.ProjectKindApp,
				Cwd: filepath.Join(root, d), SpaceID: sp.ID})
		}
		return nil
	})
	svc := New(Options{Store: store})
	for dir, want := range map[string]string{
		"app": "proj_app", "app/packages": "proj_app", "app/packages/web": "proj_web", "app2": "",
	} {
		p, ok := svc.ProjectAt(filepath.Join(root, dir))
		if got := map[bool]string{true: p.ID, false: ""}[ok]; got != want {
			t.Errorf("ProjectAt(%s) = %q, want %q", dir, got, want)
		}
	}
}
