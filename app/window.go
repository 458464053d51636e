package app

// window.go: the bound methods only the window has: the close question, the
// native folder and file pickers and the answers to approval prompts; and
// the focus of app_focus_window (not bound).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
)

// BeforeClose runs when the window is about to close (Wails OnBeforeClose)
// and returns true to keep it open. With the confirmOnClose setting on and
// work in flight — tool calls still running (from the window, the CLI or
// agents) or programs waiting for approval — it asks the user first; with
// nothing to lose it closes at once. A failing dialog never traps the user:
// the window closes.
func (a *App) BeforeClose(ctx context.Context) (prevent bool) {
	if a.quitting.Load() || a.store == nil || !a.store.Settings().ConfirmOnClose {
		return false
	}
	a.mu.Lock()
	ask := a.confirmQuit
	a.mu.Unlock()
	pending := 0
	if a.approvals != nil {
		pending = len(a.approvals.Pending())
	}
	question := quitQuestion(a.reg.InFlight(), pending)
	if ask == nil || question == "" {
		return false
	}
	quit, err := ask(ctx, "Quit meith?", question)
	if err != nil {
		return false
	}
	return !quit
}

// quitQuestion words the question BeforeClose asks, or "" when nothing is
// in flight.
func quitQuestion(calls, approvals int) string {
	var parts []string
	switch {
	case calls == 1:
		parts = append(parts, "1 tool call is still running")
	case calls > 1:
		parts = append(parts, fmt.Sprintf("%d tool calls are still running", calls))
	}
	switch {
	case approvals == 1:
		parts = append(parts, "1 program is waiting for your approval")
	case approvals > 1:
		parts = append(parts, fmt.Sprintf("%d programs are waiting for your approval", approvals))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + ". Quitting cancels them. Quit anyway?"
}

// OpenFolderDialog shows the native folder picker and returns the chosen
// folder's absolute path, or "" when the user cancels. The UI then opens the
// folder as a space with create_space {cwd}, which reuses the space that
// already has that folder.
func (a *App) OpenFolderDialog(title string) (string, error) {
	a.mu.Lock()
	ctx, pick, shut := a.wctx, a.pickFolder, a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return "", protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	case pick == nil || ctx == nil:
		return "", protocol.Errorf(protocol.CodeToolFailed, "no native folder dialog is available in this build")
	}
	if title == "" {
		title = "Open folder as a space"
	}
	dir, err := pick(ctx, title)
	if err != nil {
		return "", protocol.Errorf(protocol.CodeToolFailed, "folder dialog: %v", err)
	}
	return dir, nil
}

// FileFilter is one entry of the file dialog's type list: a name and its
// patterns separated by ";" ("Plugin archives", "*.tgz;*.tar.gz;*.tar").
type FileFilter struct {
	DisplayName string `json:"displayName"`
	Pattern     string `json:"pattern"`
}

// maxFileFilters bounds the filters of one [App.OpenFileDialog].
const maxFileFilters = 16

// OpenFileDialog shows the native file picker and returns the chosen
// file's absolute path, or "" when the user cancels. Filters narrow the
// files it offers (Settings → Plugins: plugin archives); the tool that gets
// the path checks the file itself, the filter is only a convenience.
func (a *App) OpenFileDialog(title string, filters []FileFilter) (string, error) {
	a.mu.Lock()
	ctx, pick, shut := a.wctx, a.pickFile, a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return "", protocol.Errorf(protocol.CodeRuntimeShuttingDown, "the window is closing")
	case pick == nil || ctx == nil:
		return "", protocol.Errorf(protocol.CodeToolFailed, "no native file dialog is available in this build")
	case len(filters) > maxFileFilters:
		return "", protocol.Errorf(protocol.CodeValidation, "at most %d file filters, got %d", maxFileFilters, len(filters))
	}
	if title == "" {
		title = "Choose a file"
	}
	path, err := pick(ctx, title, filters)
	if err != nil {
		return "", protocol.Errorf(protocol.CodeToolFailed, "file dialog: %v", err)
	}
	return path, nil
}

// PendingApprovals returns the privileged CLI calls waiting for the user,
// oldest first.
func (a *App) PendingApprovals() []permission.ApprovalRequest {
	if a.approvals == nil {
		return []permission.ApprovalRequest{}
	}
	return a.approvals.Pending()
}

// DecideApproval answers a pending approval with "allow_once",
// "allow_terminal", "allow_15_minutes", "allow_folder" (each only when the
// request offers it in its scopes), "allow_connection" or "deny". Errors read "CODE: message" so the frontend
// can type them.
func (a *App) DecideApproval(id, decision string) error {
	if a.approvals == nil {
		return protocol.Errorf(protocol.CodeValidation, "this runtime has no approval broker")
	}
	err := a.approvals.Decide(id, permission.Decision(decision))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, permission.ErrInvalidDecision):
		return protocol.Errorf(protocol.CodeValidation, "%v (want one of the request's scopes: allow_once, allow_terminal, allow_15_minutes, allow_folder, or deny)", err)
	case errors.Is(err, permission.ErrUnknownApproval):
		return protocol.Errorf(protocol.CodeValidation, "%v", err)
	default:
		return protocol.Errorf(protocol.CodeToolFailed, "%v", err)
	}
}

// focus shows, unminimises and raises the window, for app_focus_window
// (`meith` run again while the app runs). It fails while the window is not
// open (before Startup, after Shutdown) or in a build without one.
func (a *App) focus(ctx context.Context) error {
	a.mu.Lock()
	wctx, raise, shut := a.wctx, a.raiseWindow, a.shutdown
	a.mu.Unlock()
	switch {
	case shut:
		return errors.New("the window is closing")
	case raise == nil:
		return errors.New("this build has no window to focus")
	case wctx == nil:
		return errors.New("the window is not open yet")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	raise(wctx)
	return nil
}
