// Package audit keeps audit.jsonl, the record of every tool call (allowed or
// denied) with redacted summaries of its arguments and result. The
// entry's decision tells how the call's authorization ended, as the
// permission service recorded it in [registry.Outcome.Authorization]:
// allow (no one needed to approve it), approved (a person did, on the
// window's prompt or an agent's card, now or through a remembered scope or
// rule), deny (the policy refused it), refused (the person asked said no),
// cancelled (the call ended before anyone approved it) or timeout (nobody
// answered in time). A call that was never approved is never allow. The
// entry also names the request (requestId), the question asked
// (approvalId), where the answer came from (decidedBy), how long the call
// waited (waitedMs) and the socket peer (clientPid, clientExe). The
// summaries and their redaction rules are backend/redact/summary's; the
// client-chosen fields (tool name, cwd) go through the value scanner of
// backend/redact and are bounded by summary.Clip.
//
// Wire it to the registry with registry.Options{Audit: log.Audit}. The log
// writes in the background: [Log.Audit] only queues the outcome, and one
// writer goroutine summarizes, encodes and appends what is queued in
// batches. Entries a failed write could not store are kept and written
// when the file works again; [Log.Writable] tells callers (the instance's
// registry.Options.Admit) that the file cannot be written.
//
// Past Options.RotateBytes the writer moves audit.jsonl to a gzip archive
// beside it and starts a new file; [Retention] removes archives by age and
// total size, never the live file ([Log.SetRetention] applies new values at
// once). [Log.Query] reads the live file and the archives newest first,
// with filters and a cursor, a bounded amount per call; [Log.Subscribe]
// hands each written batch to its subscribers (audit_watch, the hint bus);
// [Log.Clear] removes everything and writes the entry that records the
// clear first; [Log.Files] lists the files.
package audit

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
	"github.com/meith-dev/meith/backend/redact/summary"
	"github.com/meith-dev/meith/backend/registry"
)

// Decision is the permission decision an [Entry] records; the values are
// registry.AuthDecision's.
type Decision string

// The decisions of an entry.
const (
	// DecisionAllow: the call needed no one's approval.
	DecisionAllow = Decision(registry.AuthAllow)
	// DecisionApproved: a person approved it (prompt, card, remembered
	// scope or rule).
	DecisionApproved = Decision(registry.AuthApproved)
	// DecisionDeny: the policy refused it without asking.
	DecisionDeny = Decision(registry.AuthDeny)
	// DecisionRefused: the person asked answered no.
	DecisionRefused = Decision(registry.AuthRefused)
	// DecisionCancelled: the call ended before anyone approved it.
	DecisionCancelled = Decision(registry.AuthCancelled)
	// DecisionTimeout: nobody answered the prompt in time.
	DecisionTimeout = Decision(registry.AuthTimeout)
)

// Decisions lists every decision, for validating filters.
var Decisions = []Decision{DecisionAllow, DecisionApproved, DecisionDeny, DecisionRefused, DecisionCancelled, DecisionTimeout}

// Valid reports whether d is one of [Decisions].
func (d Decision) Valid() bool {
	switch d {
	case DecisionAllow, DecisionApproved, DecisionDeny, DecisionRefused, DecisionCancelled, DecisionTimeout:
		return true
	}
	return false
}

// TimeLayout is the layout of [Entry.TS]: ISO 8601 in UTC with milliseconds,
// as JavaScript's Date.toISOString writes it (2026-05-01T12:00:00.123Z).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Entry is one line of audit.jsonl.
type Entry struct {
	// ID is "audit_" + 12 hex digits.
	ID string `json:"id"`
	// TS is when the call finished, in [TimeLayout].
	TS string `json:"ts"`
	// Caller is who called (after the socket's downgrade).
	Caller protocol.Caller `json:"caller"`
	// ToolName is the tool asked for, known or not.
	ToolName string `json:"toolName"`
	// Capabilities are the tool's declared capabilities; empty (never null)
	// for an unknown tool.
	Capabilities []string `json:"capabilities"`
	// Decision is how the call's authorization ended (see the package doc
	// and [DecisionOf]).
	Decision Decision `json:"decision"`
	// Cwd is the caller's working-directory hint.
	Cwd string `json:"cwd"`
	// SessionID, SpaceID and TabID are the caller context, when set.
	SessionID string `json:"sessionId,omitempty"`
	SpaceID   string `json:"spaceId,omitempty"`
	TabID     string `json:"tabId,omitempty"`
	// ArgsSummary is [summary.Of] of the arguments.
	ArgsSummary string `json:"argsSummary"`
	// ResultSummary is [summary.Of] of the result envelope {ok, content} or
	// {ok, error}.
	ResultSummary string `json:"resultSummary"`
	// DurationMs is how long the call took, in milliseconds.
	DurationMs int64 `json:"durationMs"`
	// RequestID is the protocol request id (req_…), or the window
	// binding's call id.
	RequestID string `json:"requestId,omitempty"`
	// ApprovalID names the question asked before the call could run: the
	// approval request's id (appr_…) or the agent permission card's tool
	// call id; empty when nobody was asked.
	ApprovalID string `json:"approvalId,omitempty"`
	// DecidedBy is where the answer came from: "window", "agent-card",
	// "agent-remembered", "connection", "terminal", "15-minutes",
	// "folder-rule", "full-access".
	DecidedBy string `json:"decidedBy,omitempty"`
	// WaitedMs is how long the call waited for the answer, in milliseconds.
	WaitedMs int64 `json:"waitedMs,omitempty"`
	// ClientPID and ClientExe are the socket peer's pid and executable
	// (peer credentials and /proc), when known.
	ClientPID int    `json:"clientPid,omitempty"`
	ClientExe string `json:"clientExe,omitempty"`
}

// DecisionOf is the decision an entry records for o: the authorization's
// own, as the authorizer recorded it. A call that ended before its
// authorization (an unknown tool, invalid arguments, a refused admission,
// cancelled or shut down before it was asked) is allow only when it needed
// no one's approval (an unknown tool, a trusted caller, a tool without a
// privileged capability called by anyone but a plugin); cancelled when it
// was cancelled or shut down; deny otherwise. Never allow for a call that
// needed approval and did not get it.
func DecisionOf(o registry.Outcome) Decision {
	if d := Decision(o.Authorization.Decision); d != "" {
		if d.Valid() {
			return d
		}
		return DecisionDeny
	}
	code := protocol.ErrorCode("")
	if !o.Result.OK && o.Result.Error != nil {
		code = o.Result.Error.Code
	}
	switch code {
	case protocol.CodeCancelled, protocol.CodeRuntimeShuttingDown:
		return DecisionCancelled
	case protocol.CodeTimeout:
		return DecisionTimeout
	case protocol.CodePermissionDenied:
		return DecisionDeny
	}
	caller := o.Client.Caller
	if o.Capabilities == nil || caller.Trusted() ||
		caller != protocol.CallerPlugin && len(protocol.PrivilegedOf(o.Capabilities)) == 0 {
		return DecisionAllow
	}
	return DecisionDeny
}

// EntryFrom builds the entry that records o. The entry's time is the end of
// the call (o.Started + o.Duration), or now when o.Started is unset.
func EntryFrom(o registry.Outcome) Entry { return entryAt(o, time.Now(), nil) }

// entryAt builds the entry that records o, with now as the end of a call
// whose start is unset. sc, when not nil, remembers summaries.
func entryAt(o registry.Outcome, now time.Time, sc *summaryCache) Entry {
	caps := make([]string, 0, len(o.Capabilities))
	for _, c := range o.Capabilities {
		caps = append(caps, string(c))
	}
	end := now
	if !o.Started.IsZero() {
		end = o.Started.Add(o.Duration)
	}
	args := o.Args
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	e := Entry{
		ID:            protocol.NewID("audit"),
		TS:            end.UTC().Format(TimeLayout),
		Caller:        o.Client.Caller,
		ToolName:      summary.Clip(redact.String(o.ToolName)),
		Capabilities:  caps,
		Decision:      DecisionOf(o),
		Cwd:           summary.Clip(redact.String(o.Client.Cwd)),
		SessionID:     summary.Clip(o.Client.SessionID),
		SpaceID:       summary.Clip(o.Client.SpaceID),
		TabID:         summary.Clip(o.Client.TabID),
		ArgsSummary:   sc.args(args),
		ResultSummary: sc.result(o.Result),
		DurationMs:    o.Duration.Milliseconds(),
		RequestID:     summary.Clip(redact.String(o.RequestID)),
		ApprovalID:    summary.Clip(o.Authorization.ApprovalID),
		DecidedBy:     summary.Clip(o.Authorization.DecidedBy),
		WaitedMs:      o.Authorization.Waited.Milliseconds(),
	}
	if o.Peer != nil {
		e.ClientPID = o.Peer.PID
		e.ClientExe = summary.Clip(redact.String(o.Peer.Exe))
	}
	return e
}

// appendEntry appends e as one JSON line (with its newline), byte for byte
// what json.Marshal writes, without reflection. Nil capabilities are
// written as [].
func appendEntry(dst []byte, e *Entry) []byte {
	field := func(name, value string) {
		dst = append(dst, name...)
		dst = summary.AppendJSONString(dst, value, true)
	}
	field(`{"id":`, e.ID)
	field(`,"ts":`, e.TS)
	field(`,"caller":`, string(e.Caller))
	field(`,"toolName":`, e.ToolName)
	dst = append(dst, `,"capabilities":[`...)
	for i, c := range e.Capabilities {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = summary.AppendJSONString(dst, c, true)
	}
	dst = append(dst, ']')
	field(`,"decision":`, string(e.Decision))
	field(`,"cwd":`, e.Cwd)
	if e.SessionID != "" {
		field(`,"sessionId":`, e.SessionID)
	}
	if e.SpaceID != "" {
		field(`,"spaceId":`, e.SpaceID)
	}
	if e.TabID != "" {
		field(`,"tabId":`, e.TabID)
	}
	field(`,"argsSummary":`, e.ArgsSummary)
	field(`,"resultSummary":`, e.ResultSummary)
	dst = append(dst, `,"durationMs":`...)
	dst = strconv.AppendInt(dst, e.DurationMs, 10)
	if e.RequestID != "" {
		field(`,"requestId":`, e.RequestID)
	}
	if e.ApprovalID != "" {
		field(`,"approvalId":`, e.ApprovalID)
	}
	if e.DecidedBy != "" {
		field(`,"decidedBy":`, e.DecidedBy)
	}
	if e.WaitedMs != 0 {
		dst = append(dst, `,"waitedMs":`...)
		dst = strconv.AppendInt(dst, e.WaitedMs, 10)
	}
	if e.ClientPID != 0 {
		dst = append(dst, `,"clientPid":`...)
		dst = strconv.AppendInt(dst, int64(e.ClientPID), 10)
	}
	if e.ClientExe != "" {
		field(`,"clientExe":`, e.ClientExe)
	}
	return append(dst, '}', '\n')
}

// summaryCache remembers the summaries of the small arguments and
// successful results the writer saw recently. A summary is a function of
// those bytes alone, and the same ones recur (a ping, a status poll, the
// defaults of a call without arguments), so a lookup replaces parsing and
// redacting them again. It is used by the writer goroutine only.
type summaryCache struct {
	argSums, resultSums map[string]string
}

const (
	// summaryCacheKeyMax is the largest argument or content (in bytes)
	// whose summary is remembered.
	summaryCacheKeyMax = 512
	// summaryCacheLen is how many summaries of each kind are remembered;
	// past it the cache starts again empty.
	summaryCacheLen = 256
)

// args is summary.OfJSON(raw), remembered when raw is small.
func (c *summaryCache) args(raw []byte) string {
	if c == nil || len(raw) > summaryCacheKeyMax {
		return summary.OfJSON(raw)
	}
	if s, ok := c.argSums[string(raw)]; ok {
		return s
	}
	s := summary.OfJSON(raw)
	c.argSums = remember(c.argSums, raw, s)
	return s
}

// result is summary.OfResult(r), remembered for a success with a small
// content and nothing else (diagnostics and meta are not summarized).
func (c *summaryCache) result(r protocol.ToolResult) string {
	if c == nil || !r.OK || len(r.Content) > summaryCacheKeyMax {
		return summary.OfResult(r)
	}
	if s, ok := c.resultSums[string(r.Content)]; ok {
		return s
	}
	s := summary.OfResult(r)
	c.resultSums = remember(c.resultSums, r.Content, s)
	return s
}

func remember(m map[string]string, key []byte, s string) map[string]string {
	if m == nil || len(m) >= summaryCacheLen {
		m = make(map[string]string, summaryCacheLen)
	}
	m[string(key)] = s
	return m
}
