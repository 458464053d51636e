// Command gen writes licences.json, the table of the libraries meith
// bundles (see package licences). go generate runs it in the licences
// package's directory.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/internal/licences"
	"github.com/meith-dev/meith/backend/internal/licences/scan"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "licences gen: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	mods, err := scan.LinkedModules(ctx, root, scan.Builds)
	if err != nil {
		return err
	}
	var t licences.Table
	for _, m := range mods {
		lic, err := scan.GoLicence(m.Dir)
		if err != nil {
			return fmt.Errorf("%s: %w (run go mod download)", m.Path, err)
		}
		t.Go = append(t.Go, licences.Entry{Name: m.Path, Version: m.Version, Licence: lic})
	}
	// The svelte compiler's runtime is compiled into the bundle.
	npm, err := scan.NPMProduction(filepath.Join(root, "frontend", "package-lock.json"), "svelte")
	if err != nil {
		return err
	}
	for _, e := range npm {
		t.NPM = append(t.NPM, licences.Entry(e))
	}
	out, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile("licences.json", append(out, '\n'), 0o644)
}
