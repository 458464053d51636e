// The audit trail as the window reads it (issue 18): the generated types of
// audit.Entry and audit_query, with the decision narrowed to its six values.

import { Topics } from '../../bridge/types';
import type * as Gen from '../../bridge/generated/tools';

/** How a call was decided (Go: audit.Decision…). */
export type AuditDecision = 'allow' | 'approved' | 'deny' | 'refused' | 'cancelled' | 'timeout';

/** The six decisions, in the order the filter offers them. */
export const AUDIT_DECISIONS: readonly AuditDecision[] = ['allow', 'approved', 'deny', 'refused', 'cancelled', 'timeout'];

/** Who can call a tool (backend/protocol Caller). */
export const AUDIT_CALLERS = ['renderer', 'cli', 'agent', 'plugin', 'internal'] as const;

/** One line of audit.jsonl (Go: audit.Entry). */
export type AuditEntry = Omit<Gen.AuditEntry, 'decision'> & { decision: AuditDecision | string };

/** The input of audit_query. */
export type AuditQueryArgs = Gen.QueryInput;

/** A caller audit_query filters by. */
export type AuditCaller = NonNullable<Gen.QueryInput['callers']>[number];

/** The output of audit_query: newest first. */
export type AuditPage = Omit<Gen.QueryResult, 'entries'> & { entries: AuditEntry[] | null };

/** The hint topic the backend publishes on every appended batch (hint.AuditAppended). */
export const AUDIT_TOPIC = Topics.audit;

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
