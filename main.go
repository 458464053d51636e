// Command meith is one binary with three roles:
//
//	meith                 the desktop app (the headless build runs `serve`);
//	                      while meith runs, it focuses that instance's window
//	meith serve [flags]   the runtime without a window
//	meith <command> …     the CLI, talking to a running runtime's socket
//
// The desktop/headless split lives in desktop.go and headless.go (build tag
// "headless"); everything else is in app/ and backend/.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/meith-dev/meith/backend/cli"
	"github.com/meith-dev/meith/backend/instance"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string) int {
	switch {
	case len(args) == 0:
		if code, running := cli.Focus(ctx, cli.System()); running {
			return code
		}
		return runApp(ctx)
	case args[0] == "serve":
		return instance.ServeMain(ctx, args[1:], os.Stdout, os.Stderr)
	default:
		return cli.Main(ctx, args, cli.System())
	}
}
