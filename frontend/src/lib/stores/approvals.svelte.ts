import {
  decideApproval,
  pendingApprovals,
  Topics,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../bridge';
import { liveStore } from './live';
import { humanizeError } from '../errors';

/**
 * Privileged socket calls waiting for the desktop user. The Go side pushes a
 * small "approvals_changed" event; the store then re-reads the list.
 */
class ApprovalsStore {
  pending = $state<ApprovalRequest[]>([]);
  error = $state('');
  busy = $state(false);
  private hints = liveStore(Topics.approvalsChanged, () => this.load(), { onError: (err) => (this.error = message(err)) });

  /** Subscribes to approvals_changed and reads the list; returns stop. */
  start(): () => void {
    this.hints.start();
    return () => this.stop();
  }

  stop(): void {
    this.hints.stop();
  }

  /** Re-reads the list (calls during a read coalesce into one more). */
  refresh(): Promise<void> {
    return this.hints.refresh();
  }

  private async load(): Promise<void> {
    try {
      this.pending = await pendingApprovals();
      this.error = '';
    } catch (err) {
      this.error = message(err);
    }
  }

  async decide(id: string, decision: ApprovalDecision): Promise<void> {
    this.busy = true;
    try {
      await decideApproval(id, decision);
      this.error = '';
    } catch (err) {
      this.error = message(err);
    } finally {
      this.busy = false;
      await this.refresh();
    }
  }
}

function message(err: unknown): string {
  return humanizeError(err);
}

export const approvals = new ApprovalsStore();
