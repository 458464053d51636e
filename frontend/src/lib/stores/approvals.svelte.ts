import {
  decideApproval,
  pendingApprovals,
  Topics,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../bridge';
import { liveStore, LiveModel } from './live';
import { humanizeError } from '../errors';

/**
 * Privileged socket calls waiting for the desktop user. The Go side pushes a
 * small "approvals_changed" event; the store then re-reads the list.
 */
class ApprovalsStore extends LiveModel {
  pending = $state<ApprovalRequest[]>([]);
  error = $state('');
  busy = $state(false);
  /** Follows approvals_changed: start, stop and refresh (LiveModel) re-read the list. */
  protected readonly hints = liveStore(Topics.approvalsChanged, () => this.load(), { onError: (err) => (this.error = message(err)) });

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
