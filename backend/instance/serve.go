package instance

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
)

// ServeMain is `meith serve`: it runs the runtime in the foreground, with no
// window, until ctx ends (SIGINT/SIGTERM in main), then shuts down
// gracefully. args exclude "serve". It returns the process exit code.
func ServeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	grant := fs.String("grant-cli", "", "comma-separated capabilities every same-user CLI session may use\n(writes-files, controls-browser, starts-process, destructive)")
	label := fs.String("label", "", "instance label shown by `meith app list` (default: the user data dir's name)")
	quiet := fs.Bool("quiet", false, "do not mirror log entries to stderr")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: meith serve [--grant-cli caps] [--label L] [--quiet]\n\n"+
			"Runs the meith runtime without a window until interrupted (Ctrl+C or SIGTERM).\n"+
			"Paths: MEITH_HOME (default ~/.meith) and MEITH_USER_DATA (default ~/.config/meith).\n"+
			"Garbage collector: GOGC=400 with a soft memory limit of 1 GiB, unless GOGC or GOMEMLIMIT is set.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "meith serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg, err := ConfigFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "meith serve: %v\n", err)
		return 1
	}
	ApplyServeGC(os.Getenv)
	if *grant != "" {
		if cfg.GrantCLI, err = permission.ParseCapabilities(*grant); err != nil {
			fmt.Fprintf(stderr, "meith serve: --grant-cli: %v\n", err)
			return 2
		}
	}
	cfg.Label = *label
	if !*quiet {
		cfg.LogMirror = stderr
	}
	inst, err := New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "meith serve: %v\n", err)
		return 1
	}
	if err := inst.Start(ctx); err != nil {
		inst.Close(context.Background())
		if IsAlreadyRunning(err) {
			fmt.Fprintf(stderr, "meith serve: %s\n", AlreadyRunningHint(inst.Paths().UserData))
			return 1
		}
		fmt.Fprintf(stderr, "meith serve: %v\n", err)
		return 1
	}
	p := inst.Paths()
	fmt.Fprintf(stdout, "meith runtime %s serving (headless)\n  socket:    %s\n  user data: %s\n  home:      %s\n",
		buildinfo.Version, inst.SocketPath(), p.UserData, p.Home)
	if len(cfg.GrantCLI) > 0 {
		fmt.Fprintf(stdout, "  CLI grant: every same-user CLI session may use %s (operator policy from --grant-cli)\n", protocol.JoinCapabilities(cfg.GrantCLI, ", "))
	} else {
		fmt.Fprintf(stdout, "  CLI grant: none — privileged CLI calls are denied; restart with --grant-cli <caps> to allow them\n")
	}
	fmt.Fprintf(stdout, "Press Ctrl+C to stop.\n")

	<-ctx.Done()
	fmt.Fprintf(stdout, "shutting down…\n")
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inst.Close(closeCtx); err != nil {
		fmt.Fprintf(stderr, "meith serve: shutdown: %v\n", err)
		return 1
	}
	return 0
}
