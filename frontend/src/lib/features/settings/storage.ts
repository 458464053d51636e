// Settings → Storage: the shapes of the storage tools (issue 18), written by
// hand from the contract in the plan until the generated types
// (bridge/generated/tools.ts) have them; the lead swaps these for the
// generated ones.

/** One collection meith keeps under its user data folder. */
export interface StorageCollection {
  name: string;
  kind: 'json' | 'jsonl' | 'directory';
  path: string;
  description: string;
  exists: boolean;
  sizeBytes: number;
  files: number;
  clearable: boolean;
}

/** storage_list_collections' output. */
export interface StorageCollections {
  dataDirectory: string;
  collections: StorageCollection[] | null;
}

/** storage_export_support_bundle's output. */
export interface SupportBundle {
  path: string;
  bytes: number;
}

/** storage_clear_collection's output. */
export interface ClearResult {
  collection: string;
  deletedBytes: number;
  deletedFiles: number;
}

/** storage_delete_old_screenshots' output. */
export interface ScreenshotsResult {
  deletedFiles: number;
  deletedBytes: number;
  cutoff: string;
}

/** storage_prune_stale_agent_sessions' output. */
export interface PruneResult {
  collection: string;
  deletedSessions: number;
  deletedBytes: number;
  cutoff: string;
}

/** The audit's retention settings (AppSettings.audit; defaults 90 days / 200 MB). */
export interface AuditRetention {
  retentionDays: number;
  maxMB: number;
}

export const AUDIT_RETENTION_DEFAULTS: AuditRetention = { retentionDays: 90, maxMB: 200 };
export const AUDIT_RETENTION_LIMITS = { retentionDays: [1, 3650], maxMB: [1, 10000] } as const;

/** A size in human units (1024-based): "0 B", "812 B", "3.2 MB". */
export function humanBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${Math.max(0, Math.round(n || 0))} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, '')} ${units[u]}`;
}

/** The toast after a clean-up: "Freed 3.2 MB (14 files)". */
export function freedText(bytes: number, count: number, noun = 'file', plural = `${noun}s`): string {
  return `Freed ${humanBytes(bytes)} (${count} ${count === 1 ? noun : plural})`;
}
