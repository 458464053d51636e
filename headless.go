//go:build headless

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/meith-dev/meith/backend/instance"
)

// runApp: this build has no window (no Wails, no cgo), so it runs the
// runtime as `meith serve` would.
func runApp(ctx context.Context) int {
	fmt.Fprintln(os.Stderr, "meith: this build has no GUI (built with -tags headless); running `meith serve`.")
	return instance.ServeMain(ctx, nil, os.Stdout, os.Stderr)
}
