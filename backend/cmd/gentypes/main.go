// Command gentypes writes the frontend's TypeScript types of meith's tools
// (frontend/src/lib/bridge/generated/tools.ts) from the tool registry: it
// builds the registry exactly as the runtime does (instance.New, in a
// temporary home and user data folder that it removes again; nothing
// listens and nothing starts) and renders, for every tool, the TypeScript
// of its Go input and output type (interfaces named after the Go types),
// the ToolName union and the ToolTypes map from tool name to {input,
// output}, which types the bridge's call.
//
// Run it through go generate (the directive is in frontend/embed.go):
//
//	go generate ./...
//
// or by hand: go run ./backend/cmd/gentypes -o <file>. scripts/test.sh
// fails when the committed file differs from what gentypes writes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/registry"
)

func main() {
	out := flag.String("o", "", "the file to write (default: standard output)")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	root, modPath, err := findModule(".")
	if err != nil {
		return err
	}
	var code []byte
	err = withRegistry(func(reg *registry.Registry) error {
		code, err = generate(toolsOf(reg), newGoSource(root, modPath))
		return err
	})
	if err != nil {
		return err
	}
	if out == "" {
		_, err := os.Stdout.Write(code)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := os.WriteFile(out, code, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}

// withRegistry builds the runtime's registry in a temporary home and user
// data folder, calls f with it, then closes the instance and removes the
// folder.
func withRegistry(f func(*registry.Registry) error) error {
	tmp, err := os.MkdirTemp("", "meith-gentypes-")
	if err != nil {
		return fmt.Errorf("temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	inst, err := instance.New(instance.Config{
		Home:     filepath.Join(tmp, "home"),
		UserData: filepath.Join(tmp, "data"),
		Label:    "gentypes",
	})
	if err != nil {
		return fmt.Errorf("build the registry: %w", err)
	}
	ferr := f(inst.Registry())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := inst.Close(ctx); err != nil && ferr == nil {
		return fmt.Errorf("close the instance: %w", err)
	}
	return ferr
}
