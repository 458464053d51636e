package agent

import (
	"cmp"
	"slices"
	"time"

	"github.com/meith-dev/meith/backend/agent/acp"
	"github.com/meith-dev/meith/backend/protocol"
)

// The mapping of the agent's ACP session/update notifications onto the
// run's assistant message: text and thought (buffered, persisted every
// textFlushInterval), the agent's own tool calls, the placement of meith's
// tool calls in the text, the plan and the usage.

// textFlushInterval is how often streamed text is persisted as a patch
// (the live message in memory is always current).
const textFlushInterval = 250 * time.Millisecond

// onUpdate applies one ACP update to the run's message.
func (s *Service) onUpdate(r *run, sessionID string, u acp.Update) {
	switch u.Kind {
	case acp.UpdateMessage, acp.UpdateThought:
		if u.Text == "" {
			return
		}
		typ := PartText
		if u.Kind == acp.UpdateThought {
			typ = PartThought
		}
		s.mu.Lock()
		if r.msg == nil {
			s.mu.Unlock()
			return
		}
		Patch{MessageID: r.msg.ID, AppendText: &Part{Type: typ, Text: u.Text}}.Apply(r.msg)
		if r.textBuf != nil && r.textBuf.Type != typ {
			s.flushTextLocked(r, sessionID)
		}
		if r.textBuf == nil {
			r.textBuf = &Part{Type: typ}
		}
		r.textBuf.Text += u.Text
		if time.Since(r.lastFlush) >= textFlushInterval {
			s.flushTextLocked(r, sessionID)
		}
		s.mu.Unlock()
		if typ == PartText {
			r.emit(protocol.PartialText(u.Text))
		}
		s.changed(sessionID, ChangeTranscript)
	case acp.UpdateToolCall, acp.UpdateToolCallUpdate:
		if u.ToolCall == nil {
			return
		}
		s.mu.Lock()
		name := cmp.Or(acp.MeithToolName(u.ToolCall.Name), acp.MeithToolName(u.ToolCall.Title))
		if r.meithCalls[u.ToolCall.ID] || name != "" {
			// Recorded by callTool with its real arguments and result; the
			// report (the first one) says where the call goes in the text.
			if r.meithCalls == nil {
				r.meithCalls = map[string]bool{}
			}
			first := !r.meithCalls[u.ToolCall.ID]
			r.meithCalls[u.ToolCall.ID] = true
			var id string
			if first && name != "" {
				if i := slices.IndexFunc(r.unplaced, func(p placement) bool { return p.name == name }); i >= 0 {
					id = r.unplaced[i].id
				} else {
					r.reports = append(r.reports, name)
				}
			}
			s.mu.Unlock()
			if id != "" {
				s.place(r, sessionID, id)
			}
			return
		}
		var tc ToolCall
		if r.msg != nil {
			if p := r.msg.ToolCall(u.ToolCall.ID); p != nil {
				tc = *p
			}
		}
		s.mu.Unlock()
		mergeAgentToolCall(&tc, *u.ToolCall)
		s.putToolCall(r, sessionID, tc)
		if u.Kind == acp.UpdateToolCall {
			r.emit(protocol.Progress("agent: "+cmp.Or(tc.Title, tc.Name), -1))
		}
	case acp.UpdatePlan:
		plan := make([]PlanEntry, 0, len(u.Plan))
		for _, e := range u.Plan {
			plan = append(plan, PlanEntry{Content: e.Content, Status: e.Status, Priority: e.Priority})
		}
		s.record(r, sessionID, Patch{Plan: plan})
	case acp.UpdateUsage:
		if u.Usage == nil {
			return
		}
		us := &Usage{InputTokens: u.Usage.InputTokens, OutputTokens: u.Usage.OutputTokens, Used: u.Usage.Used,
			Size: u.Usage.Size, CostAmount: u.Usage.CostAmount, CostCurrency: u.Usage.CostCurrency}
		s.mu.Lock()
		r.usage = us
		s.mu.Unlock()
		s.record(r, sessionID, Patch{Usage: us})
	}
}

// mergeAgentToolCall folds an ACP tool call report into tc.
func mergeAgentToolCall(tc *ToolCall, u acp.ToolCall) {
	tc.ID, tc.Source = u.ID, SourceAgent
	if tc.StartedAt == 0 {
		tc.StartedAt = time.Now().UnixMilli()
	}
	if u.Title != "" {
		tc.Title = u.Title
	}
	if u.Name != "" {
		tc.Name = u.Name
	}
	if tc.Name == "" {
		tc.Name = cmp.Or(tc.Title, u.Kind, "tool")
	}
	if u.Kind != "" {
		tc.Kind = u.Kind
	}
	if len(u.RawInput) > 0 {
		tc.Args = boundJSON(u.RawInput, maxArgsBytes)
	}
	if u.Output != "" {
		tc.Output = u.Output
	}
	switch u.Status {
	case "pending":
		if tc.Status == "" {
			tc.Status = ToolPending
		}
	case "in_progress":
		if tc.Status != ToolAwaitingPermission {
			tc.Status = ToolRunning
		}
	case "completed":
		tc.Status, tc.EndedAt = ToolCompleted, time.Now().UnixMilli()
	case "failed":
		if tc.Status != ToolDenied {
			tc.Status = ToolFailed
		}
		tc.EndedAt = time.Now().UnixMilli()
	}
	if tc.Status == "" {
		tc.Status = ToolPending
	}
}
