//go:build desktop || dev || production || bindings

package app

// run.go is the only file of package app that imports Wails, and it is only
// compiled into window builds: `wails build` passes desktop (and production),
// `wails dev` dev, its binding generator bindings. The binding (binding.go)
// reaches the Wails runtime only through the emitter interface, so
// `go test ./app/` compiles without Wails, cgo or WebKitGTK.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	ossignal "os/signal"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname: Wails' own signal channel

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/frontend"
)

// wailsSignals is the channel Wails' signal handler (internal/signal, started
// by wails.Run) listens on; run stops its delivery so that a signal quits the
// window once, through quitOnSignal. (Wails is pinned in go.mod; a Wails
// without this variable fails the build here, not at run time.)
//
//go:linkname wailsSignals github.com/wailsapp/wails/v2/internal/signal.signalChannel
var wailsSignals chan os.Signal

// HasWindow is true in a build that opens a window (run_stub.go: false).
const HasWindow = true

// Main runs the desktop app: it starts the runtime (socket, config.json,
// instance record, audit), opens the window, and closes the runtime when the
// window closes or ctx ends (SIGINT/SIGTERM). It returns the exit code.
func Main(ctx context.Context, stderr io.Writer) int {
	if bindingsOnly {
		// `wails build` runs the binary built with -tags bindings to generate
		// wailsjs/; that run must not start a runtime.
		if err := run(ctx, New(registry.New(registry.Options{}), nil)); err != nil {
			fmt.Fprintf(stderr, "meith: %v\n", err)
			return 1
		}
		return 0
	}
	cfg, err := instance.ConfigFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "meith: %v\n", err)
		return 1
	}
	cfg.Desktop = true
	cfg.CaptureWindow = captureWindow
	cfg.WebKitVersion = webkitVersion()
	// The runtime exists before the window: app_focus_window reaches the
	// window once it is built.
	var win atomic.Pointer[App]
	cfg.FocusWindow = func(ctx context.Context) error {
		a := win.Load()
		if a == nil {
			return errors.New("the window is not open yet")
		}
		return a.focus(ctx)
	}
	inst, err := instance.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "meith: %v\n", err)
		return 1
	}
	if err := inst.Start(ctx); err != nil {
		_ = inst.Close(context.Background())
		if instance.IsAlreadyRunning(err) {
			fmt.Fprintf(stderr, "meith: %s\n", instance.AlreadyRunningHint(inst.Paths().UserData))
			return 1
		}
		fmt.Fprintf(stderr, "meith: %v\n", err)
		return 1
	}
	a := newWindowApp(inst)
	win.Store(a)
	runErr := run(ctx, a)
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := errors.Join(runErr, inst.Close(closeCtx)); err != nil {
		fmt.Fprintf(stderr, "meith: %v\n", err)
		return 1
	}
	return 0
}

// Run opens the window on a started runtime and blocks until the window
// closes or ctx ends. It does not close inst. While the window is open it
// hears of the runtime's changes through inst's change bus.
func Run(ctx context.Context, inst *instance.Instance) error { return run(ctx, newWindowApp(inst)) }

// newWindowApp is the binding of the window on inst.
func newWindowApp(inst *instance.Instance) *App {
	return New(inst.Registry(), inst.Approvals(), WithState(inst.State()), WithHints(inst.Hints()),
		WithBrowser(inst.Browser()), WithProcesses(inst.Processes()))
}

func run(ctx context.Context, a *App) error {
	a.newEmitter = func(wctx context.Context) emitter { return wailsEmitter{ctx: wctx} }
	a.pickFolder = func(wctx context.Context, title string) (string, error) {
		home, _ := os.UserHomeDir()
		return wruntime.OpenDirectoryDialog(wctx, wruntime.OpenDialogOptions{
			Title: title, DefaultDirectory: home, CanCreateDirectories: true,
		})
	}
	a.pickFile = func(wctx context.Context, title string, filters []FileFilter) (string, error) {
		home, _ := os.UserHomeDir()
		opts := wruntime.OpenDialogOptions{Title: title, DefaultDirectory: home}
		for _, f := range filters {
			opts.Filters = append(opts.Filters, wruntime.FileFilter{DisplayName: f.DisplayName, Pattern: f.Pattern})
		}
		return wruntime.OpenFileDialog(wctx, opts)
	}
	a.raiseWindow = func(wctx context.Context) {
		wruntime.WindowShow(wctx)
		wruntime.WindowUnminimise(wctx) // gtk_window_present: also raises it
	}
	a.confirmQuit = func(wctx context.Context, title, message string) (bool, error) {
		answer, err := wruntime.MessageDialog(wctx, wruntime.MessageDialogOptions{
			Type: wruntime.QuestionDialog, Title: title, Message: message,
		})
		return answer == "Yes", err
	}
	ready, ended := make(chan struct{}), make(chan struct{})
	defer close(ended)
	var readyOnce sync.Once
	a.onStartup = func(wctx context.Context) {
		// Wails quits the window on SIGINT/SIGTERM by itself too (its
		// signal.Start, before this runs), without waiting for the main loop
		// and alongside quitOnSignal's quit: two gtk_main_quit calls, the
		// second on a dead main loop from another thread — SIGSEGV, exit 2
		// (the e2e "backend restart" flake). quitOnSignal is the one quit.
		ossignal.Stop(wailsSignals)
		go quitOnSignal(ctx, ready, ended, a.base.Done(),
			func() { a.quitting.Store(true) }, // a signal ends the app: no "Quit meith?" question
			func() { wruntime.Quit(wctx) })
	}
	onDomReady := func(context.Context) { readyOnce.Do(func() { close(ready) }) }
	policy := gpuPolicy(os.Getenv("MEITH_GPU_POLICY"))
	if policy == linux.WebviewGpuPolicyNever && os.Getenv("WEBKIT_DISABLE_COMPOSITING_MODE") == "" {
		// The policy alone still lets WebKit composite layers (in software
		// when there is no GPU): the web process of this UI then takes
		// ~195 MB PSS instead of ~110 MB. The web process inherits this.
		_ = os.Setenv("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
	}
	// Bulk data is pulled through the asset server, never pushed as events:
	// the live browser view's frames are served under browser.FramePath,
	// the output of dev servers and terminals under process.OutputPath.
	// (The `-tags dev` server routes GETs it has no file for to this handler
	// as well, so the e2e tests in a plain browser get the same data.)
	assets := &assetserver.Options{Assets: frontend.Assets, Handler: a.bulkHandler()}
	return wails.Run(&options.App{
		Title:            "meith",
		Width:            1280,
		Height:           820,
		MinWidth:         640,
		MinHeight:        400,
		BackgroundColour: &options.RGBA{R: 15, G: 17, B: 23, A: 255},
		AssetServer:      assets,
		// Passing the methods themselves (not closures) also keeps Wails
		// from binding them to JavaScript.
		OnStartup:     a.Startup,
		OnShutdown:    a.Shutdown,
		OnBeforeClose: a.BeforeClose,
		OnDomReady:    onDomReady,
		Bind:          []any{a},
		Linux:         &linux.Options{ProgramName: "meith"},
	})
}

// gpuPolicy maps MEITH_GPU_POLICY ("never", "ondemand", "always") to the
// webview's hardware-acceleration policy. The default is never, like Wails'
// own default (wails#2977: blank windows on some GPU drivers): the UI is
// plain 2D, and WebKit's accelerated compositing (in software without a
// GPU) costs about 80 MB more in the web process. With never, run also
// turns off WebKit's compositing mode.
func gpuPolicy(v string) linux.WebviewGpuPolicy {
	switch v {
	case "ondemand":
		return linux.WebviewGpuPolicyOnDemand
	case "always":
		return linux.WebviewGpuPolicyAlways
	default:
		return linux.WebviewGpuPolicyNever
	}
}

// appIcon returns the window icon PNG (128 px; the 512 px appicon.png is
// for the desktop menu) from the embedded frontend, or nil when the
// frontend has not been built: the window then has the default icon.
func appIcon() []byte {
	b, err := fs.ReadFile(frontend.Assets, "dist/appicon-128.png")
	if err != nil {
		return nil
	}
	return b
}

// wailsEmitter emits Wails runtime events to the window.
type wailsEmitter struct{ ctx context.Context }

func (w wailsEmitter) Emit(name string, payload any) { wruntime.EventsEmit(w.ctx, name, payload) }
