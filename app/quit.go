package app

import (
	"context"
	"time"
)

// quitWait bounds how long a quit asked for by a signal waits for the page
// to be up (the GTK main loop running) before it is sent anyway.
const quitWait = 10 * time.Second

// quitOnSignal ends the window when ctx ends (SIGINT/SIGTERM): it calls
// quit exactly once, and only when it can work and cannot harm.
//
//   - Not before the GTK main loop runs, where a quit is lost: it waits for
//     ready (the page's DOM is up, which the main loop delivered), at most
//     quitWait.
//   - Never after the window is gone: once ended is closed (the Wails run
//     returned) or closing is (Shutdown began), it does nothing. A second
//     quit while GTK is being torn down calls gtk_main_quit on a dead main
//     loop from another thread, and the process dies of SIGSEGV (exit 2,
//     the e2e "backend restart" flake).
//
// onQuit runs just before quit (the app marks that no "Quit meith?"
// question may be asked).
func quitOnSignal(ctx context.Context, ready, ended, closing <-chan struct{}, onQuit, quit func()) {
	select {
	case <-ctx.Done():
	case <-ended:
		return
	case <-closing:
		return
	}
	onQuit()
	wait := time.NewTimer(quitWait)
	defer wait.Stop()
	select {
	case <-ready:
	case <-wait.C:
	case <-ended:
		return
	case <-closing:
		return
	}
	quit()
}
