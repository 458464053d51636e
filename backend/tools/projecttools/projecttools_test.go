package projecttools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/project"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/projecttools"
)

// harness is a registry with the project tools over a real state file, a
// real process engine and a temp projects folder.
type harness struct {
	t     *testing.T
	reg   *registry.Registry
	store *state.Store
	procs *process.Manager
	dir   string // the caller's cwd and where fixture folders go
	root  string // the projects folder
}

func setup(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	store, err := state.Open(filepath.Join(dir, "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	procs := process.New(process.Options{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := procs.Shutdown(ctx, true); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		store.Close()
	})
	root := filepath.Join(dir, "projects")
	svc := project.New(project.Options{Store: store, Procs: procs, Root: func() (string, error) { return root, nil }})
	t.Cleanup(func() { svc.Close() })
	reg := registry.New(registry.Options{})
	projecttools.Register(reg, projecttools.Deps{Projects: svc, Store: store})
	return &harness{t: t, reg: reg, store: store, procs: procs, dir: dir, root: root}
}

func (h *harness) call(tool, args string) protocol.ToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.reg.Call(ctx, registry.Request{ToolName: tool, Args: json.RawMessage(args), Timeout: 30 * time.Second,
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.dir}})
}

func (h *harness) ok(tool, args string, v any) protocol.ToolResult {
	h.t.Helper()
	res := h.call(tool, args)
	if !res.OK {
		h.t.Fatalf("%s(%s) = %+v", tool, args, res.Error)
	}
	if v != nil {
		if err := json.Unmarshal(res.Content, v); err != nil {
			h.t.Fatalf("%s content %s: %v", tool, res.Content, err)
		}
	}
	return res
}

// fails runs a tool that must fail with code and a message holding want.
func (h *harness) fails(tool, args string, code protocol.ErrorCode, want string) protocol.ToolResult {
	h.t.Helper()
	res := h.call(tool, args)
	if res.OK || res.Error.Code != code || !strings.Contains(res.Error.Message, want) {
		h.t.Errorf("%s(%s) = ok %v %+v, want %s containing %q", tool, args, res.OK, res.Error, code, want)
	}
	return res
}

const serverMJS = `import http from "node:http";
const s = http.createServer((req, res) => { res.end("hello from " + process.env.GREETING); });
s.listen(0, "127.0.0.1", () => console.log("Local: http://127.0.0.1:" + s.address().port + "/"));
`

// nodeApp writes a Node project whose dev script serves HTTP and prints
// its port.
func (h *harness) nodeApp(name string, files map[string]string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, name)
	all := map[string]string{
		"package.json": fmt.Sprintf(`{"name":%q,"scripts":{"dev":"node server.mjs","build":"true"}}`, name),
		"server.mjs":   serverMJS,
	}
	for k, v := range files {
		all[k] = v
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	for f, body := range all {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
	return dir
}

func jsonArg(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitPort waits (bounded) for the server to report its port.
func (h *harness) waitPort(id string) int {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, ok := h.procs.DevServer(id)
		if ok && d.Port != nil {
			return *d.Port
		}
		if !ok || time.Now().After(deadline) || d.Status == process.StatusExited || d.Status == process.StatusErrored {
			logs, _, _ := h.procs.Logs(id, 0, 0)
			h.t.Fatalf("dev server %s reported no port (status %s): %+v", id, d.Status, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEnded waits (bounded) for a server to end.
func (h *harness) waitEnded(id string) process.DevServer {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, _ := h.procs.DevServer(id)
		if d.Status == process.StatusExited || d.Status == process.StatusErrored || d.Status == process.StatusStopped {
			return d
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("dev server %s did not end (status %s)", id, d.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func get(t *testing.T, port int) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return string(b)
}

func TestToolsRegistered(t *testing.T) {
	h := setup(t)
	ro, wf, sp, net := protocol.CapReadOnly, protocol.CapWritesFiles, protocol.CapStartsProcess, protocol.CapAccessesNetwork
	want := map[string][]protocol.Capability{
		"project_list": {ro}, "project_detect": {ro}, "project_setup_detect": {ro}, "project_open": {wf},
		"project_start_dev_server": {sp, net}, "project_stop_dev_server": {sp}, "project_run": {sp, net},
		"project_set_run_config": {wf, sp}, "project_list_templates": {ro}, "project_create": {wf},
		"project_create_plugin": {wf}, "project_prewarm": {wf}, "project_prewarm_status": {ro},
		"project_allocate": {wf, sp, net}, "project_retry_dev_server": {sp, net},
	}
	if got := len(h.reg.Names()); got != len(want) {
		t.Errorf("registered %d tools (%v), want %d", got, h.reg.Names(), len(want))
	}
	for name, caps := range want {
		d, ok := h.reg.Describe(name)
		if !ok || !slices.Equal(d.Capabilities, caps) {
			t.Errorf("%s: registered %v, capabilities %v; want %v", name, ok, d.Capabilities, caps)
		}
	}
}

// TestOpenTwiceSameSpace: the same folder (also through a symlink) always
// returns its project and space, makes it active, and keeps one editor
// tab; the space names its project.
func TestOpenTwiceSameSpace(t *testing.T) {
	h := setup(t)
	dir := h.nodeApp("web", nil)
	var first, again project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": "web"}), &first) // relative to the caller's cwd
	if !first.Created || !strings.HasPrefix(first.Project.ID, "proj_") || first.Project.Cwd != dir || first.Space.Name != "web" ||
		first.Space.ProjectID == nil || *first.Space.ProjectID != first.Project.ID || first.WorkspaceTab.Kind != state.KindEditor ||
		first.Project.Detection.Framework != "node" || first.DevServer != nil {
		t.Fatalf("first open = %+v", first)
	}
	// Another space becomes active; opening again through a symlink goes back.
	h.store.Update(func(s *state.State) error { s.ActiveSpaceID = s.Spaces[0].ID; return nil })
	link := filepath.Join(h.dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	h.ok("project_open", jsonArg(map[string]any{"cwd": link}), &again)
	if again.Created || again.Project.ID != first.Project.ID || again.Space.ID != first.Space.ID || again.WorkspaceTab.ID != first.WorkspaceTab.ID {
		t.Errorf("second open = %+v, want the first project, space and tab", again)
	}
	st := h.store.Get()
	if st.ActiveSpaceID != first.Space.ID || len(st.Projects) != 1 || len(st.Spaces) != 2 {
		t.Errorf("state: active %s, %d projects, %d spaces; want %s, 1, 2", st.ActiveSpaceID, len(st.Projects), len(st.Spaces), first.Space.ID)
	}
	var list projecttools.ProjectsResult
	h.ok("project_list", `{}`, &list)
	if len(list.Projects) != 1 || list.Projects[0].ID != first.Project.ID || list.Projects[0].Missing {
		t.Errorf("project_list = %+v", list)
	}
	// The file on disk has the record (the tool waited for the write).
	b, _ := os.ReadFile(filepath.Join(h.dir, "state.json"))
	if !strings.Contains(string(b), first.Project.ID) {
		t.Errorf("state.json lacks the project")
	}
	// A vanished folder stays listed, marked missing.
	os.Remove(link)
	os.RemoveAll(dir)
	h.ok("project_list", `{}`, &list)
	if len(list.Projects) != 1 || !list.Projects[0].Missing || list.Projects[0].Detection.Framework != "unknown" {
		t.Errorf("project_list after removing the folder = %+v, want it missing", list)
	}
}

// TestOpenIntoOccupiedSpace: a new project cannot go into a space that
// holds another one; state is left as it was.
func TestOpenIntoOccupiedSpace(t *testing.T) {
	h := setup(t)
	a, b := h.nodeApp("a", nil), h.nodeApp("b", nil)
	var first project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": a}), &first)
	before, _ := os.ReadFile(filepath.Join(h.dir, "state.json"))
	h.fails("project_open", jsonArg(map[string]any{"cwd": b, "spaceId": first.Space.ID}), protocol.CodeToolFailed,
		"already holds project a")
	h.fails("project_open", jsonArg(map[string]any{"cwd": b, "spaceId": "space_nope"}), protocol.CodeToolFailed, "space_nope not found")
	if n := len(h.store.Get().Projects); n != 1 {
		t.Errorf("%d projects after refused opens, want 1", n)
	}
	h.store.Flush()
	if after, _ := os.ReadFile(filepath.Join(h.dir, "state.json")); string(after) != string(before) {
		t.Errorf("state.json changed by refused opens")
	}
	// An empty space can be bound.
	var sp state.Space
	h.store.Update(func(s *state.State) error {
		sp = state.NewSpace("Empty", "#000", 1)
		s.Spaces = append(s.Spaces, sp)
		return nil
	})
	var bound project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": b, "spaceId": sp.ID}), &bound)
	if bound.Space.ID != sp.ID || bound.Space.Cwd != b || bound.Project.SpaceID != sp.ID {
		t.Errorf("open into an empty space = %+v", bound)
	}
}

// TestBadInput: each bad argument gets VALIDATION_ERROR naming the field
// or TOOL_FAILED saying what to do, never echoing a value.
func TestBadInput(t *testing.T) {
	h := setup(t)
	file := filepath.Join(h.dir, "plain.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	missing := filepath.Join(h.dir, "nope")
	cases := []struct {
		tool, args string
		code       protocol.ErrorCode
		want       string
	}{
		{"project_detect", jsonArg(map[string]any{"cwd": missing}), protocol.CodeToolFailed, missing + " does not exist"},
		{"project_detect", jsonArg(map[string]any{"cwd": file}), protocol.CodeToolFailed, "is not a folder"},
		{"project_setup_detect", jsonArg(map[string]any{"cwd": missing}), protocol.CodeToolFailed, "does not exist"},
		{"project_open", jsonArg(map[string]any{"cwd": missing}), protocol.CodeToolFailed, "does not exist"},
		{"project_open", jsonArg(map[string]any{"cwd": h.dir, "kind": "library"}), protocol.CodeValidation, "kind"},
		{"project_run", `{"projectId":"proj_nope"}`, protocol.CodeToolFailed, "proj_nope not found"},
		{"project_start_dev_server", `{"projectId":""}`, protocol.CodeValidation, "projectId is required outside a project's folder"},
		{"project_stop_dev_server", `{"projectId":"proj_nope"}`, protocol.CodeToolFailed, "not found"},
		{"project_retry_dev_server", `{"projectId":"proj_nope","logTailLines":501}`, protocol.CodeValidation, "logTailLines"},
		{"project_create", `{"template":"mystery-secret-tpl"}`, protocol.CodeValidation, "template is not a template"},
		{"project_prewarm", `{"count":11}`, protocol.CodeValidation, "count"},
		{"project_set_run_config", `{"projectId":"proj_nope","runConfig":null}`, protocol.CodeToolFailed, "not found"},
	}
	for _, c := range cases {
		res := h.fails(c.tool, c.args, c.code, c.want)
		if res.Error != nil && strings.Contains(res.Error.Message, "mystery-secret") {
			t.Errorf("%s echoes the value: %s", c.tool, res.Error.Message)
		}
	}
}

// TestRunServesHTTP: project_run starts the default command (the dev
// script through npm, no lockfile) — here a real node server — with the
// project env; its record names the project and space; stop ends it.
func TestRunServesHTTP(t *testing.T) {
	h := setup(t)
	dir := h.nodeApp("web", nil)
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": dir}), &o)
	rc := map[string]any{"commands": []map[string]any{
		{"id": "serve", "label": "Serve", "command": "node server.mjs", "isDevServer": true},
		{"id": "echo", "label": "Echo", "command": `echo "greeting=$GREETING"`, "isDevServer": false},
	}, "defaultCommandId": "serve", "env": map[string]string{"GREETING": "meith"}}
	var p state.Project
	h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": rc}), &p)
	if p.RunConfig == nil || len(p.RunConfig.Commands) != 2 {
		t.Fatalf("set run config = %+v", p)
	}
	var run projecttools.RunResult
	h.ok("project_run", jsonArg(map[string]any{"projectId": o.Project.ID}), &run)
	if run.CommandID != "serve" || run.DevServer.ProjectID != o.Project.ID || run.DevServer.SpaceID != o.Space.ID || run.DevServer.Cwd != dir {
		t.Errorf("run = %+v", run)
	}
	port := h.waitPort(run.DevServer.ID)
	if body := get(t, port); body != "hello from meith" {
		t.Errorf("GET = %q, want the server's answer with the project env", body)
	}
	var other projecttools.RunResult
	h.ok("project_run", jsonArg(map[string]any{"projectId": o.Project.ID, "commandId": "echo"}), &other)
	h.waitEnded(other.DevServer.ID)
	logs, _, _ := h.procs.Logs(other.DevServer.ID, 0, 0)
	if len(logs) == 0 || logs[0].Text != "greeting=meith" {
		t.Errorf("echo logs %+v", logs)
	}
	res := h.fails("project_run", jsonArg(map[string]any{"projectId": o.Project.ID, "commandId": "nope"}), protocol.CodeValidation, "commandId")
	if d, _ := json.Marshal(res.Error.Details); !strings.Contains(string(d), `"path":"commandId"`) {
		t.Errorf("details %s, want the issue on commandId", d)
	}
	var stop projecttools.StopServersResult
	h.ok("project_stop_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID}), &stop)
	if !slices.Equal(stop.Stopped, []string{run.DevServer.ID}) {
		t.Errorf("stopped %v, want [%s]", stop.Stopped, run.DevServer.ID)
	}
	if d, _ := h.procs.DevServer(run.DevServer.ID); d.Status != process.StatusStopped {
		t.Errorf("status after stop %s", d.Status)
	}
	// null resets to the detected commands: the dev script through npm.
	h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": nil}), &p)
	if p.RunConfig != nil {
		t.Errorf("reset run config = %+v, want null", p.RunConfig)
	}
}

// TestStartDevServerPackageManager: without a lockfile the
// defaultPackageManager setting picks the package manager; with one, the
// lockfile does; a project with nothing to run is TOOL_FAILED.
func TestStartDevServerPackageManager(t *testing.T) {
	// pnpm and yarn stand-ins that stay up like a dev server (a command
	// that is not found fails the start: TestRunThatExitsAtOnceFails).
	bin := t.TempDir()
	for _, pm := range []string{"pnpm", "yarn"} {
		if err := os.WriteFile(filepath.Join(bin, pm), []byte("#!/bin/sh\necho \"stand-in $0 $*\"\nexec sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	h := setup(t)
	h.store.Update(func(s *state.State) error { s.Settings.DefaultPackageManager = "pnpm"; return nil })
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("nolock", nil)}), &o)
	var d process.DevServer
	h.ok("project_start_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID}), &d)
	if d.Command != "pnpm run dev" && d.Command != "pnpm dev" {
		t.Errorf("command %q, want pnpm's dev (the setting)", d.Command)
	}
	h.ok("project_start_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID, "script": "build"}), &d)
	if d.Command != "pnpm build" {
		t.Errorf("script command %q, want pnpm build", d.Command)
	}
	h.fails("project_start_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID, "script": "nope"}), protocol.CodeValidation, "script")
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("yarnapp", map[string]string{"yarn.lock": ""})}), &o)
	h.ok("project_start_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID}), &d)
	if d.Command != "yarn dev" {
		t.Errorf("command %q, want yarn dev (the lockfile)", d.Command)
	}
	empty := filepath.Join(h.dir, "empty")
	os.Mkdir(empty, 0o755)
	h.ok("project_open", jsonArg(map[string]any{"cwd": empty}), &o)
	h.fails("project_start_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID}), protocol.CodeToolFailed,
		"no dev or start command found in empty: add one in Settings → Run")
}

// TestRetryReturnsLogTail: a run command that exits at once; the retry
// returns its last lines and starts it again.
func TestRetryReturnsLogTail(t *testing.T) {
	h := setup(t)
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("broken", nil)}), &o)
	rc := map[string]any{"commands": []map[string]any{
		// Fails the first time only, so the retry runs.
		{"id": "dev", "label": "dev", "command": "if [ -e .ran ]; then node server.mjs; else touch .ran; echo line-one; echo boom-before-fail; exit 3; fi", "isDevServer": true},
	}, "defaultCommandId": "dev", "env": map[string]string{"GREETING": "retry"}}
	h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": rc}), nil)
	res := h.fails("project_run", jsonArg(map[string]any{"projectId": o.Project.ID}), protocol.CodeToolFailed, "exited with code 3 at once")
	var run projecttools.RunResult
	run.DevServer.ID, _ = res.Error.Details.(map[string]any)["devServerId"].(string)
	if d := h.waitEnded(run.DevServer.ID); d.ExitCode == nil || *d.ExitCode != 3 {
		t.Fatalf("first run ended %+v", d)
	}
	var retry projecttools.RetryResult
	h.ok("project_retry_dev_server", jsonArg(map[string]any{"projectId": o.Project.ID, "logTailLines": 2}), &retry)
	if !strings.Contains(retry.PreviousLogsTail, "boom-before-fail") || strings.Contains(retry.PreviousLogsTail, "line-one") {
		t.Errorf("tail %q, want the last 2 lines (boom-before-fail, the exit)", retry.PreviousLogsTail)
	}
	if retry.DevServer.ID == run.DevServer.ID || retry.DevServer.ProjectID != o.Project.ID {
		t.Errorf("retry server %+v, want a new one of the project", retry.DevServer)
	}
}

// TestAutoRunOnOpen: with the setting on, opening runs the default command
// unless startDevServer says false; a project with nothing to run still
// opens, with a diagnostic.
func TestAutoRunOnOpen(t *testing.T) {
	h := setup(t)
	h.store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil })
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("quiet", nil), "startDevServer": false}), &o)
	if o.DevServer != nil {
		t.Errorf("startDevServer false started %+v", o.DevServer)
	}
	dir := h.nodeApp("auto", map[string]string{"package-lock.json": "{}",
		"package.json": `{"name":"auto","scripts":{"dev":"node server.mjs"}}`})
	// npm is not what we test: the run config makes the dev command plain node.
	h.ok("project_open", jsonArg(map[string]any{"cwd": dir, "startDevServer": false}), &o)
	h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": map[string]any{
		"commands":         []map[string]any{{"id": "dev", "label": "dev", "command": "node server.mjs", "isDevServer": true}},
		"defaultCommandId": "dev", "env": map[string]string{"GREETING": "auto"}}}), nil)
	h.store.Update(func(s *state.State) error { s.ActiveSpaceID = s.Spaces[0].ID; return nil })
	h.ok("project_open", jsonArg(map[string]any{"cwd": dir}), &o)
	if o.DevServer == nil || o.DevServer.ProjectID != o.Project.ID {
		t.Fatalf("autoRunOnOpen: devServer %+v", o.DevServer)
	}
	if body := get(t, h.waitPort(o.DevServer.ID)); body != "hello from auto" {
		t.Errorf("GET = %q", body)
	}
	empty := filepath.Join(h.dir, "nothing")
	os.Mkdir(empty, 0o755)
	res := h.ok("project_open", jsonArg(map[string]any{"cwd": empty}), &o)
	if o.DevServer != nil || len(res.Diagnostics) == 0 || !strings.Contains(res.Diagnostics[0].Message, "no dev or start command") {
		t.Errorf("autoRun with nothing to run: %+v diagnostics %+v", o.DevServer, res.Diagnostics)
	}
}

// TestSetRunConfigValidation: every bound is a VALIDATION_ERROR whose
// issue names the field; values are never echoed; empty commands are
// dropped.
func TestSetRunConfigValidation(t *testing.T) {
	h := setup(t)
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("cfg", nil)}), &o)
	cmd := func(id, command string) map[string]any {
		return map[string]any{"id": id, "label": id, "command": command, "isDevServer": true}
	}
	many := []map[string]any{}
	for i := range state.MaxRunCommands + 1 {
		many = append(many, cmd(fmt.Sprintf("c%d", i), "x"))
	}
	secret := "ghp_" + strings.Repeat("A", 36)
	cases := []struct {
		name  string
		rc    map[string]any
		field string
	}{
		{"too many commands", map[string]any{"commands": many, "defaultCommandId": "c0", "env": map[string]string{}}, "runConfig.commands"},
		{"bad id", map[string]any{"commands": []any{cmd("Has Space", "x")}, "defaultCommandId": "Has Space", "env": map[string]string{}}, "runConfig.commands[0].id"},
		{"repeated id", map[string]any{"commands": []any{cmd("a", "x"), cmd("a", "y")}, "defaultCommandId": "a", "env": map[string]string{}}, "runConfig.commands[1].id"},
		{"long command", map[string]any{"commands": []any{cmd("a", strings.Repeat("x", 8001))}, "defaultCommandId": "a", "env": map[string]string{}}, "runConfig.commands[0].command"},
		{"unknown default", map[string]any{"commands": []any{cmd("a", "x")}, "defaultCommandId": "b", "env": map[string]string{}}, ""},
		{"bad env key", map[string]any{"commands": []any{}, "defaultCommandId": "", "env": map[string]string{"9" + secret: "v"}}, "runConfig.env"},
		{"long env value", map[string]any{"commands": []any{}, "defaultCommandId": "", "env": map[string]string{"TOKEN": secret + strings.Repeat("x", 8000)}}, "runConfig.env.TOKEN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := h.call("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": c.rc}))
			if c.field == "" { // an unknown default falls back to the first dev server command
				var p state.Project
				if !res.OK || json.Unmarshal(res.Content, &p) != nil || p.RunConfig == nil || p.RunConfig.DefaultCommandID != "a" {
					t.Errorf("= %+v, want ok with default a", res)
				}
				return
			}
			details, _ := json.Marshal(res.Error)
			if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(string(details), `"path":"`+c.field+`"`) {
				t.Errorf("= %s, want VALIDATION_ERROR on %s", details, c.field)
			}
			if strings.Contains(string(details), secret) {
				t.Errorf("the error echoes a value: %s", details)
			}
		})
	}
	var p state.Project
	h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": map[string]any{
		"commands": []any{cmd("a", ""), cmd("b", "echo b")}, "defaultCommandId": "a", "env": map[string]string{}}}), &p)
	if p.RunConfig == nil || len(p.RunConfig.Commands) != 1 || p.RunConfig.Commands[0].ID != "b" || p.RunConfig.DefaultCommandID != "b" {
		t.Errorf("empty command not dropped: %+v", p.RunConfig)
	}
}

// TestCreateAndAllocate: project_create writes an app that really starts
// and answers; names never collide; open:false opens nothing; the prewarm
// buffer hands out a ready project.
func TestCreateAndAllocate(t *testing.T) {
	h := setup(t)
	var tpl projecttools.TemplatesResult
	h.ok("project_list_templates", `{}`, &tpl)
	if len(tpl.Templates) < 2 {
		t.Fatalf("templates %+v", tpl)
	}
	var c project.CreateResult
	h.ok("project_create", `{"template":"app-basic","name":"My App","startDevServer":true}`, &c)
	if c.Cwd != filepath.Join(h.root, "my-app") || c.Project == nil || c.Space == nil || c.DevServer == nil {
		t.Fatalf("create = %+v", c)
	}
	// The generated app's dev script runs through npm; the server answers.
	if body := get(t, h.waitPort(c.DevServer.ID)); body == "" {
		t.Errorf("the generated app answered nothing")
	}
	h.ok("project_create", `{"template":"app-basic","name":"My App","open":false}`, &c)
	if c.Cwd != filepath.Join(h.root, "my-app-2") || c.Project != nil || c.Space != nil {
		t.Errorf("second create = %+v, want my-app-2 and nothing opened", c)
	}
	h.ok("project_create_plugin", `{"name":"Plug"}`, &c)
	if c.Project == nil || c.Project.Kind != state.ProjectKindPlugin {
		t.Errorf("create plugin = %+v", c)
	}
	var pre projecttools.PrewarmResult
	h.ok("project_prewarm", `{"count":1}`, &pre)
	var st projecttools.PrewarmStatusResult
	h.ok("project_prewarm_status", `{}`, &st)
	if pre.Ready != 1 || st.Ready != 1 || st.Root != h.root {
		t.Errorf("prewarm %+v status %+v", pre, st)
	}
	h.ok("project_allocate", `{"name":"Fast","startDevServer":false}`, &c)
	if !c.FromBuffer || c.Cwd != filepath.Join(h.root, "fast") || c.Project == nil || c.DevServer != nil {
		t.Errorf("allocate = %+v", c)
	}
}

// TestOpenWithServerNeedsStartsProcess: project_open and project_create
// declare writes-files, but starting a dev server through them (asked
// for, or by autoRunOnOpen) needs what project_start_dev_server needs. A
// CLI allowed to write files only (the real permission service, meith
// serve --grant-cli writes-files) opens a project, but is refused the
// server — and no process starts.
func TestOpenWithServerNeedsStartsProcess(t *testing.T) {
	h := setup(t)
	perms := permission.New(permission.Options{CLIGrants: []protocol.Capability{protocol.CapWritesFiles}})
	reg := registry.New(registry.Options{Authorizer: perms})
	svc := project.New(project.Options{Store: h.store, Procs: h.procs, Root: func() (string, error) { return h.root, nil }})
	t.Cleanup(func() { svc.Close() })
	projecttools.Register(reg, projecttools.Deps{Projects: svc, Store: h.store})
	cli := func(tool string, args any) protocol.ToolResult {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return reg.Call(ctx, registry.Request{ToolName: tool, Args: json.RawMessage(jsonArg(args)), Timeout: 30 * time.Second,
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1", Cwd: h.dir}})
	}
	app := h.nodeApp("guarded", nil)
	for _, tc := range []struct {
		name    string
		autoRun bool
		tool    string
		args    map[string]any
		denied  bool
	}{
		{"open", false, "project_open", map[string]any{"cwd": app}, false},
		{"open, startDevServer false", true, "project_open", map[string]any{"cwd": app, "startDevServer": false}, false},
		{"open, startDevServer", false, "project_open", map[string]any{"cwd": app, "startDevServer": true}, true},
		{"open, autoRunOnOpen", true, "project_open", map[string]any{"cwd": app}, true},
		{"create, not opened", true, "project_create", map[string]any{"template": "app-basic", "name": "quiet", "open": false}, false},
		{"create, startDevServer", false, "project_create", map[string]any{"template": "app-basic", "name": "loud", "startDevServer": true}, true},
		{"create, autoRunOnOpen", true, "project_create", map[string]any{"template": "app-basic", "name": "auto"}, true},
	} {
		h.store.Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = tc.autoRun; return nil })
		res := cli(tc.tool, tc.args)
		switch {
		case tc.denied && (res.OK || res.Error.Code != protocol.CodePermissionDenied || !strings.Contains(res.Error.Message, "starts-process")):
			t.Errorf("%s: %s = ok %v %+v, want PERMISSION_DENIED naming starts-process", tc.name, tc.tool, res.OK, res.Error)
		case !tc.denied && !res.OK:
			t.Errorf("%s: %s = %+v, want ok", tc.name, tc.tool, res.Error)
		}
		if n := len(h.procs.DevServers()); n != 0 {
			t.Fatalf("%s: %d dev servers started, want none", tc.name, n)
		}
	}
}

// TestRunThatExitsAtOnceFails: a run command that fails within the start
// grace is TOOL_FAILED naming the exit code and its last output line, with
// the server's id, exit code and log tail in the details; the server stays
// listed (exited, with its code). A command that keeps running without a port answers
// ok once the grace is over; one that prints its port answers at once.
func TestRunThatExitsAtOnceFails(t *testing.T) {
	h := setup(t)
	var o project.OpenResult
	h.ok("project_open", jsonArg(map[string]any{"cwd": h.nodeApp("typo", nil)}), &o)
	set := func(cmd string) {
		rc := map[string]any{"commands": []map[string]any{{"id": "dev", "label": "dev", "command": cmd, "isDevServer": true}},
			"defaultCommandId": "dev", "env": map[string]string{"GREETING": "typo"}}
		h.ok("project_set_run_config", jsonArg(map[string]any{"projectId": o.Project.ID, "runConfig": rc}), nil)
	}

	set("vitee --port 5173")
	for _, tool := range []string{"project_run", "project_start_dev_server"} {
		res := h.fails(tool, jsonArg(map[string]any{"projectId": o.Project.ID}), protocol.CodeToolFailed, "exited with code 127 at once")
		if !strings.Contains(res.Error.Message, "not found") {
			t.Errorf("%s: message %q, want the shell's last line (not found)", tool, res.Error.Message)
		}
		d, _ := res.Error.Details.(map[string]any)
		id, _ := d["devServerId"].(string)
		if srv, ok := h.procs.DevServer(id); !ok || srv.Status != process.StatusExited || d["exitCode"] != 127 && d["exitCode"] != float64(127) {
			t.Errorf("%s: details %v, server %+v ok %v; want the ended server and exit code 127", tool, d, srv, ok)
		}
		if tail, _ := d["logsTail"].(string); !strings.Contains(tail, "vitee") {
			t.Errorf("%s: logsTail %q, want the shell's complaint", tool, tail)
		}
	}

	set("sleep 30")
	start := time.Now()
	var run projecttools.RunResult
	h.ok("project_run", jsonArg(map[string]any{"projectId": o.Project.ID}), &run)
	if waited := time.Since(start); waited < project.StartGrace/2 || run.DevServer.Status != process.StatusRunning {
		t.Errorf("a quiet server: ok after %v with status %s, want running after about %v", waited, run.DevServer.Status, project.StartGrace)
	}

	set("node server.mjs")
	h.ok("project_run", jsonArg(map[string]any{"projectId": o.Project.ID}), &run)
	if run.DevServer.Port == nil {
		t.Errorf("a server that prints its port: %+v, want its port in the answer", run.DevServer)
	}
}

// TestBrokenPackageJSONIsAWarning: a folder whose package.json is not
// valid JSON still opens (the file can be fixed in the editor), and
// project_detect and project_open say what is wrong with it as a warning;
// a healthy folder gets no such warning.
func TestBrokenPackageJSONIsAWarning(t *testing.T) {
	h := setup(t)
	broken := filepath.Join(h.dir, "broken")
	os.Mkdir(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "package.json"), []byte("{\n  \"name\": \"broken\",\n  \"scripts\": {\n"), 0o644)
	warned := func(res protocol.ToolResult) bool {
		for _, d := range res.Diagnostics {
			if d.Level == "warn" && strings.Contains(d.Message, "package.json is not valid JSON") {
				return true
			}
		}
		return false
	}
	for _, tool := range []string{"project_detect", "project_open"} {
		if res := h.ok(tool, jsonArg(map[string]any{"cwd": broken}), nil); !warned(res) {
			t.Errorf("%s of a broken package.json: diagnostics %+v, want a warning naming it", tool, res.Diagnostics)
		}
		if res := h.ok(tool, jsonArg(map[string]any{"cwd": h.nodeApp("healthy-"+tool, nil)}), nil); warned(res) {
			t.Errorf("%s of a healthy folder warned: %+v", tool, res.Diagnostics)
		}
	}
}
