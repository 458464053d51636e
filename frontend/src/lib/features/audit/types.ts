// The audit trail as the window reads it (issue 18). Written by hand from
// the contract in the plan (audit.Entry, audit_query, the "audit"
// hint topic) before the generated types (bridge/generated/tools.ts) have
// them: once `go generate` emits AuditEntry and audit_query, these are
// replaced by the generated ones.

import type { HintTopic } from '../../stores/live';

/** How a call was decided (Go: audit.Decision…). */
export type AuditDecision = 'allow' | 'approved' | 'deny' | 'refused' | 'cancelled' | 'timeout';

/** The six decisions, in the order the filter offers them. */
export const AUDIT_DECISIONS: readonly AuditDecision[] = ['allow', 'approved', 'deny', 'refused', 'cancelled', 'timeout'];

/** Who can call a tool (backend/protocol Caller). */
export const AUDIT_CALLERS = ['renderer', 'cli', 'agent', 'plugin', 'internal'] as const;

/** One line of audit.jsonl (Go: audit.Entry). */
export interface AuditEntry {
  id: string;
  ts: string;
  caller: string;
  toolName: string;
  capabilities: string[];
  decision: AuditDecision | string;
  cwd: string;
  sessionId?: string;
  spaceId?: string;
  tabId?: string;
  /** The redacted arguments (summary.Of: JSON text, possibly shortened). */
  argsSummary: string;
  /** The redacted result envelope (summary.Of). */
  resultSummary: string;
  durationMs: number;
  /** The protocol request id, or the window's binding call id. */
  requestId?: string;
  /** The approval request's id when one was asked. */
  approvalId?: string;
  /** Where the answer came from ("window", "agent-card", "cli", "rule" …). */
  decidedBy?: string;
  /** How long the call waited for the answer. */
  waitedMs?: number;
  clientPid?: number;
  clientExe?: string;
}

/** The input of audit_query. */
export interface AuditQueryArgs {
  callers?: string[];
  tools?: string[];
  decisions?: string[];
  spaceId?: string;
  /** RFC3339 or a duration like "1h". */
  since?: string;
  until?: string;
  search?: string;
  limit?: number;
  cursor?: string;
}

/** The output of audit_query: newest first. */
export interface AuditPage {
  entries: AuditEntry[] | null;
  nextCursor?: string;
}

/**
 * The hint topic the backend publishes on every appended batch (payload
 * AuditAppended{count}). Not in bridge Topics yet: the lead adds it there.
 */
export const AUDIT_TOPIC = 'audit' as HintTopic;

/** How a decision is shown: words, an icon, and whether it stands out (the call did not run as asked). */
export interface DecisionLook {
  label: string;
  icon: string;
  /** denied / refused / cancelled / timeout: drawn in the danger colour, with an icon and text. */
  bad: boolean;
}

const looks: Record<AuditDecision, DecisionLook> = {
  allow: { label: 'allowed', icon: '✓', bad: false },
  approved: { label: 'approved', icon: '✔', bad: false },
  deny: { label: 'denied', icon: '⛔', bad: true },
  refused: { label: 'refused', icon: '✋', bad: true },
  cancelled: { label: 'cancelled', icon: '⊘', bad: true },
  timeout: { label: 'timed out', icon: '⏱', bad: true },
};

/** The look of a decision; an unknown one is shown as it is and stands out. */
export function decisionLook(d: string): DecisionLook {
  return looks[d as AuditDecision] ?? { label: d || 'unknown', icon: '?', bad: true };
}

/** The time windows the filter offers, as audit_query's since. */
export const AUDIT_WINDOWS: readonly { value: string; label: string }[] = [
  { value: '15m', label: 'Last 15 min' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 h' },
  { value: '168h', label: 'Last 7 days' },
  { value: '', label: 'All time' },
];

/** A summary pretty-printed when it is JSON, else as it is. */
export function prettySummary(s: string | undefined): string {
  if (!s) return '';
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
