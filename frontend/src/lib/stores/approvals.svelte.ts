import {
  decideApproval,
  pendingApprovals,
  subscribe,
  BridgeError,
  Topics,
  type ApprovalDecision,
  type ApprovalRequest,
} from '../bridge';

/**
 * Privileged socket calls waiting for the desktop user. The Go side pushes a
 * small "approvals_changed" event; the store then re-reads the list.
 */
class ApprovalsStore {
  pending = $state<ApprovalRequest[]>([]);
  error = $state('');
  busy = $state(false);
  private off: (() => void) | null = null;

  start(): () => void {
    if (!this.off) {
      try {
        this.off = subscribe(Topics.approvalsChanged, () => void this.refresh());
      } catch (err) {
        this.error = message(err);
      }
    }
    void this.refresh();
    return () => this.stop();
  }

  stop(): void {
    this.off?.();
    this.off = null;
  }

  async refresh(): Promise<void> {
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
  return err instanceof BridgeError ? `${err.code}: ${err.message}` : String(err);
}

export const approvals = new ApprovalsStore();
