package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps the CLI a thin client: besides the standard library it
// may import only the socket client, the protocol, discovery and buildinfo packages
// (and what they import from this module).
func TestImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/meith-dev/meith/"
	allowed := map[string]bool{
		mod + "backend/cli":                 true,
		mod + "backend/client":              true,
		mod + "backend/protocol":            true,
		mod + "backend/discovery":           true,
		mod + "backend/internal/buildinfo":  true,
		mod + "backend/internal/atomicfile": true, // through discovery
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !allowed[pkg] {
			t.Errorf("backend/cli depends on %s; it may only use backend/client, backend/protocol, backend/discovery (and its atomicfile), backend/internal/buildinfo and the standard library", pkg)
		}
	}
}
