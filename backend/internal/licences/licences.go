// Package licences is the table of the libraries meith bundles and their
// licences, shown by app_about and Settings → About. The table
// (licences.json) is generated: `go generate ./backend/internal/licences`
// lists the Go modules linked into the desktop, dev and headless builds
// (their licence classified from the licence file in the module cache) and
// the frontend's production npm packages (from frontend/package-lock.json).
// A test fails when a linked module is missing from the table.
package licences

//go:generate go run ./gen

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Entry is one bundled library.
type Entry struct {
	// Name is the Go module path or the npm package name.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Licence is an SPDX identifier or "see licence file".
	Licence string `json:"licence"`
}

// Table is the generated table.
type Table struct {
	// Go are the Go modules linked into any meith build, by path.
	Go []Entry `json:"go"`
	// NPM are the npm packages in the window's bundle, by name.
	NPM []Entry `json:"npm"`
}

//go:embed licences.json
var tableJSON []byte

var (
	loadOnce sync.Once
	loaded   Table
	loadErr  error
)

// Load returns the generated table.
func Load() (Table, error) {
	loadOnce.Do(func() {
		if err := json.Unmarshal(tableJSON, &loaded); err != nil {
			loadErr = fmt.Errorf("decode the licence table (run go generate ./backend/internal/licences): %w", err)
		}
	})
	return loaded, loadErr
}

// GoModule returns the entry of the Go module path at version, if the table
// has it.
func (t Table) GoModule(path, version string) (Entry, bool) {
	for _, e := range t.Go {
		if e.Name == path && e.Version == version {
			return e, true
		}
	}
	return Entry{}, false
}
