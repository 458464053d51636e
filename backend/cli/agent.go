package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// agentCmd is `meith agent [--space S] [--cwd DIR] [--session ID] <prompt…>`,
// which sends the prompt to an agent session (a new one unless --session)
// and follows the run: the answer on stdout as it streams, steps on stderr;
// Ctrl+C cancels the run. `meith agent list [--space S] [--cwd DIR]` lists
// the sessions.
func (r *runner) agentCmd(ctx context.Context, rest []string) int {
	if len(rest) > 0 && rest[0] == "list" {
		return r.agentList(ctx, rest[1:])
	}
	prompt := strings.TrimSpace(strings.Join(rest, " "))
	if prompt == "-" {
		if r.s.In == nil {
			return r.p.usage("agent -: no standard input to read the prompt from.")
		}
		b, err := io.ReadAll(io.LimitReader(r.s.In, 1<<20))
		if err != nil {
			return r.p.usage("read the prompt from stdin: %v", err)
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" {
		return r.p.usage(`agent needs a prompt: meith agent "fix the failing test" (or "meith agent list").`)
	}
	args := map[string]any{"text": prompt}
	if v, _, _ := r.a.Value("session"); v != "" {
		args["sessionId"] = v
	}
	if v, _, _ := r.a.Value("space"); v != "" {
		args["spaceId"] = v
	}
	cwd, _, _ := r.a.Value("cwd")
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	if _, ok := args["sessionId"]; !ok {
		args["cwd"] = cwd
	}
	raw, _ := json.Marshal(args)

	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	if !r.p.quiet && !r.p.json {
		r.p.stderr("sending to the agent… Ctrl+C to stop the run")
	}
	res, err := c.Call(ctx, "agent_send_message", raw, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout, OnEvent: r.p.event})
	r.p.mu.Lock()
	r.p.closeLine()
	r.p.mu.Unlock()
	if ctx.Err() != nil {
		r.p.stderr("cancelled: the agent's run was stopped")
		return exitInterrupted
	}
	if err != nil {
		return r.p.fail(t.SocketPath, err)
	}
	if !res.OK {
		r.p.toolError(res.Error)
		return exitFailure
	}
	var out struct {
		SessionID string              `json:"sessionId"`
		Status    string              `json:"status"`
		ToolCalls int                 `json:"toolCalls"`
		Error     *protocol.ErrorInfo `json:"error"`
	}
	_ = json.Unmarshal(res.Content, &out)
	if r.p.json {
		r.p.stdout("%s", unescapeHTML(res.Content))
	} else if !r.p.quiet {
		r.p.stderr("session %s: %s, %d tool call(s)", out.SessionID, out.Status, out.ToolCalls)
	}
	if out.Status == "error" {
		if out.Error != nil && !r.p.json {
			r.p.toolError(out.Error)
		}
		return exitFailure
	}
	return exitOK
}

// agentList prints the agent sessions, one per line.
func (r *runner) agentList(ctx context.Context, rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("agent list takes no positional arguments (got %q).", rest[0])
	}
	params := Params{}
	if v, _, _ := r.a.Value("space"); v != "" {
		params["spaceId"] = v
	}
	if v, _, _ := r.a.Value("cwd"); v != "" {
		params["cwd"] = v
	}
	return r.invoke(ctx, "agent_list_sessions", params, renderAgentSessions)
}

// renderAgentSessions prints "ID  STATUS  UPDATED  TITLE  (CWD)" lines.
func renderAgentSessions(content json.RawMessage) (string, bool) {
	var v struct {
		Sessions []struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			Cwd       string `json:"cwd"`
			Status    string `json:"status"`
			UpdatedAt int64  `json:"updatedAt"`
			Pending   int    `json:"pendingPermissions"`
		} `json:"sessions"`
	}
	if json.Unmarshal(content, &v) != nil {
		return "", false
	}
	if len(v.Sessions) == 0 {
		return "No agent sessions.", true
	}
	var b strings.Builder
	for i, s := range v.Sessions {
		if i > 0 {
			b.WriteByte('\n')
		}
		status := s.Status
		if s.Pending > 0 {
			status += fmt.Sprintf(" (%d waiting for approval)", s.Pending)
		}
		when := time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04")
		fmt.Fprintf(&b, "%s  %-9s  %s  %s  (%s)", s.ID, status, when, s.Title, s.Cwd)
	}
	return b.String(), true
}
