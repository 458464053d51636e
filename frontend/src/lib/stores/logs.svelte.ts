import { call, type LogEntry } from '../bridge';
import { errorText } from './toasts.svelte';

/** App log entries (app_get_logs), newest last; polled while the Logs panel is open. */
class LogsStore {
  entries = $state<LogEntry[]>([]);
  error = $state('');
  loading = $state(false);
  level = $state<'' | LogEntry['level']>('');

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      const args: Record<string, unknown> = { limit: 300 };
      if (this.level) args.level = this.level;
      const r = await call<LogEntry[]>('app_get_logs', args);
      if (r.ok) {
        this.entries = r.content ?? [];
        this.error = '';
      } else {
        this.error = `${r.error?.code ?? 'TOOL_FAILED'}: ${r.error?.message ?? 'app_get_logs failed'}`;
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  /** Reads now and every intervalMs until the returned stop is called. */
  poll(intervalMs = 3000): () => void {
    void this.refresh();
    const t = setInterval(() => void this.refresh(), intervalMs);
    return () => clearInterval(t);
  }
}

export const logs = new LogsStore();
