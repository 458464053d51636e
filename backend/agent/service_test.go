package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/gittools"
)

// scriptAgent is the scripted ACP agent built once for the package.
var scriptAgent string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meith-agent-test")
	if err != nil {
		panic(err)
	}
	scriptAgent = filepath.Join(dir, "scriptagent")
	if out, err := exec.Command("go", "build", "-o", scriptAgent, "./testdata/scriptagent").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build the scripted agent: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a service with a real registry, permission service, MCP bridge,
// the git tools and two test tools, running the scripted agent.
type env struct {
	t        *testing.T
	svc      *agent.Service
	reg      *registry.Registry
	perms    *permission.Service
	bridge   *mcpbridge.Bridge
	dir      string
	settings state.AppSettings

	mu       sync.Mutex
	outcomes []registry.Outcome
	notes    []string
}

// NoteInput is the input of the test tools.
type NoteInput struct {
	Text string `json:"text"`
}

func newEnv(t *testing.T, agentArgs ...string) *env {
	t.Helper()
	return newEnvTTL(t, 0, agentArgs...)
}

// newEnvTTL is newEnv with the MCP tokens' idle lifetime.
func newEnvTTL(t *testing.T, tokenTTL time.Duration, agentArgs ...string) *env {
	t.Helper()
	return newEnvIdle(t, tokenTTL, 0, agentArgs...)
}

// newEnvIdle is newEnv with the MCP tokens' and the sessions' idle
// lifetimes.
func newEnvIdle(t *testing.T, tokenTTL, sessionTTL time.Duration, agentArgs ...string) *env {
	t.Helper()
	return newEnvPerms(t, tokenTTL, sessionTTL, permission.Options{}, agentArgs...)
}

// newEnvPerms is newEnvIdle with permission options (the agent gate is
// filled in).
func newEnvPerms(t *testing.T, tokenTTL, sessionTTL time.Duration, popts permission.Options, agentArgs ...string) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), settings: state.DefaultSettings()}
	var svc *agent.Service
	popts.AgentGate = func(ctx context.Context, req registry.AuthRequest) error {
		return svc.Gate(ctx, req)
	}
	e.perms = permission.New(popts)
	e.reg = registry.New(registry.Options{Authorizer: e.perms, Audit: func(o registry.Outcome) {
		e.mu.Lock()
		e.outcomes = append(e.outcomes, o)
		e.mu.Unlock()
	}})
	registry.Register(e.reg, registry.Tool{Name: "read_note", Description: "Read the notes.", Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		func(_ context.Context, _ *registry.Call, in NoteInput) (map[string]any, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			return map[string]any{"notes": slices.Clone(e.notes)}, nil
		})
	registry.Register(e.reg, registry.Tool{Name: "write_note", Description: "Write a note.", Capabilities: []protocol.Capability{protocol.CapWritesFiles}},
		func(_ context.Context, _ *registry.Call, in NoteInput) (map[string]any, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.notes = append(e.notes, in.Text)
			return map[string]any{"written": in.Text}, nil
		})
	hub := watch.NewHub(watch.Options{})
	t.Cleanup(func() { hub.Close() })
	gittools.Register(e.reg, gittools.Deps{Hub: hub, Settings: func() state.AppSettings { return e.settings }})
	e.bridge = mcpbridge.New(mcpbridge.Options{IdleTTL: tokenTTL})
	var err error
	svc, err = agent.New(agent.Options{
		Dir: filepath.Join(e.dir, "agent"), Registry: e.reg, Permissions: e.perms, Bridge: e.bridge,
		Settings: func() state.AppSettings { return e.settings },
		Logf: func(level protocol.LogLevel, format string, args ...any) {
			t.Logf("[%s] "+format, append([]any{level}, args...)...)
		},
		IdleTTL: sessionTTL,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		svc.Close(ctx)
		e.bridge.Close(ctx)
	})
	custom := agent.PresetCustom
	args := append([]string{}, agentArgs...)
	if _, err := svc.SetConfig(agent.ConfigPatch{Preset: &custom, Command: &scriptAgent, Args: &args}, true); err != nil {
		t.Fatal(err)
	}
	return e
}

// workdir returns a fresh folder for a session.
func (e *env) workdir() string {
	d := filepath.Join(e.dir, "work")
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
	return d
}

// send runs a message in the background and returns a channel of its
// result and the events it streamed.
type sent struct {
	res    agent.SendResult
	err    error
	events []protocol.Event
}

func (e *env) sendAsync(ctx context.Context, in agent.SendInput) <-chan sent {
	ch := make(chan sent, 1)
	go func() {
		var mu sync.Mutex
		var evs []protocol.Event
		res, err := e.svc.Send(ctx, in, func(ev protocol.Event) {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		})
		mu.Lock()
		ch <- sent{res, err, evs}
		mu.Unlock()
	}()
	return ch
}

func (e *env) send(in agent.SendInput) sent {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	select {
	case s := <-e.sendAsync(ctx, in):
		if s.err != nil {
			e.t.Fatalf("Send(%q): %v", in.Text, s.err)
		}
		return s
	case <-ctx.Done():
		e.t.Fatalf("Send(%q) did not end", in.Text)
	}
	return sent{}
}

// waitPending waits for a permission request of the session.
func (e *env) waitPending(id string) agent.PermissionRequest {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		v, err := e.svc.Transcript(id, 0)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(v.PendingPermissions) > 0 {
			return v.PendingPermissions[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("no permission request in session %s", id)
	return agent.PermissionRequest{}
}

func (e *env) lastAssistant(id string) agent.Message {
	e.t.Helper()
	v, err := e.svc.Transcript(id, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := len(v.Messages) - 1; i >= 0; i-- {
		if v.Messages[i].Role == agent.RoleAssistant {
			return v.Messages[i]
		}
	}
	e.t.Fatalf("no assistant message in %s", id)
	return agent.Message{}
}

func TestRunStreamsAnswerAndPersistsTranscript(t *testing.T) {
	e := newEnv(t)
	cwd := e.workdir()
	s := e.send(agent.SendInput{Cwd: cwd, SpaceID: "space_1", Text: "Fix the login crash\nthink looking at it\nsay hello from the agent"})
	if s.res.Status != agent.MessageDone || !strings.Contains(s.res.Text, "hello from the agent") {
		t.Fatalf("result %+v", s.res)
	}
	var streamed strings.Builder
	for _, ev := range s.events {
		if ev.Kind == protocol.EventPartialText {
			streamed.WriteString(ev.Text)
		}
	}
	if !strings.Contains(streamed.String(), "hello from the agent") {
		t.Errorf("partial_text events %q lack the answer", streamed.String())
	}
	id := s.res.SessionID
	sess, err := e.svc.Session(id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Title == agent.DefaultTitle || sess.Status != agent.StatusIdle || sess.Cwd != cwd || sess.SpaceID == nil || *sess.SpaceID != "space_1" {
		t.Errorf("session %+v", sess)
	}
	m := e.lastAssistant(id)
	var kinds []string
	for _, p := range m.Parts {
		kinds = append(kinds, p.Type)
	}
	if !slices.Contains(kinds, agent.PartThought) || !slices.Contains(kinds, agent.PartText) {
		t.Errorf("parts %v, want a thought and text", kinds)
	}

	// A second service on the same folder reads the same transcript.
	e2, err := agent.New(agent.Options{Dir: filepath.Join(e.dir, "agent"), Registry: e.reg, Permissions: e.perms, Bridge: e.bridge})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close(context.Background())
	v, err := e2.Transcript(id, 0)
	if err != nil || len(v.Messages) != 2 || v.Messages[0].Role != agent.RoleUser || !strings.Contains(v.Messages[1].Text(), "hello from the agent") {
		t.Fatalf("reloaded transcript %+v, %v", v.Messages, err)
	}
}

func TestToolCallsThroughTheBridgeAreGated(t *testing.T) {
	e := newEnv(t)
	cwd := e.workdir()
	// A read-only tool runs without asking, as caller agent with the session.
	s := e.send(agent.SendInput{Cwd: cwd, Text: `call read_note {"text":"x"}`})
	id := s.res.SessionID
	m := e.lastAssistant(id)
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "read_note" || m.ToolCalls[0].Status != agent.ToolCompleted || m.ToolCalls[0].Source != agent.SourceMeith {
		t.Fatalf("tool calls %+v", m.ToolCalls)
	}
	e.mu.Lock()
	var seen *registry.Outcome
	for i := range e.outcomes {
		if e.outcomes[i].ToolName == "read_note" {
			seen = &e.outcomes[i]
		}
	}
	e.mu.Unlock()
	if seen == nil || seen.Client.Caller != protocol.CallerAgent || seen.Client.SessionID != id || seen.Client.Cwd != cwd {
		t.Fatalf("read_note outcome %+v", seen)
	}

	// A privileged tool asks; allowed once, it runs.
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"first"}`})
	p := e.waitPending(id)
	if p.ToolName != "write_note" || p.Capability != protocol.CapWritesFiles || p.Action != "write files" || !strings.Contains(string(p.Args), "first") {
		t.Fatalf("permission request %+v", p)
	}
	if err := e.svc.Decide(id, p.ToolCallID, agent.DecisionAllow, false); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; r.err != nil || !strings.Contains(r.res.Text, "write_note: ok") {
		t.Fatalf("allowed run %+v %v", r.res, r.err)
	}
	if e.notes[0] != "first" {
		t.Fatalf("notes %v", e.notes)
	}
	// The one-use grant is spent: the next call asks again. Denied and
	// remembered, it fails; a third call is refused without asking.
	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"second"}`})
	p = e.waitPending(id)
	if err := e.svc.Decide(id, p.ToolCallID, agent.DecisionDeny, true); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; !strings.Contains(r.res.Text, "PERMISSION_DENIED") || !strings.Contains(r.res.Text, `User denied "write_note"`) {
		t.Fatalf("denied run text %q", r.res.Text)
	}
	s = e.send(agent.SendInput{SessionID: id, Text: `call write_note {"text":"third"}`})
	if !strings.Contains(s.res.Text, `was denied for this session`) {
		t.Fatalf("remembered deny text %q", s.res.Text)
	}
	if len(e.notes) != 1 {
		t.Fatalf("denied calls wrote notes: %v", e.notes)
	}
	m = e.lastAssistant(id)
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Status != agent.ToolDenied {
		t.Errorf("remembered deny tool call %+v", m.ToolCalls)
	}
	if err := e.svc.Decide(id, "call_nope", agent.DecisionAllow, false); !protocol.IsValidation(err) {
		t.Errorf("Decide(unknown) = %v, want VALIDATION_ERROR", err)
	}
}

func TestFullAccessRunsWithoutAsking(t *testing.T) {
	e := newEnv(t)
	sess, err := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	if err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := e.svc.Update(context.Background(), sess.ID, agent.UpdateInput{AutoAccept: &on}, false); !protocol.IsPermissionDenied(err) {
		t.Fatalf("an untrusted caller turned Full access on: %v", err)
	}
	if _, err := e.svc.Update(context.Background(), sess.ID, agent.UpdateInput{AutoAccept: &on}, true); err != nil {
		t.Fatal(err)
	}
	s := e.send(agent.SendInput{SessionID: sess.ID, Text: `call write_note {"text":"auto"}`})
	if !strings.Contains(s.res.Text, "write_note: ok") || len(e.notes) != 1 {
		t.Fatalf("full access run %q, notes %v", s.res.Text, e.notes)
	}
	// The grant was one use: nothing is left for the session.
	if g := e.perms.Grants(protocol.CallerAgent, sess.ID); len(g) != 0 {
		t.Errorf("grants left: %+v", g)
	}
}

func TestCancelEndsRunAndPendingPermission(t *testing.T) {
	e := newEnv(t)
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "say before\nsleep 60s\nsay after"})
	e.waitText(sess.ID, "before")
	if ok, err := e.svc.Cancel(sess.ID); !ok || err != nil {
		t.Fatalf("Cancel = %v, %v", ok, err)
	}
	select {
	case r := <-ch:
		if r.res.Status != agent.MessageCancelled || strings.Contains(r.res.Text, "after") {
			t.Fatalf("cancelled run %+v", r.res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end after Cancel")
	}
	if s, _ := e.svc.Session(sess.ID); s.Status != agent.StatusCancelled {
		t.Errorf("status %s", s.Status)
	}

	// A pending permission resolves as deny on cancel.
	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: `call write_note {"text":"never"}`})
	e.waitPending(sess.ID)
	e.svc.Cancel(sess.ID)
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end after Cancel")
	}
	if len(e.notes) != 0 {
		t.Fatalf("a cancelled approval ran the tool: %v", e.notes)
	}
	v, _ := e.svc.Transcript(sess.ID, 0)
	if len(v.PendingPermissions) != 0 {
		t.Errorf("pending left: %+v", v.PendingPermissions)
	}
	m := e.lastAssistant(sess.ID)
	if len(m.ToolCalls) != 1 || (m.ToolCalls[0].Status != agent.ToolDenied && m.ToolCalls[0].Status != agent.ToolCancelled) {
		t.Errorf("tool call after cancel %+v", m.ToolCalls)
	}
}

// waitText waits until the session's newest message (the live one of a
// run) contains text.
func (e *env) waitText(id, text string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(e.liveText(id), text) {
		if time.Now().After(deadline) {
			e.t.Fatalf("the run never said %q", text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) liveText(id string) string {
	v, err := e.svc.Transcript(id, 0)
	if err != nil || len(v.Messages) == 0 {
		return ""
	}
	return v.Messages[len(v.Messages)-1].Text()
}

func TestOneRunAtATime(t *testing.T) {
	e := newEnv(t)
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "say go\nsleep 60s"})
	e.waitText(sess.ID, "go")
	_, err := e.svc.Send(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "say again"}, nil)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Send = %v", err)
	}
	e.svc.Cancel(sess.ID)
	<-ch
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func TestCheckpointBeforeEveryRun(t *testing.T) {
	e := newEnv(t)
	cwd := e.workdir()
	gitInit(t, cwd)
	os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("work in progress\n"), 0o644)
	s := e.send(agent.SendInput{Cwd: cwd, Text: "Refactor parser module\nsay done"})
	list := e.checkpoints(cwd)
	if len(list) != 1 || list[0].SessionID != s.res.SessionID || list[0].Source != "agent-run" || list[0].Label != "Before agent run: Refactor Parser Module" {
		t.Fatalf("checkpoints %+v", list)
	}
	e.mu.Lock()
	var cp *registry.Outcome
	for i := range e.outcomes {
		if e.outcomes[i].ToolName == "git_checkpoint_create" {
			cp = &e.outcomes[i]
		}
	}
	e.mu.Unlock()
	if cp == nil || cp.Client.Caller != protocol.CallerInternal || cp.Client.SessionID != s.res.SessionID {
		t.Fatalf("checkpoint call %+v", cp)
	}
	// Off in Settings → Git: no checkpoint.
	e.settings.Git.CheckpointBeforeAgentRun = false
	e.send(agent.SendInput{SessionID: s.res.SessionID, Text: "say again"})
	if n := len(e.checkpoints(cwd)); n != 1 {
		t.Fatalf("%d checkpoints with the setting off", n)
	}
}

type cpInfo struct {
	ID, Label, Source, SessionID string
}

func (e *env) checkpoints(cwd string) []cpInfo {
	e.t.Helper()
	args, _ := json.Marshal(map[string]string{"cwd": cwd})
	res := e.reg.Call(context.Background(), registry.Request{ToolName: "git_checkpoint_list", Args: args,
		Client: protocol.ClientInfo{Caller: protocol.CallerInternal}})
	if !res.OK {
		e.t.Fatalf("git_checkpoint_list: %+v", res.Error)
	}
	var out []cpInfo
	if err := json.Unmarshal(res.Content, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func TestRefusesAgentWithoutHTTPMCP(t *testing.T) {
	e := newEnv(t, "--no-http-mcp")
	s := e.send(agent.SendInput{Cwd: e.workdir(), Text: "say hi"})
	if s.res.Status != agent.MessageError {
		t.Fatalf("status %s, want error", s.res.Status)
	}
	m := e.lastAssistant(s.res.SessionID)
	if m.Error == nil || !strings.Contains(m.Error.Message, "HTTP MCP") {
		t.Fatalf("error %+v", m.Error)
	}
	sess, _ := e.svc.Session(s.res.SessionID)
	if sess.Status != agent.StatusError || sess.LastError == "" {
		t.Errorf("session %+v", sess)
	}
}

func TestNoAgentConfigured(t *testing.T) {
	e := newEnv(t)
	none := agent.PresetNone
	if _, err := e.svc.SetConfig(agent.ConfigPatch{Preset: &none}, true); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Send(context.Background(), agent.SendInput{Cwd: e.workdir(), Text: "say hi"}, nil)
	if err == nil || !strings.Contains(err.Error(), "No ACP agent configured") {
		t.Fatalf("Send = %v", err)
	}
	_, _, err = e.svc.Complete(context.Background(), agent.CompleteInput{Prompt: "hi"})
	if err == nil || !strings.Contains(err.Error(), "No ACP agent configured") {
		t.Fatalf("Complete = %v", err)
	}
}

func TestDeleteRevokesAndRemoves(t *testing.T) {
	e := newEnv(t)
	s := e.send(agent.SendInput{Cwd: e.workdir(), Text: "say hi"})
	id := s.res.SessionID
	if !slices.Contains(e.bridge.Sessions(), id) {
		t.Fatalf("no MCP token for %s: %v", id, e.bridge.Sessions())
	}
	e.perms.Grant(permission.Grant{Caller: protocol.CallerAgent, SessionID: id, Capabilities: []protocol.Capability{protocol.CapWritesFiles}})
	if err := e.svc.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(e.bridge.Sessions(), id) {
		t.Error("the MCP token survived the session")
	}
	if g := e.perms.Grants(protocol.CallerAgent, id); len(g) != 0 {
		t.Errorf("grants survived: %+v", g)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "agent", "sessions", id+".jsonl")); !os.IsNotExist(err) {
		t.Errorf("transcript left: %v", err)
	}
	if _, err := e.svc.Session(id); !protocol.IsValidation(err) {
		t.Errorf("Session after delete = %v", err)
	}
}

func TestCompleteHasNoTools(t *testing.T) {
	e := newEnv(t)
	text, trunc, err := e.svc.Complete(context.Background(), agent.CompleteInput{Prompt: "say feat: add login\ntools"})
	if err != nil || trunc || !strings.Contains(text, "feat: add login") {
		t.Fatalf("Complete = %q, %v, %v", text, trunc, err)
	}
	if strings.Contains(text, "read_note") {
		t.Errorf("a completion saw meith's tools: %q", text)
	}
	text, trunc, err = e.svc.Complete(context.Background(), agent.CompleteInput{Prompt: "say " + strings.Repeat("abcdef ", 50), MaxChars: 40})
	if err != nil || !trunc || len(text) > 40 {
		t.Fatalf("Complete(maxChars 40) = %q, %v, %v", text, trunc, err)
	}
	if s := e.svc.Sessions("", ""); len(s) != 0 {
		t.Errorf("a completion left sessions: %+v", s)
	}
}

func TestAttachmentsAreStagedInTheSessionFolder(t *testing.T) {
	e := newEnv(t)
	cwd := e.workdir()
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: cwd})
	a, err := e.svc.StageAttachment(sess.ID, "../../notes.txt", "aGVsbG8=")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(a.Path) != filepath.Join(cwd, ".meith", "attachments") || a.Name != "notes.txt" || a.Size != 5 {
		t.Fatalf("attachment %+v", a)
	}
	if fi, _ := os.Stat(a.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	s := e.send(agent.SendInput{SessionID: sess.ID, Text: "say got it", Attachments: []agent.Attachment{a}})
	if s.res.Status != agent.MessageDone {
		t.Fatalf("run %+v", s.res)
	}
	_, err = e.svc.Send(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "x", Attachments: []agent.Attachment{{Name: "p", Path: "/etc/passwd"}}}, nil)
	if !protocol.IsValidation(err) {
		t.Fatalf("an attachment outside the staging folder: %v", err)
	}
	if _, err := e.svc.StageAttachment(sess.ID, "x", "!!"); !protocol.IsValidation(err) {
		t.Errorf("bad base64: %v", err)
	}
}

func TestCloseEndsAgentProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	e := newEnv(t)
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "say up\nsleep 60s"})
	e.waitText(sess.ID, "up")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ch:
		if r.res.Status != agent.MessageCancelled {
			t.Errorf("run after Close %+v", r.res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close left the run going")
	}
}

func TestExpiredTokenStartsAFreshAgent(t *testing.T) {
	e := newEnvTTL(t, 300*time.Millisecond)
	s := e.send(agent.SendInput{Cwd: e.workdir(), Text: `call read_note {"text":"x"}`})
	if !strings.Contains(s.res.Text, "read_note: ok") {
		t.Fatalf("first run %q", s.res.Text)
	}
	deadline := time.Now().Add(10 * time.Second)
	for slices.Contains(e.bridge.Sessions(), s.res.SessionID) {
		if time.Now().After(deadline) {
			t.Fatal("the idle token never expired")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The session's agent is still running, with a dead token: the next run
	// gets a fresh agent and token, and its tool calls work.
	s = e.send(agent.SendInput{SessionID: s.res.SessionID, Text: `call read_note {"text":"x"}`})
	if !strings.Contains(s.res.Text, "read_note: ok") {
		t.Fatalf("run after the token expired: %q", s.res.Text)
	}
}

// The text an agent writes before a tool call comes over ACP while the call
// comes over MCP; the transcript keeps the agent's order all the same.
func TestToolCallsKeepTheirPlaceInTheText(t *testing.T) {
	e := newEnv(t)
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	for i := range 10 {
		e.send(agent.SendInput{SessionID: sess.ID, Text: "say before the call, with more words to stream\n" +
			`call read_note {"text":"x"}` + "\nsay after the call"})
		m := e.lastAssistant(sess.ID)
		var got []string
		for _, p := range m.Parts {
			switch p.Type {
			case agent.PartTool:
				got = append(got, "tool")
			case agent.PartText:
				got = append(got, strings.TrimSpace(p.Text))
			}
		}
		want := []string{"before the call, with more words to stream", "tool", "read_note: ok\nafter the call"}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: parts %q, want %q", i, got, want)
		}
	}
}

func TestIdleSessionsLoseTheirAgentAndToken(t *testing.T) {
	e := newEnvIdle(t, 0, 400*time.Millisecond)
	s := e.send(agent.SendInput{Cwd: e.workdir(), Text: "say hi"})
	id := s.res.SessionID
	if !slices.Contains(e.bridge.Sessions(), id) {
		t.Fatal("no token after the run")
	}
	deadline := time.Now().Add(10 * time.Second)
	for slices.Contains(e.bridge.Sessions(), id) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session kept its MCP token")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// It comes back on the next message.
	s = e.send(agent.SendInput{SessionID: id, Text: `call read_note {"text":"x"}`})
	if !strings.Contains(s.res.Text, "read_note: ok") {
		t.Fatalf("run after idle GC: %q", s.res.Text)
	}
}

// The agent's own tools: edits and commands get the same card as meith's
// tools (remembered decisions too), its web tools are refused without
// asking, and Full access allows them.
func TestAgentsOwnToolsAreSettledLikeMeithTools(t *testing.T) {
	e := newEnv(t)
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "ask edit Edit main.go"})
	p := e.waitPending(sess.ID)
	if p.Source != agent.SourceAgent || p.Capability != protocol.CapWritesFiles || p.Action != "write files" || p.Title != "Edit main.go" {
		t.Fatalf("permission request %+v", p)
	}
	if err := e.svc.Decide(sess.ID, p.ToolCallID, agent.DecisionAllow, true); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; !strings.Contains(r.res.Text, "permission Edit main.go: allowed") {
		t.Fatalf("allowed: %q", r.res.Text)
	}
	m := e.lastAssistant(sess.ID)
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Source != agent.SourceAgent || m.ToolCalls[0].Decision != agent.DecisionAllow {
		t.Errorf("tool calls %+v", m.ToolCalls)
	}
	// Remembered for this tool: the next edit runs without a card; a
	// command still asks, and a web fetch is refused at once.
	s := e.send(agent.SendInput{SessionID: sess.ID, Text: "ask edit Edit main.go\nask fetch WebFetch"})
	if !strings.Contains(s.res.Text, "permission Edit main.go: allowed") || !strings.Contains(s.res.Text, "permission WebFetch: denied") {
		t.Fatalf("remembered and web: %q", s.res.Text)
	}
	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: "ask execute Run make"})
	p = e.waitPending(sess.ID)
	if p.Capability != protocol.CapStartsProcess || p.Action != "start a process" {
		t.Fatalf("command request %+v", p)
	}
	e.svc.Decide(sess.ID, p.ToolCallID, agent.DecisionDeny, false)
	if r := <-ch; !strings.Contains(r.res.Text, "permission Run make: denied") {
		t.Fatalf("denied: %q", r.res.Text)
	}
	// Full access: no card.
	on := true
	e.svc.Update(context.Background(), sess.ID, agent.UpdateInput{AutoAccept: &on}, true)
	s = e.send(agent.SendInput{SessionID: sess.ID, Text: "ask execute Run make"})
	if !strings.Contains(s.res.Text, "permission Run make: allowed") {
		t.Fatalf("full access: %q", s.res.Text)
	}
}

// A run started by a CLI connection acts with at most that connection's
// grants. On a runtime without a window (nobody can answer a card), what
// the connection lacks is denied at once with how to grant it — Full access
// included — instead of waiting for ever; what it holds runs without asking.
func TestCLIRunOnHeadlessRuntimeActsWithTheConnectionsGrants(t *testing.T) {
	e := newEnvPerms(t, 0, 0, permission.Options{CLIGrants: []protocol.Capability{protocol.CapWritesFiles}})
	registry.Register(e.reg, registry.Tool{Name: "run_thing", Description: "Start a process.", Capabilities: []protocol.Capability{protocol.CapStartsProcess}},
		func(_ context.Context, _ *registry.Call, _ registry.NoArgs) (string, error) { return "ran", nil })
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	on := true
	if _, err := e.svc.Update(context.Background(), sess.ID, agent.UpdateInput{AutoAccept: &on}, true); err != nil {
		t.Fatal(err)
	}
	cli := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:test"}
	s := e.send(agent.SendInput{SessionID: sess.ID, Origin: cli,
		Text: "call write_note {\"text\":\"granted\"}\ncall run_thing {}\nask execute Run make\nask edit Edit main.go"})
	for _, want := range []string{
		"write_note: ok",
		`Tool "run_thing" needs starts-process permission`,
		`meith serve --grant-cli starts-process`,
		"permission Run make: denied",
		"permission Edit main.go: allowed",
	} {
		if !strings.Contains(s.res.Text, want) {
			t.Errorf("run text lacks %q:\n%s", want, s.res.Text)
		}
	}
	if len(e.notes) != 1 || e.notes[0] != "granted" {
		t.Errorf("notes %v, want the granted write only", e.notes)
	}
	var told bool
	for _, ev := range s.events {
		told = told || ev.Kind == protocol.EventProgress && strings.Contains(ev.Message, "denied: Tool \"run_thing\"")
	}
	if !told {
		t.Error("the CLI's stream did not say what was denied")
	}
	// The same session driven from the window (renderer) keeps its Full access.
	s = e.send(agent.SendInput{SessionID: sess.ID, Origin: protocol.ClientInfo{Caller: protocol.CallerRenderer}, Text: "call run_thing {}"})
	if !strings.Contains(s.res.Text, "run_thing: ok") {
		t.Errorf("renderer run with Full access: %q", s.res.Text)
	}
}

// With a window open, what a CLI-started run lacks goes to the card:
// only the user's answer reaches beyond the connection's grants (not Full
// access).
func TestCLIRunWithAWindowAsksBeyondTheConnectionsGrants(t *testing.T) {
	approvals := permission.NewApprovals(permission.ApprovalsOptions{})
	detach := approvals.Attach()
	defer detach()
	e := newEnvPerms(t, 0, 0, permission.Options{Approvals: approvals})
	sess, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	on := true
	e.svc.Update(context.Background(), sess.ID, agent.UpdateInput{AutoAccept: &on}, true)
	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: sess.ID, Text: `call write_note {"text":"asked"}`,
		Origin: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:test"}})
	p := e.waitPending(sess.ID)
	if p.ToolName != "write_note" {
		t.Fatalf("permission request %+v", p)
	}
	if err := e.svc.Decide(sess.ID, p.ToolCallID, agent.DecisionAllow, false); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; !strings.Contains(r.res.Text, "write_note: ok") {
		t.Fatalf("allowed: %q", r.res.Text)
	}
}
