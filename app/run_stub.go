//go:build !(desktop || dev || production || bindings)

package app

import (
	"context"
	"fmt"
	"io"
)

// HasWindow is false: this build opens no window (run.go: true).
const HasWindow = false

// Main reports that this binary has no window: it was built without the
// Wails build tags (see run.go).
func Main(_ context.Context, stderr io.Writer) int {
	fmt.Fprintln(stderr, "meith: this binary was built without a window. Build the desktop app with\n"+
		"  go build -tags desktop,production,webkit2_41 -o build/bin/meith .\n"+
		"or run the runtime headless with `meith serve`.")
	return 1
}
