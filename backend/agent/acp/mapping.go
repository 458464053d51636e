package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
)

// outputClip bounds ToolCall.Output.
const outputClip = 8 << 10

// mapUpdate turns a session/update into an Update; ok is false for the
// kinds that are not forwarded (user_message_chunk,
// available_commands_update, current_mode_update, config_option_update,
// session_info_update, unknown kinds).
func mapUpdate(u sdk.SessionUpdate) (Update, bool) {
	switch {
	case u.AgentMessageChunk != nil:
		text := blockText(u.AgentMessageChunk.Content)
		return Update{Kind: UpdateMessage, Text: text}, text != ""
	case u.AgentThoughtChunk != nil:
		text := blockText(u.AgentThoughtChunk.Content)
		return Update{Kind: UpdateThought, Text: text}, text != ""
	case u.ToolCall != nil:
		tc := u.ToolCall
		call := &ToolCall{
			ID:       string(tc.ToolCallId),
			Title:    tc.Title,
			Kind:     string(tc.Kind),
			Status:   string(tc.Status),
			RawInput: rawJSON(tc.RawInput),
			Output:   toolOutput(tc.Content, tc.RawOutput),
		}
		call.Name = toolName(tc.Meta, tc.RawInput, tc.Title)
		return Update{Kind: UpdateToolCall, ToolCall: call}, true
	case u.ToolCallUpdate != nil:
		return Update{Kind: UpdateToolCallUpdate, ToolCall: mapToolCallUpdate(sdk.ToolCallUpdate{
			Meta:       u.ToolCallUpdate.Meta,
			ToolCallId: u.ToolCallUpdate.ToolCallId,
			Title:      u.ToolCallUpdate.Title,
			Kind:       u.ToolCallUpdate.Kind,
			Status:     u.ToolCallUpdate.Status,
			Content:    u.ToolCallUpdate.Content,
			RawInput:   u.ToolCallUpdate.RawInput,
			RawOutput:  u.ToolCallUpdate.RawOutput,
		})}, true
	case u.Plan != nil:
		plan := make([]PlanEntry, 0, len(u.Plan.Entries))
		for _, e := range u.Plan.Entries {
			plan = append(plan, PlanEntry{Content: e.Content, Status: string(e.Status), Priority: string(e.Priority)})
		}
		return Update{Kind: UpdatePlan, Plan: plan}, true
	case u.UsageUpdate != nil:
		usage := &Usage{Used: int64(u.UsageUpdate.Used), Size: int64(u.UsageUpdate.Size)}
		if c := u.UsageUpdate.Cost; c != nil {
			usage.CostAmount, usage.CostCurrency = c.Amount, c.Currency
		}
		return Update{Kind: UpdateUsage, Usage: usage}, true
	}
	return Update{}, false
}

// mapToolCallUpdate maps the fields a tool_call_update (or the tool call
// of a permission request) reports.
func mapToolCallUpdate(tc sdk.ToolCallUpdate) *ToolCall {
	call := &ToolCall{
		ID:       string(tc.ToolCallId),
		RawInput: rawJSON(tc.RawInput),
		Output:   toolOutput(tc.Content, tc.RawOutput),
	}
	title := ""
	if tc.Title != nil {
		title = *tc.Title
		call.Title = title
	}
	if tc.Kind != nil {
		call.Kind = string(*tc.Kind)
	}
	if tc.Status != nil {
		call.Status = string(*tc.Status)
	}
	call.Name = toolName(tc.Meta, tc.RawInput, title)
	return call
}

// blockText is the text of a content block; blocks other than text are
// described briefly.
func blockText(b sdk.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.Image != nil:
		return fmt.Sprintf("[image %s]", b.Image.MimeType)
	case b.Audio != nil:
		return "[audio]"
	case b.ResourceLink != nil:
		return fmt.Sprintf("[link %s %s]", b.ResourceLink.Name, b.ResourceLink.Uri)
	case b.Resource != nil:
		switch r := b.Resource.Resource; {
		case r.TextResourceContents != nil:
			return fmt.Sprintf("[resource %s]", r.TextResourceContents.Uri)
		case r.BlobResourceContents != nil:
			return fmt.Sprintf("[resource %s]", r.BlobResourceContents.Uri)
		}
		return "[resource]"
	}
	return ""
}

// toolOutput is the text of a tool call's content and raw output, clipped
// to outputClip bytes.
func toolOutput(content []sdk.ToolCallContent, rawOutput any) string {
	var parts []string
	for _, c := range content {
		switch {
		case c.Content != nil:
			b := c.Content.Content
			if r := b.Resource; r != nil && r.Resource.TextResourceContents != nil {
				parts = append(parts, r.Resource.TextResourceContents.Text)
				continue
			}
			if t := blockText(b); t != "" {
				parts = append(parts, t)
			}
		case c.Diff != nil:
			parts = append(parts, "[diff "+c.Diff.Path+"]")
		case c.Terminal != nil:
			parts = append(parts, "[terminal "+c.Terminal.TerminalId+"]")
		}
	}
	switch v := rawOutput.(type) {
	case nil:
	case string:
		if v != "" {
			parts = append(parts, v)
		}
	default:
		if b, err := json.Marshal(v); err == nil {
			parts = append(parts, string(b))
		}
	}
	return clip(strings.Join(parts, "\n"), outputClip)
}

// clip cuts s to at most n bytes without splitting a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func rawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Keys under which agents name a tool in _meta and rawInput.
var (
	toolNameKeys   = []string{"toolName", "tool_name", "tool"}
	serverNameKeys = []string{"serverName", "server_name", "server", "mcp_server"}
)

// toolName finds a tool call's name: in _meta (claudeCode.toolName, a
// top-level toolName, …), in rawInput's tool name fields, else the title.
func toolName(meta map[string]any, rawInput any, title string) string {
	if n := metaToolName(meta); n != "" {
		return n
	}
	if in, ok := rawInput.(map[string]any); ok {
		if n := stringField(in, toolNameKeys...); n != "" {
			return n
		}
		if stringField(in, serverNameKeys...) != "" {
			if n := stringField(in, "name"); n != "" {
				return n
			}
		}
	}
	return strings.TrimSpace(title)
}

func metaToolName(meta map[string]any) string {
	if n := stringField(meta, toolNameKeys...); n != "" {
		return n
	}
	for _, v := range meta {
		if m, ok := v.(map[string]any); ok {
			if n := stringField(m, toolNameKeys...); n != "" {
				return n
			}
		}
	}
	return ""
}

// metaServerName finds a serverName the same way as metaToolName.
func metaServerName(meta map[string]any) string {
	if n := stringField(meta, serverNameKeys...); n != "" {
		return n
	}
	for _, v := range meta {
		if m, ok := v.(map[string]any); ok {
			if n := stringField(m, serverNameKeys...); n != "" {
				return n
			}
		}
	}
	return ""
}

func stringField(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// meithPrefixes are the forms under which agents name meith's MCP tools.
var meithPrefixes = []string{"mcp__meith__", "mcp__meith.", "meith.", "meith/"}

// MeithToolName returns the bare meith tool name of a tool name or title
// as an agent reports it (mcp__meith__git_status → git_status), or "" when
// it does not name one of meith's MCP tools.
func MeithToolName(name string) string {
	for _, p := range meithPrefixes {
		if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
			return name[len(p):]
		}
	}
	return ""
}

// mapPermission turns a session/request_permission into a
// PermissionRequest. known is what the session's tool_call notifications
// reported for the same tool call id (may be nil).
func mapPermission(p sdk.RequestPermissionRequest, known *ToolCall) PermissionRequest {
	call := mapToolCallUpdate(p.ToolCall)
	if known != nil {
		merged := *known
		if call.Title != "" {
			merged.Title = call.Title
		}
		if call.Kind != "" {
			merged.Kind = call.Kind
		}
		if call.Status != "" {
			merged.Status = call.Status
		}
		if len(call.RawInput) > 0 {
			merged.RawInput = call.RawInput
		}
		if call.Output != "" {
			merged.Output = call.Output
		}
		if n := metaToolName(p.ToolCall.Meta); n != "" || merged.Name == "" {
			merged.Name = call.Name
		}
		call = &merged
	}
	req := PermissionRequest{ToolCall: *call}
	for _, o := range p.Options {
		req.Options = append(req.Options, string(o.Kind))
	}
	req.MCPApproval = isTrue(p.Meta["is_mcp_tool_approval"]) || isTrue(p.ToolCall.Meta["is_mcp_tool_approval"])

	rawIn, _ := p.ToolCall.RawInput.(map[string]any)
	candidates := []string{call.Name, metaToolName(p.Meta), call.Title}
	for _, c := range candidates {
		if bare := MeithToolName(strings.TrimSpace(c)); bare != "" {
			req.MeithTool = bare
			break
		}
	}
	if req.MeithTool == "" {
		server := metaServerName(p.ToolCall.Meta)
		if server == "" {
			server = metaServerName(p.Meta)
		}
		if server == "" && rawIn != nil {
			server = stringField(rawIn, serverNameKeys...)
		}
		if strings.EqualFold(server, "meith") {
			name := metaToolName(p.ToolCall.Meta)
			if name == "" && rawIn != nil {
				name = stringField(rawIn, append(toolNameKeys, "name")...)
			}
			if name == "" {
				name = call.Name
			}
			if bare := MeithToolName(name); bare != "" {
				name = bare
			}
			req.MeithTool = name
		}
	}
	if req.MeithTool == "" {
		req.Web = call.Kind == string(sdk.ToolKindFetch) || isWebName(call.Name) || isWebName(call.Title)
	}
	return req
}

func isTrue(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// isWebName reports whether a tool name or title names a web or browser
// tool (WebFetch, WebSearch, web_fetch, web_search, fetch, browser_*), with
// an MCP prefix (mcp__server__) ignored.
func isWebName(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	first, _, _ := strings.Cut(s, " ")
	first = strings.ToLower(strings.TrimRight(first, ":"))
	if strings.HasPrefix(first, "mcp__") {
		if i := strings.LastIndex(first, "__"); i > len("mcp_") {
			first = first[i+2:]
		}
	}
	switch first {
	case "webfetch", "websearch", "web_fetch", "web_search", "fetch", "web-fetch", "web-search":
		return true
	}
	return strings.HasPrefix(first, "browser")
}

// chooseOption picks the option for a decision: allow_once else
// allow_always, or reject_once else reject_always; ok is false when the
// wanted kinds are missing.
func chooseOption(options []sdk.PermissionOption, d PermissionDecision) (sdk.PermissionOptionId, bool) {
	kinds := []sdk.PermissionOptionKind{sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways}
	if d.Allow {
		kinds = []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways}
	}
	for _, k := range kinds {
		for _, o := range options {
			if o.Kind == k {
				return o.OptionId, true
			}
		}
	}
	return "", false
}

// mapConfigOptions converts the advertised config options; boolean
// options are kept with the values "true" and "false".
func mapConfigOptions(in []sdk.SessionConfigOption) []ConfigOption {
	var out []ConfigOption
	for _, o := range in {
		switch {
		case o.Select != nil:
			s := o.Select
			opt := ConfigOption{ID: string(s.Id), Name: s.Name, Current: string(s.CurrentValue)}
			if s.Category != nil {
				opt.Category = string(*s.Category)
			}
			if u := s.Options.Ungrouped; u != nil {
				for _, v := range *u {
					opt.Values = append(opt.Values, ConfigValue{Value: string(v.Value), Name: v.Name})
				}
			}
			if g := s.Options.Grouped; g != nil {
				for _, grp := range *g {
					for _, v := range grp.Options {
						opt.Values = append(opt.Values, ConfigValue{Value: string(v.Value), Name: v.Name})
					}
				}
			}
			out = append(out, opt)
		case o.Boolean != nil:
			b := o.Boolean
			opt := ConfigOption{ID: string(b.Id), Name: b.Name, Current: fmt.Sprint(b.CurrentValue),
				Values: []ConfigValue{{Value: "true", Name: "On"}, {Value: "false", Name: "Off"}}}
			if b.Category != nil {
				opt.Category = string(*b.Category)
			}
			out = append(out, opt)
		}
	}
	return out
}

// reasoningKeys are the ids or categories of a reasoning option.
var reasoningKeys = []string{"thought_level", "reasoning", "reasoning_effort", "effort", "thinking"}

// findOption returns the first option whose id or category is one of keys.
func findOption(opts []ConfigOption, keys ...string) (ConfigOption, bool) {
	for _, k := range keys {
		for _, o := range opts {
			if strings.EqualFold(o.ID, k) || strings.EqualFold(o.Category, k) {
				return o, true
			}
		}
	}
	return ConfigOption{}, false
}

// matchValue finds want among the option's values (by value, then by
// name, ignoring case).
func matchValue(o ConfigOption, want string) (string, bool) {
	for _, v := range o.Values {
		if v.Value == want {
			return v.Value, true
		}
	}
	for _, v := range o.Values {
		if strings.EqualFold(v.Value, want) || strings.EqualFold(v.Name, want) {
			return v.Value, true
		}
	}
	return "", false
}
