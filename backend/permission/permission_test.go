package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

const (
	cliSession    = "socket:4f9b6c1e-2a53-4d7e-9f0a-8b1c2d3e4f50"
	agentSession  = "agent_sess_1"
	pluginSession = "plugin:demo"
)

var (
	ro = protocol.CapReadOnly
	an = protocol.CapAccessesNetwork
	wf = protocol.CapWritesFiles
	cb = protocol.CapControlsBrowser
	sp = protocol.CapStartsProcess
	de = protocol.CapDestructive
)

// sessionOf is the session id each caller uses in the tests.
func sessionOf(c protocol.Caller) string {
	switch c {
	case protocol.CallerCLI:
		return cliSession
	case protocol.CallerAgent:
		return agentSession
	case protocol.CallerPlugin:
		return pluginSession
	}
	return ""
}

// tool returns a descriptor named name with caps.
func tool(name string, caps ...protocol.Capability) protocol.ToolDescriptor {
	return protocol.ToolDescriptor{Name: name, Description: "Test tool " + name + ".", Capabilities: caps}
}

// authorize asks s about caller (with its test session) calling t.
func authorize(s *Service, caller protocol.Caller, t protocol.ToolDescriptor) error {
	return s.Authorize(context.Background(), registry.AuthRequest{
		Tool:   t,
		Client: protocol.ClientInfo{Caller: caller, SessionID: sessionOf(caller)},
		Args:   json.RawMessage(`{}`),
	})
}

// plugins returns a PluginGrants func knowing one plugin.
func plugins(id string, caps ...protocol.Capability) func(string) ([]protocol.Capability, bool) {
	return func(pluginID string) ([]protocol.Capability, bool) {
		if pluginID != id {
			return nil, false
		}
		return caps, true
	}
}

// without returns caps without its first item equal to c.
func without(caps []protocol.Capability, c protocol.Capability) []protocol.Capability {
	out := slices.Clone(caps)
	if i := slices.Index(out, c); i >= 0 {
		out = slices.Delete(out, i, i+1)
	}
	return out
}

// checkDenied fails unless err is PERMISSION_DENIED with message msg ("" for any).
func checkDenied(t *testing.T, what string, err error, msg string) {
	t.Helper()
	te, ok := err.(*protocol.ToolError)
	if !ok || te.Code != protocol.CodePermissionDenied {
		t.Fatalf("%s = %v, want a PERMISSION_DENIED *protocol.ToolError", what, err)
	}
	if msg != "" && te.Message != msg {
		t.Errorf("%s message = %q, want %q", what, te.Message, msg)
	}
	if _, ok := te.Details.(DenyDetails); !ok {
		t.Errorf("%s details = %T, want DenyDetails", what, te.Details)
	}
}

// TestPolicyTable covers every caller × tool capability set × grant state.
func TestPolicyTable(t *testing.T) {
	tools := []protocol.ToolDescriptor{
		tool("read_state", ro),
		tool("fetch_url", an),
		tool("write_file", wf),
		tool("open_tab", cb),
		tool("run_proc", sp),
		tool("wipe_all", de),
		tool("mixed_tool", ro, an, wf, cb),
	}
	all := []protocol.Capability{wf, cb, sp, de}
	type state struct {
		name string
		// opts returns the service options for the tool.
		opts func(td protocol.ToolDescriptor) Options
		// setup prepares the service for caller calling the tool.
		setup func(t *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor)
		// allows lists the untrusted callers allowed a privileged tool.
		allows []protocol.Caller
	}
	noOpts := func(protocol.ToolDescriptor) Options { return Options{} }
	noSetup := func(*testing.T, *Service, protocol.Caller, protocol.ToolDescriptor) {}
	states := []state{
		{
			name:  "no grant",
			opts:  noOpts,
			setup: noSetup,
		},
		{
			name: "matching grant",
			opts: func(td protocol.ToolDescriptor) Options {
				return Options{PluginGrants: plugins("demo", td.Capabilities...)}
			},
			setup: func(_ *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor) {
				s.Grant(Grant{Caller: c, SessionID: sessionOf(c), Capabilities: protocol.PrivilegedOf(td.Capabilities)})
			},
			allows: []protocol.Caller{protocol.CallerCLI, protocol.CallerAgent, protocol.CallerPlugin},
		},
		{
			// For plugins: approvals of another plugin id.
			name: "grant for another tool",
			opts: func(td protocol.ToolDescriptor) Options {
				return Options{PluginGrants: plugins("other", td.Capabilities...)}
			},
			setup: func(_ *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor) {
				s.Grant(Grant{Caller: c, SessionID: sessionOf(c), Capabilities: all, ToolName: "other_tool"})
			},
		},
		{
			// For plugins: approvals lacking the first declared capability
			// (read-only for mixed_tool: every declared one is needed).
			name: "grant missing one capability",
			opts: func(td protocol.ToolDescriptor) Options {
				return Options{PluginGrants: plugins("demo", td.Capabilities[1:]...)}
			},
			setup: func(_ *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor) {
				priv := protocol.PrivilegedOf(td.Capabilities)
				if len(priv) > 0 {
					priv = priv[:len(priv)-1]
				}
				s.Grant(Grant{Caller: c, SessionID: sessionOf(c), Capabilities: priv})
			},
		},
		{
			// For plugins: an approved identity with no capabilities.
			name: "grant with exhausted uses",
			opts: func(protocol.ToolDescriptor) Options { return Options{PluginGrants: plugins("demo")} },
			setup: func(t *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor) {
				s.Grant(Grant{Caller: c, SessionID: sessionOf(c), Capabilities: all, Uses: 1})
				first := authorize(s, c, td)
				if (c == protocol.CallerCLI || c == protocol.CallerAgent) && first != nil {
					t.Fatalf("first call with a one-use grant = %v, want allowed", first)
				}
			},
		},
		{
			name: "revoked grant",
			opts: noOpts,
			setup: func(_ *testing.T, s *Service, c protocol.Caller, td protocol.ToolDescriptor) {
				s.Grant(Grant{Caller: c, SessionID: sessionOf(c), Capabilities: all})
				s.RevokeSession(c, sessionOf(c))
			},
		},
		{
			name: "cli operator policy",
			opts: func(protocol.ToolDescriptor) Options {
				return Options{CLIGrants: all}
			},
			setup:  noSetup,
			allows: []protocol.Caller{protocol.CallerCLI},
		},
	}
	for _, c := range protocol.Callers {
		for _, td := range tools {
			for _, st := range states {
				privileged := len(protocol.PrivilegedOf(td.Capabilities)) > 0
				want := !privileged || c.Trusted() || slices.Contains(st.allows, c)
				t.Run(fmt.Sprintf("%s/%s/%s", c, td.Name, st.name), func(t *testing.T) {
					opts := st.opts(td)
					opts.Approvals = NewApprovals(ApprovalsOptions{}) // no UI attached
					s := New(opts)
					st.setup(t, s, c, td)
					err := authorize(s, c, td)
					if got := err == nil; got != want {
						t.Errorf("Authorize(%s, %s %v, %s) = %v, want allowed %v", c, td.Name, td.Capabilities, st.name, err, want)
					}
					if err != nil {
						checkDenied(t, "Authorize", err, "")
					}
				})
			}
		}
	}
}

func TestDenyMessages(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		client protocol.ClientInfo
		tool   protocol.ToolDescriptor
		reason Reason
		want   string
	}{
		{"agent without session", Options{}, protocol.ClientInfo{Caller: protocol.CallerAgent},
			tool("wipe_all", de, wf), ReasonNoSession, `Tool "wipe_all" requires destructive, writes-files permission.`},
		{"agent without grant", Options{}, protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "a"},
			tool("write_file", wf), ReasonNoGrant, `Tool "write_file" requires writes-files permission.`},
		{"cli without a broker", Options{}, protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"},
			tool("open_tab", cb, an), ReasonNoApprovalUI,
			`Tool "open_tab" requires controls-browser permission. This runtime has no approval UI: start it with "meith serve --grant-cli controls-browser" to allow such calls.`},
		{"cli without an attached UI", Options{Approvals: NewApprovals(ApprovalsOptions{})},
			protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"},
			tool("app_set_debug_mode", wf), ReasonNoApprovalUI,
			`Tool "app_set_debug_mode" requires writes-files permission. No approval UI is attached to this runtime: open the meith desktop app to approve CLI calls, or start the runtime with "meith serve --grant-cli writes-files".`},
		{"cli policy covering part of the tool", Options{CLIGrants: []protocol.Capability{wf}},
			protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"},
			tool("mixed_tool", wf, cb), ReasonNoApprovalUI,
			`Tool "mixed_tool" requires writes-files, controls-browser permission. This runtime has no approval UI: start it with "meith serve --grant-cli writes-files,controls-browser" to allow such calls.`},
		{"plugin without identity", Options{}, protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:demo"},
			tool("write_file", wf), ReasonPluginUnbound, `Plugin caller is not bound to an approved plugin identity for "write_file".`},
		{"plugin with a bad session id", Options{PluginGrants: plugins("demo", wf)},
			protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "demo"},
			tool("write_file", wf), ReasonPluginUnbound, `Plugin caller is not bound to an approved plugin identity for "write_file".`},
		{"plugin with an empty id", Options{PluginGrants: plugins("", wf)},
			protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:"},
			tool("write_file", wf), ReasonPluginUnbound, `Plugin caller is not bound to an approved plugin identity for "write_file".`},
		{"plugin lacking capabilities", Options{PluginGrants: plugins("demo", wf)},
			protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:demo"},
			tool("mixed_tool", ro, an, wf, cb), ReasonPluginMissing, `Plugin demo lacks capabilities [read-only, accesses-network, controls-browser] required by "mixed_tool".`},
		{"unknown caller", Options{}, protocol.ClientInfo{Caller: "root", SessionID: "x"},
			tool("write_file", wf), ReasonUnknownCaller, `Caller "root" may not run "write_file".`},
		{"empty caller", Options{}, protocol.ClientInfo{SessionID: "x"},
			tool("write_file", wf), ReasonUnknownCaller, `Caller "" may not run "write_file".`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(tt.opts).Authorize(t.Context(), registry.AuthRequest{Tool: tt.tool, Client: tt.client})
			checkDenied(t, "Authorize("+tt.name+")", err, tt.want)
			if d, ok := err.(*protocol.ToolError).Details.(DenyDetails); ok {
				if d.Reason != tt.reason || d.ToolName != tt.tool.Name || d.Caller != tt.client.Caller {
					t.Errorf("Authorize(%s) details = %+v, want reason %s for %s", tt.name, d, tt.reason, tt.tool.Name)
				}
			}
		})
	}
}

func TestGrantRules(t *testing.T) {
	w := tool("write_file", wf)
	t.Run("ignored without session", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, Capabilities: []protocol.Capability{wf}})
		if err := s.Authorize(t.Context(), registry.AuthRequest{Tool: w, Client: protocol.ClientInfo{Caller: protocol.CallerAgent}}); err == nil {
			t.Errorf("Authorize(agent without session) after a grant without session = nil, want denied")
		}
		if g := s.Grants(protocol.CallerAgent, ""); len(g) != 0 {
			t.Errorf("Grants(agent, \"\") = %v, want none", g)
		}
	})
	t.Run("ignored with negative uses", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}, Uses: -1})
		checkDenied(t, "Authorize(negative-use grant)", authorize(s, protocol.CallerAgent, w), "")
	})
	t.Run("keyed by caller", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: cliSession, Capabilities: []protocol.Capability{wf}})
		checkDenied(t, "Authorize(cli with an agent grant of the same session id)", authorize(s, protocol.CallerCLI, w), "")
	})
	t.Run("keyed by session", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: "another", Capabilities: []protocol.Capability{wf}})
		checkDenied(t, "Authorize(agent with another session's grant)", authorize(s, protocol.CallerAgent, w), "")
	})
	t.Run("tool-scoped grant", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}, ToolName: "write_file"})
		if err := authorize(s, protocol.CallerAgent, w); err != nil {
			t.Errorf("Authorize(write_file) with a write_file grant = %v, want nil", err)
		}
		checkDenied(t, "Authorize(other writes-files tool)", authorize(s, protocol.CallerAgent, tool("git_commit", wf)), "")
	})
	t.Run("counted uses", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}, Uses: 3})
		for i := range 3 {
			if err := authorize(s, protocol.CallerAgent, w); err != nil {
				t.Fatalf("call %d of a 3-use grant = %v, want nil", i+1, err)
			}
			if got, want := len(s.Grants(protocol.CallerAgent, agentSession)), min(1, 2-i); got != want {
				t.Errorf("after call %d: %d grants stored, want %d", i+1, got, want)
			}
		}
		checkDenied(t, "call 4 of a 3-use grant", authorize(s, protocol.CallerAgent, w), "")
	})
	t.Run("unlimited grant preferred over counted", func(t *testing.T) {
		s := New(Options{})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}, Uses: 1})
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf, cb}})
		for range 3 {
			if err := authorize(s, protocol.CallerAgent, w); err != nil {
				t.Fatalf("Authorize = %v, want nil", err)
			}
		}
		g := s.Grants(protocol.CallerAgent, agentSession)
		if len(g) != 2 || g[0].Uses != 1 {
			t.Errorf("Grants after 3 calls = %+v, want the one-use grant untouched", g)
		}
	})
	t.Run("revoke removes every grant of the key only", func(t *testing.T) {
		s := New(Options{})
		for _, name := range []string{"", "write_file", "git_commit"} {
			s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}, ToolName: name})
		}
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: "keep", Capabilities: []protocol.Capability{wf}})
		s.RevokeSession(protocol.CallerAgent, agentSession)
		if g := s.Grants(protocol.CallerAgent, agentSession); len(g) != 0 {
			t.Errorf("Grants after RevokeSession = %v, want none", g)
		}
		if g := s.Grants(protocol.CallerAgent, "keep"); len(g) != 1 {
			t.Errorf("Grants of another session after RevokeSession = %v, want 1", g)
		}
	})
	t.Run("grant is copied", func(t *testing.T) {
		s := New(Options{})
		caps := []protocol.Capability{wf}
		s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: caps})
		caps[0] = ro
		if err := authorize(s, protocol.CallerAgent, w); err != nil {
			t.Errorf("Authorize after the caller changed its slice = %v, want nil", err)
		}
	})
}

// testRegistry returns a registry authorized by s whose audit entries are
// collected, with tools that count their runs.
type testRegistry struct {
	reg     *registry.Registry
	runs    atomic.Int32
	entries chan audit.Entry
}

func newTestRegistry(t *testing.T, s *Service) *testRegistry {
	t.Helper()
	tr := &testRegistry{entries: make(chan audit.Entry, 100)}
	tr.reg = registry.New(registry.Options{Authorizer: s, Audit: func(o registry.Outcome) { tr.entries <- audit.EntryFrom(o) }})
	type note struct {
		Note string `json:"note,omitempty"`
	}
	for _, td := range []protocol.ToolDescriptor{
		tool("read_state", ro), tool("write_file", wf), tool("open_tab", cb, an), tool("wipe_all", de, wf),
	} {
		registry.Register(tr.reg, registry.Tool{Name: td.Name, Description: td.Description, Capabilities: td.Capabilities},
			func(ctx context.Context, call *registry.Call, in note) (map[string]string, error) {
				tr.runs.Add(1)
				return map[string]string{"apiKey": "sk-live-abcdef", "note": in.Note}, nil
			})
	}
	return tr
}

// call runs name as client and returns the result and its audit entry.
func (tr *testRegistry) call(t *testing.T, ctx context.Context, name string, client protocol.ClientInfo, args string) (protocol.ToolResult, audit.Entry) {
	t.Helper()
	res := tr.reg.Call(ctx, registry.Request{RequestID: "req_1", ToolName: name, Client: client, Args: json.RawMessage(args)})
	select {
	case e := <-tr.entries:
		return res, e
	default:
		t.Fatalf("call %s was not audited", name)
		return res, audit.Entry{}
	}
}

// checkCall checks a call's result code ("" for ok), how many tools ran so
// far, and its audit decision.
func checkCall(t *testing.T, tr *testRegistry, what string, res protocol.ToolResult, e audit.Entry, code protocol.ErrorCode, runs int32, decision audit.Decision) {
	t.Helper()
	if got := protocol.CodeOf(res.Err()); got != code {
		t.Errorf("%s: result code = %q (%v), want %q", what, got, res.Err(), code)
	}
	if got := tr.runs.Load(); got != runs {
		t.Errorf("%s: tools ran %d times, want %d", what, got, runs)
	}
	if e.Decision != decision {
		t.Errorf("%s: audit decision = %s, want %s", what, e.Decision, decision)
	}
}

// The cases of the original's permission.test.ts, through the real registry.

func TestRendererIsTrusted(t *testing.T) {
	tr := newTestRegistry(t, New(Options{}))
	res, e := tr.call(t, t.Context(), "wipe_all", protocol.ClientInfo{Caller: protocol.CallerRenderer}, `{}`)
	checkCall(t, tr, "renderer wipe_all", res, e, "", 1, audit.DecisionAllow)
	if e.Caller != protocol.CallerRenderer {
		t.Errorf("audit caller = %s, want renderer", e.Caller)
	}
}

func TestInternalIsTrusted(t *testing.T) {
	tr := newTestRegistry(t, New(Options{}))
	res, e := tr.call(t, t.Context(), "write_file", protocol.ClientInfo{Caller: protocol.CallerInternal}, `{}`)
	checkCall(t, tr, "internal write_file", res, e, "", 1, audit.DecisionAllow)
}

func TestAgentWithoutSessionIsDenied(t *testing.T) {
	tr := newTestRegistry(t, New(Options{}))
	res, e := tr.call(t, t.Context(), "write_file", protocol.ClientInfo{Caller: protocol.CallerAgent}, `{}`)
	checkCall(t, tr, "agent without session", res, e, protocol.CodePermissionDenied, 0, audit.DecisionDeny)
}

func TestPluginWithNullGrantsIsDenied(t *testing.T) {
	s := New(Options{PluginGrants: func(string) ([]protocol.Capability, bool) { return nil, false }})
	tr := newTestRegistry(t, s)
	res, e := tr.call(t, t.Context(), "write_file", protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:ghost"}, `{}`)
	checkCall(t, tr, "plugin with null grants", res, e, protocol.CodePermissionDenied, 0, audit.DecisionDeny)
	if want := `Plugin caller is not bound to an approved plugin identity for "write_file".`; res.Error.Message != want {
		t.Errorf("message = %q, want %q", res.Error.Message, want)
	}
}

func TestPluginWithEmptyGrantsIsDenied(t *testing.T) {
	tr := newTestRegistry(t, New(Options{PluginGrants: plugins("demo")}))
	res, e := tr.call(t, t.Context(), "write_file", protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:demo"}, `{}`)
	checkCall(t, tr, "plugin with empty grants", res, e, protocol.CodePermissionDenied, 0, audit.DecisionDeny)
	if want := `Plugin demo lacks capabilities [writes-files] required by "write_file".`; res.Error.Message != want {
		t.Errorf("message = %q, want %q", res.Error.Message, want)
	}
}

func TestRevokedAgentSessionIsDenied(t *testing.T) {
	s := New(Options{})
	tr := newTestRegistry(t, s)
	ci := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: agentSession}
	s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, Capabilities: []protocol.Capability{wf}})
	res, e := tr.call(t, t.Context(), "write_file", ci, `{}`)
	checkCall(t, tr, "agent with grant", res, e, "", 1, audit.DecisionAllow)
	s.RevokeSession(protocol.CallerAgent, agentSession)
	res, e = tr.call(t, t.Context(), "write_file", ci, `{}`)
	checkCall(t, tr, "agent after revoke", res, e, protocol.CodePermissionDenied, 1, audit.DecisionDeny)
}

func TestCLIReadOnlyIsAllowedAndRedacted(t *testing.T) {
	tr := newTestRegistry(t, New(Options{}))
	ci := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: cliSession, Cwd: "/work/project"}
	res, e := tr.call(t, t.Context(), "read_state", ci, `{"note":"Authorization: Bearer abcdef0123456789"}`)
	checkCall(t, tr, "cli read-only", res, e, "", 1, audit.DecisionAllow)
	if want := `{"note":"[REDACTED]"}`; e.ArgsSummary != want {
		t.Errorf("audit args = %s, want %s", e.ArgsSummary, want)
	}
	if want := `{"ok":true,"content":{"apiKey":"[REDACTED]","note":"[REDACTED]"}}`; e.ResultSummary != want {
		t.Errorf("audit result = %s, want %s", e.ResultSummary, want)
	}
	if e.Caller != protocol.CallerCLI || e.SessionID != cliSession || e.Cwd != "/work/project" {
		t.Errorf("audit entry = %+v, want cli %s in /work/project", e, cliSession)
	}
}

func TestCLIPrivilegedWithoutGrantIsDenied(t *testing.T) {
	tr := newTestRegistry(t, New(Options{Approvals: NewApprovals(ApprovalsOptions{})}))
	res, e := tr.call(t, t.Context(), "open_tab", protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: cliSession}, `{}`)
	checkCall(t, tr, "cli privileged without grant", res, e, protocol.CodePermissionDenied, 0, audit.DecisionDeny)
}

func TestOneUseAgentGrantAllowsExactlyOneCall(t *testing.T) {
	s := New(Options{})
	tr := newTestRegistry(t, s)
	s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: agentSession, ToolName: "write_file",
		Capabilities: []protocol.Capability{wf}, Uses: 1})
	ci := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: agentSession}
	res, e := tr.call(t, t.Context(), "write_file", ci, `{}`)
	checkCall(t, tr, "first call", res, e, "", 1, audit.DecisionAllow)
	res, e = tr.call(t, t.Context(), "write_file", ci, `{}`)
	checkCall(t, tr, "second call", res, e, protocol.CodePermissionDenied, 1, audit.DecisionDeny)
}

func TestPluginApprovedOnlyReadOnly(t *testing.T) {
	tr := newTestRegistry(t, New(Options{PluginGrants: plugins("demo", ro)}))
	ci := protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:demo"}
	res, e := tr.call(t, t.Context(), "read_state", ci, `{}`)
	checkCall(t, tr, "plugin read-only tool", res, e, "", 1, audit.DecisionAllow)
	res, e = tr.call(t, t.Context(), "write_file", ci, `{}`)
	checkCall(t, tr, "plugin writes-files tool", res, e, protocol.CodePermissionDenied, 1, audit.DecisionDeny)
}

func TestCLIOperatorPolicy(t *testing.T) {
	caps, err := ParseCapabilities("writes-files,controls-browser")
	if err != nil {
		t.Fatal(err)
	}
	tr := newTestRegistry(t, New(Options{CLIGrants: caps}))
	for _, session := range []string{cliSession, "socket:0b7e0f5e-0000-4000-8000-000000000000"} {
		ci := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: session}
		res, e := tr.call(t, t.Context(), "open_tab", ci, `{}`)
		if res.Err() != nil || e.Decision != audit.DecisionAllow {
			t.Errorf("cli %s open_tab under --grant-cli = %v, want allowed", session, res.Err())
		}
		res, _ = tr.call(t, t.Context(), "wipe_all", ci, `{}`)
		if !protocol.IsPermissionDenied(res.Err()) {
			t.Errorf("cli %s wipe_all (destructive) under --grant-cli writes-files,controls-browser = %v, want denied", session, res.Err())
		}
	}
	res, _ := tr.call(t, t.Context(), "open_tab", protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: agentSession}, `{}`)
	if !protocol.IsPermissionDenied(res.Err()) {
		t.Errorf("agent open_tab under --grant-cli = %v, want denied (the policy is for cli only)", res.Err())
	}
}

func TestAuthorizeNowLeavesOnlyApprovalsToAuthorize(t *testing.T) {
	ap := NewApprovals(ApprovalsOptions{})
	s := New(Options{Approvals: ap, CLIGrants: []protocol.Capability{protocol.CapControlsBrowser}})
	write := tool("w", protocol.CapWritesFiles)
	tests := []struct {
		name        string
		caller      protocol.Caller
		tool        protocol.ToolDescriptor
		attach      bool
		wantDecided bool
		wantAllow   bool
	}{
		{"read-only cli", protocol.CallerCLI, tool("r", protocol.CapReadOnly), false, true, true},
		{"renderer privileged", protocol.CallerRenderer, write, false, true, true},
		{"cli covered by operator policy", protocol.CallerCLI, tool("b", protocol.CapControlsBrowser), false, true, true},
		{"agent without grant", protocol.CallerAgent, write, true, true, false},
		{"cli without grant, no UI: denied at once", protocol.CallerCLI, write, false, true, false},
		{"cli without grant, UI attached", protocol.CallerCLI, write, true, false, false},
	}
	for _, tt := range tests {
		detach := func() {}
		if tt.attach {
			detach = ap.Attach()
		}
		decided, err := s.AuthorizeNow(registry.AuthRequest{Tool: tt.tool, Client: protocol.ClientInfo{Caller: tt.caller, SessionID: sessionOf(tt.caller)}})
		detach()
		if decided != tt.wantDecided || (decided && (err == nil) != tt.wantAllow) {
			t.Errorf("%s: AuthorizeNow = %v, %v, want decided %v allow %v", tt.name, decided, err, tt.wantDecided, tt.wantAllow)
		}
	}
}

func TestAgentGate(t *testing.T) {
	write := tool("write_file", protocol.CapWritesFiles)
	req := func() registry.AuthRequest {
		return registry.AuthRequest{RequestID: "call_1", Tool: write,
			Client: protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_1"}}
	}
	// Without a gate an agent call without a grant is denied at once.
	if err := New(Options{}).Authorize(context.Background(), req()); !protocol.IsPermissionDenied(err) {
		t.Fatalf("no gate: %v", err)
	}
	var s *Service
	var asked []string
	gate := func(grant bool, fail error) func(context.Context, registry.AuthRequest) error {
		return func(_ context.Context, r registry.AuthRequest) error {
			asked = append(asked, r.RequestID)
			if grant {
				s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: r.Client.SessionID, ToolName: r.Tool.Name, Capabilities: r.Tool.Capabilities, Uses: 1})
			}
			return fail
		}
	}
	cases := []struct {
		name    string
		grant   bool
		fail    error
		allowed bool
	}{
		{"allow writes a one-use grant that is spent", true, nil, true},
		{"deny", false, &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: "User denied"}, false},
		{"allow without a grant is still denied", false, nil, false},
	}
	for _, c := range cases {
		s = New(Options{AgentGate: gate(c.grant, c.fail)})
		asked = nil
		if decided, _ := s.AuthorizeNow(req()); decided {
			t.Errorf("%s: AuthorizeNow decided an agent call that must ask", c.name)
		}
		err := s.Authorize(context.Background(), req())
		if got := err == nil; got != c.allowed {
			t.Errorf("%s: Authorize = %v, want allowed %v", c.name, err, c.allowed)
		}
		if len(asked) != 1 || asked[0] != "call_1" {
			t.Errorf("%s: gate asked %v", c.name, asked)
		}
		if g := s.Grants(protocol.CallerAgent, "sess_1"); len(g) != 0 {
			t.Errorf("%s: grants left %+v", c.name, g)
		}
	}
	// A grant held already: the gate is not asked; a read-only tool never is.
	s = New(Options{AgentGate: gate(false, errors.New("must not be asked"))})
	s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: "sess_1", Capabilities: []protocol.Capability{protocol.CapWritesFiles}})
	if err := s.Authorize(context.Background(), req()); err != nil {
		t.Errorf("granted: %v", err)
	}
	r := req()
	r.Tool = tool("read", protocol.CapReadOnly)
	r.Client.SessionID = "sess_2"
	if decided, err := s.AuthorizeNow(r); !decided || err != nil {
		t.Errorf("read-only: %v %v", decided, err)
	}
}

// TestHolds: what a session may use without asking and without spending a
// grant (an agent run started by that session acts with at most this).
func TestHolds(t *testing.T) {
	wf, sp := protocol.CapWritesFiles, protocol.CapStartsProcess
	s := New(Options{
		CLIGrants: []protocol.Capability{wf},
		PluginGrants: func(id string) ([]protocol.Capability, bool) {
			return []protocol.Capability{protocol.CapControlsBrowser}, id == "deploy"
		},
	})
	s.Grant(Grant{Caller: protocol.CallerCLI, SessionID: "socket:a", Capabilities: []protocol.Capability{sp}})
	s.Grant(Grant{Caller: protocol.CallerCLI, SessionID: "socket:once", Capabilities: []protocol.Capability{sp}, Uses: 1})
	s.Grant(Grant{Caller: protocol.CallerCLI, SessionID: "socket:tool", Capabilities: []protocol.Capability{sp}, ToolName: "x"})
	tests := []struct {
		caller  protocol.Caller
		session string
		caps    []protocol.Capability
		want    bool
	}{
		{protocol.CallerCLI, "socket:b", []protocol.Capability{wf}, true},                   // the operator's policy
		{protocol.CallerCLI, "socket:b", []protocol.Capability{sp}, false},                  // not granted
		{protocol.CallerCLI, "socket:a", []protocol.Capability{sp}, true},                   // an "allow for this connection"
		{protocol.CallerCLI, "socket:a", []protocol.Capability{wf, sp}, false},              // as for calls: one source must cover all
		{protocol.CallerCLI, "socket:once", []protocol.Capability{sp}, false},               // one-use grants do not count
		{protocol.CallerCLI, "socket:tool", []protocol.Capability{sp}, false},               // nor grants for one tool
		{protocol.CallerCLI, "socket:b", []protocol.Capability{protocol.CapReadOnly}, true}, // nothing privileged
		{protocol.CallerCLI, "socket:b", []protocol.Capability{protocol.CapDestructive}, false},
		{protocol.CallerRenderer, "", []protocol.Capability{protocol.CapDestructive}, true}, // trusted
		{protocol.CallerPlugin, "plugin:deploy", []protocol.Capability{protocol.CapControlsBrowser}, true},
		{protocol.CallerPlugin, "plugin:deploy", []protocol.Capability{wf}, false},
		{protocol.CallerPlugin, "plugin:other", []protocol.Capability{protocol.CapControlsBrowser}, false},
	}
	for _, tt := range tests {
		if got := s.Holds(tt.caller, tt.session, tt.caps); got != tt.want {
			t.Errorf("Holds(%s, %s, %v) = %v, want %v", tt.caller, tt.session, tt.caps, got, tt.want)
		}
	}
	if g := s.Grants(protocol.CallerCLI, "socket:once"); len(g) != 1 || g[0].Uses != 1 {
		t.Errorf("Holds spent a grant: %+v", g)
	}
	if s.UserReachable() {
		t.Error("UserReachable() without an approval broker = true")
	}
	a := NewApprovals(ApprovalsOptions{})
	s2 := New(Options{Approvals: a})
	if s2.UserReachable() {
		t.Error("UserReachable() with no UI attached = true")
	}
	detach := a.Attach()
	defer detach()
	if !s2.UserReachable() {
		t.Error("UserReachable() with a UI attached = false")
	}
}
