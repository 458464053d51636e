import { call, Topics, type LogEntry } from '../bridge';
import { liveStore } from './live';
import { errorText, resultError } from './toasts.svelte';

/**
 * App log entries (app_get_logs), newest last. While the Logs panel is open
 * the store is live: every "logs_appended" hint from the Go side triggers a
 * re-read (hints arriving during a read coalesce into one more read).
 */
export class LogsStore {
  entries = $state<LogEntry[]>([]);
  error = $state('');
  loading = $state(false);
  level = $state<'' | LogEntry['level']>('');
  /** True while the store follows logs_appended hints. */
  live = $state(false);

  private hints = liveStore(Topics.logsAppended, () => this.load(), { onError: (err) => (this.error = errorText(err)) });

  /** Re-reads the newest entries (calls during a read coalesce into one more). */
  refresh(): Promise<void> {
    return this.hints.refresh();
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      const args: Record<string, unknown> = { limit: 300 };
      if (this.level) args.level = this.level;
      const r = await call<LogEntry[]>('app_get_logs', args);
      if (r.ok) {
        this.entries = r.content ?? [];
        this.error = '';
      } else {
        this.error = resultError(r, 'read the log');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  /** Reads now and again on every logs_appended hint until the returned stop is called. */
  follow(): () => void {
    return this.hints.follow((live) => (this.live = live));
  }
}

export const logs = new LogsStore();
