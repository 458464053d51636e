//go:build !headless

package main

import (
	"context"
	"os"

	"github.com/meith-dev/meith/app"
	"github.com/meith-dev/meith/backend/cli"
)

// The CLI starts this executable as the app when it has a window.
func init() { cli.WindowBuild = app.HasWindow }

// runApp opens the desktop window on a fresh runtime. Build with
// -tags desktop,production,webkit2_41 (or `wails build`); without those tags
// app.Main is a stub that says the binary has no window.
func runApp(ctx context.Context) int { return app.Main(ctx, os.Stderr) }
