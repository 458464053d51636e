import { call } from '../bridge';
import { humanizeError, humanizeResult } from '../errors';

/** One line of app_health (apptools.Check). */
interface HealthCheck {
  name: string;
  ok: boolean;
  message?: string;
  details?: Record<string, unknown>;
}

/** The app_health content (apptools.Health). */
interface HealthContent {
  status: string;
  checkedAt?: string;
  version?: string;
  pid?: number;
  checks?: HealthCheck[];
}

class HealthStore {
  status = $state<string>('starting');
  socketPath = $state<string>('');
  version = $state<string>('');
  pid = $state<number | null>(null);
  failing = $state<string[]>([]);
  error = $state<string>('');

  async refresh(): Promise<void> {
    try {
      const r = await call<HealthContent>('app_health');
      if (!r.ok || !r.content) {
        this.status = 'error';
        this.error = humanizeResult(r, 'check the runtime');
        return;
      }
      const c = r.content;
      const checks = c.checks ?? [];
      const socket = checks.find((ch) => ch.name === 'socket');
      this.status = c.status;
      this.version = c.version ?? '';
      this.pid = c.pid ?? null;
      this.socketPath = typeof socket?.details?.path === 'string' ? socket.details.path : '';
      this.failing = checks.filter((ch) => !ch.ok).map((ch) => (ch.message ? `${ch.name}: ${ch.message}` : ch.name));
      this.error = '';
    } catch (err) {
      this.status = 'error';
      this.error = humanizeError(err);
    }
  }
}

export const health = new HealthStore();
