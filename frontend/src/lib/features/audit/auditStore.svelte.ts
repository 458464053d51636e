import { call } from '../../bridge';
import { coalesced } from '../../stores/coalesce';
import { liveStore } from '../../stores/live';
import { errorText, resultError } from '../../stores/toasts.svelte';
import { AUDIT_TOPIC, type AuditCaller, type AuditDecision, type AuditEntry, type AuditPage, type AuditQueryArgs } from './types';

/** How many entries one audit_query read asks for. */
export const AUDIT_PAGE = 200;

/** The filters of the Audit panel ('' means any). */
export interface AuditFilters {
  caller: string;
  tool: string;
  decision: string;
  spaceId: string;
  /** A duration audit_query takes as since ("15m", "1h" …), '' for all time. */
  since: string;
  search: string;
}

/**
 * The Audit panel's entries, newest first (audit_query). While the panel is
 * open the store follows the "audit" hint: with the list scrolled to the
 * top new entries are merged in at once; otherwise they are counted
 * (newCount, the "N new" pill) until showNew. Older pages are read by
 * cursor as the list scrolls down.
 */
export class AuditStore {
  /** Newest first; raw: thousands of rows are replaced, never mutated. */
  entries = $state.raw<AuditEntry[]>([]);
  nextCursor = $state('');
  filters = $state<AuditFilters>({ caller: '', tool: '', decision: '', spaceId: '', since: '', search: '' });
  loading = $state(false);
  loadingMore = $state(false);
  error = $state('');
  /** True while the store hears the audit hint. */
  live = $state(false);
  /** Entries that arrived while the list was scrolled down (the first page's worth at most). */
  newCount = $state(0);
  /** Whether the first page held more new entries than it could count. */
  newOverflow = $state(false);
  /** Set by the panel: the list shows its top, so new entries go in at once. */
  atTop = true;
  /** The pointer is over the list: new entries wait in the pill, so the row under it does not move. */
  pointerOver = false;
  selectedId = $state('');
  selected = $derived<AuditEntry | undefined>(this.entries.find((e) => e.id === this.selectedId));

  /** Drops the answers of reads started before the filters last changed. */
  private generation = 0;
  private hints = liveStore(AUDIT_TOPIC, () => this.load(), {
    onHint: () => void this.readTop(),
    onError: (err) => (this.error = errorText(err)),
  });
  private readTop = coalesced(() => this.top());

  /** audit_query's arguments for the filters (and a cursor). */
  args(cursor = ''): AuditQueryArgs {
    const f = this.filters;
    const a: AuditQueryArgs = { limit: AUDIT_PAGE };
    if (f.caller) a.callers = [f.caller as AuditCaller];
    if (f.tool.trim()) a.tools = [f.tool.trim()];
    if (f.decision) a.decisions = [f.decision as AuditDecision];
    if (f.spaceId) a.spaceId = f.spaceId;
    if (f.since) a.since = f.since;
    if (f.search.trim()) a.search = f.search.trim();
    if (cursor) a.cursor = cursor;
    return a;
  }

  private async query(cursor = ''): Promise<AuditPage | undefined> {
    try {
      const r = await call<AuditPage>('audit_query', this.args(cursor) as Record<string, unknown>);
      if (r.ok) {
        this.error = '';
        return { entries: r.content?.entries ?? [], nextCursor: r.content?.nextCursor ?? '' };
      }
      this.error = resultError(r, 'read the audit trail');
    } catch (err) {
      this.error = errorText(err);
    }
    return undefined;
  }

  /** Reads the first page again (the filters changed): the list starts over. */
  async load(): Promise<void> {
    const gen = ++this.generation;
    this.loading = true;
    try {
      const page = await this.query();
      if (gen !== this.generation || !page) return;
      this.entries = page.entries ?? [];
      this.nextCursor = page.nextCursor ?? '';
      this.newCount = 0;
      this.newOverflow = false;
    } finally {
      if (gen === this.generation) this.loading = false;
    }
  }

  /** Reads the next older page (scrolling down); a no-op at the end or during a read. */
  async loadMore(): Promise<void> {
    if (!this.nextCursor || this.loadingMore || this.loading) return;
    const gen = this.generation;
    this.loadingMore = true;
    try {
      const page = await this.query(this.nextCursor);
      if (gen !== this.generation || !page) return;
      const known = new Set(this.entries.map((e) => e.id));
      this.entries = [...this.entries, ...(page.entries ?? []).filter((e) => !known.has(e.id))];
      this.nextCursor = page.nextCursor ?? '';
    } finally {
      this.loadingMore = false;
    }
  }

  /** A hint: merge the new entries at the top, or count them while the list is scrolled down. */
  private async top(): Promise<void> {
    const gen = this.generation;
    const page = await this.query();
    if (gen !== this.generation || !page) return;
    const fresh = page.entries ?? [];
    const known = new Set(this.entries.map((e) => e.id));
    const firstKnown = fresh.findIndex((e) => known.has(e.id));
    const added = firstKnown < 0 ? fresh.length : firstKnown;
    if ((this.atTop && !this.pointerOver) || this.entries.length === 0) {
      if (firstKnown < 0) {
        // More arrived than a page holds (or the list was empty): start over from this page.
        this.entries = fresh;
        this.nextCursor = page.nextCursor ?? '';
      } else if (added > 0) {
        this.entries = [...fresh.slice(0, added), ...this.entries];
      }
      this.newCount = 0;
      this.newOverflow = false;
    } else {
      this.newCount = added;
      this.newOverflow = firstKnown < 0 && !!page.nextCursor;
    }
  }

  /** The pointer entered (true) or left the list; leaving it at the top merges what arrived meanwhile. */
  pointer(over: boolean): void {
    this.pointerOver = over;
    if (!over && this.atTop && this.newCount > 0) void this.readTop();
  }

  /** The "N new" pill: merge what arrived (the panel scrolls to the top). */
  async showNew(): Promise<void> {
    this.atTop = true;
    await this.readTop();
  }

  /** Reads now and on every audit hint until the returned stop is called. */
  follow(): () => void {
    return this.hints.follow((live) => (this.live = live));
  }
}

export const audit = new AuditStore();
