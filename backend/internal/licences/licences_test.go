package licences_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/internal/licences"
	"github.com/meith-dev/meith/backend/internal/licences/scan"
)

const regenerate = "run go generate ./backend/internal/licences and commit licences.json"

// TestTableCoversLinkedModules: every Go module linked into the desktop,
// dev or headless build is in the table with its version and licence, and
// the npm part matches frontend/package-lock.json, so a new dependency
// cannot be left out.
func TestTableCoversLinkedModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the linked modules")
	}
	table, err := licences.Load()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	mods, err := scan.LinkedModules(context.Background(), root, scan.Builds)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) == 0 {
		t.Fatal("go list found no linked modules")
	}
	var missing []string
	for _, m := range mods {
		e, ok := table.GoModule(m.Path, m.Version)
		if !ok {
			missing = append(missing, m.Path+"@"+m.Version)
			continue
		}
		if lic, err := scan.GoLicence(m.Dir); err == nil && lic != e.Licence {
			t.Errorf("%s: table says %s, its licence file %s; %s", m.Path, e.Licence, lic, regenerate)
		}
	}
	if len(missing) > 0 {
		t.Errorf("linked modules missing from the licence table: %s; %s", strings.Join(missing, ", "), regenerate)
	}
	if len(table.Go) != len(mods) {
		t.Errorf("the table has %d Go modules, the builds link %d; %s", len(table.Go), len(mods), regenerate)
	}
	npm, err := scan.NPMProduction(filepath.Join(root, "frontend", "package-lock.json"), "svelte")
	if err != nil {
		t.Fatal(err)
	}
	var want []licences.Entry
	for _, e := range npm {
		want = append(want, licences.Entry(e))
	}
	if !reflect.DeepEqual(table.NPM, want) {
		t.Errorf("the table's npm packages differ from frontend/package-lock.json; %s", regenerate)
	}
}
