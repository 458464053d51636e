package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// withHints returns the option that gives the window a change bus fed by
// the engines in src, wired as the instance wires its own, and the bus.
func withHints(t *testing.T, src instance.HintSources) (Option, *hint.Bus) {
	t.Helper()
	bus := hint.New()
	stop := instance.PublishHints(bus, src)
	t.Cleanup(func() { stop(); bus.Close() })
	return WithHints(bus), bus
}

// flushHints waits until the window handled every hint published so far.
func flushHints(t *testing.T, bus *hint.Bus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := bus.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func isStateChanged(e emitted) bool { return e.name == EventStateChanged }

func TestStateChangesReachTheWindow(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	hints, bus := withHints(t, instance.HintSources{State: store})
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithState(store), hints)

	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil }); err != nil {
		t.Fatal(err)
	}
	e := em.waitFor(t, "state_changed", isStateChanged)
	if p, ok := e.payload.(hint.StateChanged); !ok || p.Kind != state.ChangeSettings || p.IDs == nil || len(p.IDs) != 0 {
		t.Errorf("state_changed payload = %#v, want kind settings and no ids", e.payload)
	}
	flushHints(t, bus)
	if n := em.count(isStateChanged); n != 1 {
		t.Errorf("one update emitted %d state_changed events, want 1", n)
	}

	var spaceID string
	if err := store.Update(func(s *state.State) error {
		s.Spaces[0].Name = "Renamed"
		spaceID = s.Spaces[0].ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "state_changed of spaces", func(e emitted) bool {
		p, ok := e.payload.(hint.StateChanged)
		return isStateChanged(e) && ok && p.Kind == state.ChangeSpaces && len(p.IDs) == 1 && p.IDs[0] == spaceID
	})
	b, _ := json.Marshal(e.payload)
	if string(b) != `{"kind":"settings","ids":[]}` {
		t.Errorf("state_changed JSON = %s, want {kind, ids} only", b)
	}

	// After Shutdown the bus has no subscriber from the window.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em // Shutdown drops the emitter; put it back to see that the subscription is gone too
	a.mu.Unlock()
	before := em.count(isStateChanged)
	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = false; return nil }); err != nil {
		t.Fatal(err)
	}
	flushHints(t, bus)
	if n := em.count(isStateChanged); n != before {
		t.Errorf("state_changed after Shutdown: %d events, want %d", n, before)
	}
}

func TestNoStateNoStateEvents(t *testing.T) {
	store, err := state.Open(filepath.Join(t.TempDir(), "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, em := startApp(t, newTestRegistry(t, nil), nil) // no WithState
	if err := store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if n := em.count(isStateChanged); n != 0 {
		t.Errorf("a binding without a store emitted %d state_changed events", n)
	}
}

func isLogsAppended(e emitted) bool { return e.name == EventLogsAppended }

func TestLogsAppendedIsThrottledAndSmall(t *testing.T) {
	logs, err := applog.Open(filepath.Join(t.TempDir(), "logs.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	hints, _ := withHints(t, instance.HintSources{Logs: logs})
	a, em := startApp(t, newTestRegistry(t, nil), nil, hints)

	// A burst of entries becomes one hint carrying the count, not the entries.
	for i := range 50 {
		logs.Logf(protocol.LevelInfo, "test", "entry %d", i)
	}
	e := em.waitFor(t, "logs_appended", isLogsAppended)
	if p, ok := e.payload.(hint.LogsAppended); !ok || p.Count != 50 {
		t.Errorf("logs_appended payload = %#v, want count 50", e.payload)
	}
	if b, _ := json.Marshal(e.payload); string(b) != `{"count":50}` {
		t.Errorf("logs_appended JSON = %s", b)
	}
	time.Sleep(2 * hint.LogsWindow)
	if n := em.count(isLogsAppended); n != 1 {
		t.Errorf("50 entries in a burst gave %d hints, want 1", n)
	}
	logs.Logf(protocol.LevelInfo, "test", "later")
	em.waitFor(t, "a second logs_appended", func(e emitted) bool {
		p, ok := e.payload.(hint.LogsAppended)
		return isLogsAppended(e) && ok && p.Count == 1
	})

	// After Shutdown nothing more is announced.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em
	a.mu.Unlock()
	before := em.count(isLogsAppended)
	logs.Logf(protocol.LevelInfo, "test", "after shutdown")
	time.Sleep(2 * hint.LogsWindow)
	if n := em.count(isLogsAppended); n != before {
		t.Errorf("logs_appended after Shutdown: %d, want %d", n, before)
	}
}

func TestGitChangesReachTheWindow(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	hub := watch.NewHub(watch.Options{Debounce: 5 * time.Millisecond})
	defer hub.Close()
	hints, _ := withHints(t, instance.HintSources{Git: hub})
	_, em := startApp(t, newTestRegistry(t, nil), nil, hints)
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	hub.Engine(r) // a git tool looked at the repository: it is watched
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := em.waitFor(t, "git_changed", func(e emitted) bool { return e.name == EventGitChanged })
	p, ok := e.payload.(hint.GitChanged)
	if !ok || p.Root != dir || p.Count != 1 {
		t.Errorf("git_changed payload = %#v, want root %s and count 1", e.payload, dir)
	}
}

func isProcessChanged(e emitted) bool { return e.name == EventProcessChanged }

func TestProcessChangedIsThrottledAndSmall(t *testing.T) {
	bus := hint.New()
	t.Cleanup(bus.Close)
	// The process engine's OnChange, as the instance wires it.
	notify := func(kind, id string) { bus.Publish(hint.ProcessChanged{Kind: kind, ID: id}) }
	notify("dev-server", "dev_early") // no window yet: dropped
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithHints(bus))

	// A burst of changes becomes one hint per process, after the throttle.
	for range 5 {
		notify("dev-server", "dev_1")
		notify("terminal", "term_1")
	}
	em.waitFor(t, "process_changed", isProcessChanged)
	time.Sleep(2 * hint.ProcessWindow)
	var got []hint.ProcessChanged
	em.mu.Lock()
	for _, e := range em.events {
		if isProcessChanged(e) {
			got = append(got, e.payload.(hint.ProcessChanged))
		}
	}
	em.mu.Unlock()
	want := []hint.ProcessChanged{{Kind: "dev-server", ID: "dev_1"}, {Kind: "terminal", ID: "term_1"}}
	if !slices.Equal(got, want) {
		t.Errorf("process_changed hints = %+v, want %+v", got, want)
	}
	if b, _ := json.Marshal(got[0]); string(b) != `{"kind":"dev-server","id":"dev_1"}` {
		t.Errorf("process_changed JSON = %s", b)
	}

	// Many processes at once: one hint to re-read everything.
	before := em.count(isProcessChanged)
	for i := range hint.MaxProcessHints + 3 {
		notify("dev-server", fmt.Sprintf("dev_%d", i))
	}
	time.Sleep(3 * hint.ProcessWindow)
	if n := em.count(isProcessChanged) - before; n != 1 {
		t.Fatalf("%d changes gave %d hints, want 1", hint.MaxProcessHints+3, n)
	}
	em.mu.Lock()
	last := em.events[len(em.events)-1].payload
	em.mu.Unlock()
	if last != (hint.ProcessChanged{}) {
		t.Errorf("the hint for many changes = %+v, want an empty one", last)
	}

	// After Shutdown nothing more is announced.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	a.mu.Lock()
	a.em = em
	a.mu.Unlock()
	before = em.count(isProcessChanged)
	notify("dev-server", "dev_late")
	time.Sleep(2 * hint.ProcessWindow)
	if n := em.count(isProcessChanged); n != before {
		t.Errorf("process_changed after Shutdown: %d, want %d", n, before)
	}
}

func isAgentChanged(e emitted) bool { return e.name == EventAgentChanged }

func TestAgentChangedIsThrottled(t *testing.T) {
	bus := hint.New()
	t.Cleanup(bus.Close)
	// The agent service's OnChange, as the instance wires it.
	notify := func(c agent.Change) { bus.Publish(hint.AgentChanged{SessionID: c.SessionID, Kind: c.Kind}) }
	notify(agent.Change{SessionID: "sess_early", Kind: agent.ChangeSessions}) // no window: dropped
	_, em := startApp(t, newTestRegistry(t, nil), nil, WithHints(bus))
	// A streaming answer's burst becomes one hint per session and kind.
	for range 50 {
		notify(agent.Change{SessionID: "sess_1", Kind: agent.ChangeTranscript})
	}
	notify(agent.Change{SessionID: "sess_1", Kind: agent.ChangePermission})
	em.waitFor(t, "agent_changed", isAgentChanged)
	time.Sleep(2 * hint.AgentWindow)
	var got []hint.AgentChanged
	em.mu.Lock()
	for _, e := range em.events {
		if isAgentChanged(e) {
			got = append(got, e.payload.(hint.AgentChanged))
		}
	}
	em.mu.Unlock()
	want := []hint.AgentChanged{{SessionID: "sess_1", Kind: agent.ChangeTranscript}, {SessionID: "sess_1", Kind: agent.ChangePermission}}
	if !slices.Equal(got, want) {
		t.Fatalf("agent_changed hints = %+v, want %+v", got, want)
	}
	if b, _ := json.Marshal(got[0]); string(b) != `{"sessionId":"sess_1","kind":"transcript"}` {
		t.Errorf("agent_changed JSON = %s", b)
	}
	// Many sessions at once: one empty hint.
	before := em.count(isAgentChanged)
	for i := range hint.MaxAgentHints + 5 {
		notify(agent.Change{SessionID: fmt.Sprintf("sess_%d", i), Kind: agent.ChangeSessions})
	}
	time.Sleep(3 * hint.AgentWindow)
	if n := em.count(isAgentChanged) - before; n != 1 {
		t.Fatalf("%d changes gave %d hints, want 1", hint.MaxAgentHints+5, n)
	}
}

func TestEveryHintIsForwardedAsTheEventOfItsTopic(t *testing.T) {
	bus := hint.New()
	t.Cleanup(bus.Close)
	_, em := startApp(t, newTestRegistry(t, nil), nil, WithHints(bus))
	for _, tc := range []struct {
		p     hint.Payload
		event string
		json  string
	}{
		{hint.StateChanged{Kind: "tabs", IDs: []string{"tab_1"}}, EventStateChanged, `{"kind":"tabs","ids":["tab_1"]}`},
		{hint.ApprovalsChanged{Kind: "pending", ID: "appr_1", Pending: 1}, EventApprovalsChanged, `{"kind":"pending","id":"appr_1","pending":1}`},
		{hint.GitChanged{Root: "/repo", Count: 3}, EventGitChanged, `{"root":"/repo","count":3}`},
		{hint.LogsAppended{Count: 1}, EventLogsAppended, `{"count":1}`},
		{hint.AuditAppended{Count: 2}, EventAuditAppended, `{"count":2}`},
		{hint.ProcessChanged{Kind: "terminal", ID: "term_1"}, EventProcessChanged, `{"kind":"terminal","id":"term_1"}`},
		{hint.AgentChanged{SessionID: "sess_1", Kind: "sessions"}, EventAgentChanged, `{"sessionId":"sess_1","kind":"sessions"}`},
		{hint.NewFilesChanged("/ws", []string{"a.txt"}), EventFilesChanged, `{"root":"/ws","paths":["a.txt"],"count":1}`},
	} {
		bus.Publish(tc.p)
		flushHints(t, bus)
		e := em.waitFor(t, tc.event, func(e emitted) bool { return e.name == tc.event })
		if b, _ := json.Marshal(e.payload); fmt.Sprintf("%T", e.payload) != fmt.Sprintf("%T", tc.p) || string(b) != tc.json {
			t.Errorf("%s: payload %#v (%s), want %#v (%s)", tc.event, e.payload, b, tc.p, tc.json)
		}
	}
}

// TestTheWindowKnowsEveryEvent ties the window's list of event names
// (Topics in frontend/src/lib/bridge/types.ts, written by hand) to the
// backend's: a topic a new family adds to backend/hint and the window does
// not name (or a name the backend no longer sends) fails here.
func TestTheWindowKnowsEveryEvent(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "frontend", "src", "lib", "bridge", "types.ts"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)export const Topics = \{(.*?)\} as const;`).FindSubmatch(src)
	if block == nil {
		t.Fatal("types.ts has no `export const Topics = { … } as const;`")
	}
	var got []string
	for _, m := range regexp.MustCompile(`:\s*'([a-z_]+)'`).FindAllSubmatch(block[1], -1) {
		got = append(got, string(m[1]))
	}
	want := append([]string{EventToolEvent, EventToolResult}, hint.Topics()...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("frontend Topics = %v, want %v (hint.Topics plus the tool events)", got, want)
	}
}
