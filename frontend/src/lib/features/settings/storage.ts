// Settings → Storage: the shapes of the storage tools (issue 18), from the
// generated types of backend/tools/storagetools.

import type * as Gen from '../../bridge/generated/tools';

/** One collection meith keeps under its user data folder. */
export type StorageCollection = Gen.CollectionsResult['collections'] extends (infer C)[] | null ? C : never;

/** storage_list_collections' output. */
export type StorageCollections = Gen.CollectionsResult;

/** storage_export_support_bundle's output. */
export type SupportBundle = Gen.BundleResult;

/** storage_clear_collection's output. */
export type ClearResult = Gen.ClearResult;

/** storage_delete_old_screenshots' output. */
export type ScreenshotsResult = Gen.ScreenshotsResult;

/** storage_prune_stale_agent_sessions' output. */
export type PruneResult = Gen.PruneResult;

/** The audit's retention settings (AppSettings.audit; defaults 90 days / 200 MB). */
export type AuditRetention = Gen.AppSettings['audit'];

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
