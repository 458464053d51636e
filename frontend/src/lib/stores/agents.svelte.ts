/**
 * The agent tab's state for one space: its sessions (agent_list_sessions),
 * the open session's transcript (agent_get_transcript), the configured agent
 * (agent_get_config), the composer's staged attachments, the live text of a
 * run this window started, and the open session's git checkpoints.
 *
 * The Go side sends "agent_changed" hints; the store re-reads the list and,
 * for the open session, the transcript (bursts coalesce into one more read).
 * While a session runs a slow timer re-reads as a fallback. Actions are tool
 * calls; failures become toasts and resolve to undefined/false — nothing
 * here throws.
 */
import {
  call,
  Topics,
  type AgentAttachment,
  type AgentChangedPayload,
  type AgentConfigOption,
  type AgentConfigResult,
  type AgentMessage,
  type AgentSendResult,
  type AgentSession,
  type AgentSessionListItem,
  type AgentTranscript,
  type GitCheckpoint,
  type GitCheckpointComparison,
  type GitCheckpointRestoreResult,
  type ToolEvent,
} from '../bridge';
import { coalesced } from './coalesce';
import { confirmDialog } from './dialogs.svelte';
import { offerUndo, repoWritten } from './gitWrites';
import { liveStore } from './live';
import { callForAction, errorText, resultError, toasts } from './toasts.svelte';

/** How often the list and the open transcript are re-read while a session runs (hints are the main path). */
export const FALLBACK_MS = 5000;
/** The largest attachment agent_stage_attachment takes. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Option ids/categories that mean "reasoning level". */
const REASONING_IDS = new Set(['thought_level', 'reasoning', 'reasoning_effort', 'effort', 'thinking']);

/** The model option among an agent's options. */
export function modelOption(options: AgentConfigOption[] | null | undefined): AgentConfigOption | undefined {
  return options?.find((o) => o.category === 'model' || o.id === 'model');
}

/** The reasoning-level option among an agent's options. */
export function reasoningOption(options: AgentConfigOption[] | null | undefined): AgentConfigOption | undefined {
  return options?.find((o) => REASONING_IDS.has(o.category ?? '') || REASONING_IDS.has(o.id));
}

/** A prompt this window is sending, shown until the transcript has it. */
export interface LiveRun {
  sessionId: string;
  /** The user's text and attachments (shown until the transcript holds the message). */
  text: string;
  attachments: AgentAttachment[];
  /** How many user messages the transcript had when the prompt was sent. */
  userCount: number;
  /** The answer text streamed so far (partial_text events). */
  answer: string;
}

/** A shown checkpoint comparison. */
export interface ShownComparison {
  id: string;
  result: GitCheckpointComparison;
}

/** The key the session list's collapsed state is kept under (an object of spaceId → true). */
export const COLLAPSED_KEY = 'meith.agentSessionsCollapsedBySpace';

function readCollapsed(): Record<string, boolean> {
  try {
    const raw = globalThis.localStorage?.getItem(COLLAPSED_KEY);
    const v = raw ? JSON.parse(raw) : {};
    return v && typeof v === 'object' ? (v as Record<string, boolean>) : {};
  } catch {
    return {};
  }
}

function base64Of(bytes: Uint8Array): string {
  let bin = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) bin += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(bin);
}

const userCount = (messages: AgentMessage[] | null | undefined) => (messages ?? []).filter((m) => m.role === 'user').length;

export class AgentStore {
  /** The space whose sessions are listed ('' lists them by folder). */
  readonly spaceId: string;
  /** The folder new sessions run in. */
  readonly cwd: string;

  sessions = $state<AgentSessionListItem[]>([]);
  /** True once the first list read finished (ok or not). */
  loaded = $state(false);
  /** Why the last read failed ('' when it did not). */
  error = $state('');
  selectedId = $state('');
  transcript = $state<AgentTranscript | null>(null);
  config = $state<AgentConfigResult | null>(null);
  /** The runs this window started, by session, while their calls are in flight. */
  runs = $state<Record<string, LiveRun>>({});
  /** The open session's run started here, if any. */
  live = $derived<LiveRun | null>(this.runs[this.selectedId] ?? null);
  /** Attachments staged for the next prompt. */
  staged = $state<AgentAttachment[]>([]);
  /** How many files are being staged. */
  staging = $state(0);
  /** Tool calls whose permission decision is being sent. */
  deciding = $state<Record<string, true>>({});
  /** Tool calls of the open session this window answered (their cards go before the re-read shows it). */
  decided = $state<Record<string, true>>({});
  /** The open session's checkpoints, newest first; null while unknown or when its folder is not a git repository. */
  checkpoints = $state<GitCheckpoint[] | null>(null);
  comparison = $state<ShownComparison | null>(null);
  /** Whether the session list is collapsed (per space, kept in localStorage). */
  collapsed = $state(false);

  /** The open session: its list entry, else the transcript's copy. */
  selected = $derived<AgentSessionListItem | AgentSession | undefined>(
    this.sessions.find((s) => s.id === this.selectedId) ??
      (this.transcript?.session.id === this.selectedId ? this.transcript?.session : undefined),
  );
  /** The open session runs (started here or elsewhere). */
  running = $derived(
    !!this.live ||
      this.selected?.status === 'running' ||
      (this.transcript?.session.id === this.selectedId && this.transcript?.session.status === 'running'),
  );
  /** No agent is configured (Settings → Agent). */
  noAgent = $derived(this.config?.config.preset === '');
  /** The options the open session's agent advertises (else the configured agent's). */
  options = $derived<AgentConfigOption[]>(
    (this.transcript?.session.id === this.selectedId ? this.transcript?.options : null) ?? this.config?.options ?? [],
  );

  private timer: ReturnType<typeof setInterval> | null = null;
  private aborts = new Map<string, AbortController>();
  private marking = '';
  /** agent_changed: a hint re-reads the list, and the open transcript when it concerns it. */
  private hints = liveStore<AgentChangedPayload>(Topics.agentChanged, () => this.loadList(), {
    onHint: (p) => this.onHint(p),
    onError: (err) => (this.error = errorText(err)),
    readOnStart: false, // start() reads the list and the transcript
  });
  private readList = () => this.hints.refresh();
  private readTranscript = coalesced(() => this.loadTranscript());

  constructor(spaceId: string, cwd: string) {
    this.spaceId = spaceId;
    this.cwd = cwd;
    this.collapsed = !!readCollapsed()[spaceId || cwd];
  }

  /** Subscribes to agent_changed and reads everything; returns stop. */
  start(): () => void {
    this.hints.start();
    void this.loadConfig();
    void this.refresh();
    return () => this.stop();
  }

  stop(): void {
    this.hints.stop();
    this.setTimer(false);
  }

  private onHint(p: AgentChangedPayload | null | undefined): void {
    const id = p?.sessionId ?? '';
    if (p?.kind === 'deleted' && id && id === this.selectedId) {
      this.selectedId = '';
      this.transcript = null;
      this.checkpoints = null;
      this.comparison = null;
    }
    void this.readList();
    if (this.selectedId && (id === '' || id === this.selectedId) && p?.kind !== 'deleted') void this.readTranscript();
  }

  /** Re-reads the list and the open transcript. */
  async refresh(): Promise<void> {
    await Promise.all([this.readList(), this.selectedId ? this.readTranscript() : Promise.resolve()]);
  }

  private async loadList(): Promise<void> {
    const args: Record<string, unknown> = this.spaceId ? { spaceId: this.spaceId } : { cwd: this.cwd };
    try {
      const r = await call<{ sessions: AgentSessionListItem[] | null }>('agent_list_sessions', args);
      if (r.ok) {
        this.sessions = r.content?.sessions ?? [];
        this.error = '';
        this.afterList();
      } else {
        this.error = resultError(r, 'agent_list_sessions');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loaded = true;
      this.syncTimer();
    }
  }

  /** After a list read: pick a session when none is open, and mark a finished open session seen. */
  private afterList(): void {
    if (this.selectedId && !this.sessions.some((s) => s.id === this.selectedId) && !this.runs[this.selectedId]) {
      // The open session is gone (deleted elsewhere).
      this.selectedId = '';
      this.transcript = null;
      this.checkpoints = null;
      this.comparison = null;
    }
    if (!this.selectedId && this.sessions.length > 0) {
      void this.select(this.sessions[0].id);
      return;
    }
    const open = this.sessions.find((s) => s.id === this.selectedId);
    if (open?.unseen && open.status !== 'running' && this.marking !== open.id) void this.markViewed(open.id);
  }

  private async loadTranscript(): Promise<void> {
    const id = this.selectedId;
    if (!id) return;
    try {
      const r = await call<AgentTranscript>('agent_get_transcript', { sessionId: id });
      if (id !== this.selectedId) return; // another session was opened meanwhile
      if (r.ok && r.content) {
        const before = this.transcript?.session.status;
        this.transcript = r.content;
        this.error = '';
        // A run started or ended: its checkpoint list changed.
        if (before !== undefined && before !== r.content.session.status && this.checkpoints) void this.loadCheckpoints();
      } else if (!r.ok) {
        this.error = resultError(r, 'agent_get_transcript');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.syncTimer();
    }
  }

  /** Starts the fallback timer while a session runs, stops it otherwise. */
  private syncTimer(): void {
    const anyRunning = Object.keys(this.runs).length > 0 || this.sessions.some((s) => s.status === 'running') || this.transcript?.session.status === 'running';
    this.setTimer(anyRunning && this.hints.subscribed);
  }

  private setTimer(on: boolean): void {
    if (on && !this.timer) {
      this.timer = setInterval(() => void this.refresh(), FALLBACK_MS);
    } else if (!on && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Reads the configured agent. */
  async loadConfig(): Promise<void> {
    try {
      const r = await call<AgentConfigResult>('agent_get_config', {});
      if (r.ok && r.content) this.config = r.content;
    } catch {
      // the composer then offers no agent details; the list read reports the bridge error
    }
  }

  /** Opens a session: reads its transcript and marks it viewed. */
  async select(id: string): Promise<void> {
    if (id === this.selectedId && this.transcript?.session.id === id) return;
    this.selectedId = id;
    this.transcript = null;
    this.checkpoints = null;
    this.comparison = null;
    this.staged = [];
    this.decided = {};
    if (!id) return;
    const item = this.sessions.find((s) => s.id === id);
    await Promise.all([this.readTranscript(), item?.unseen !== false ? this.markViewed(id) : Promise.resolve()]);
  }

  private async markViewed(id: string): Promise<void> {
    this.marking = id;
    try {
      const r = await callForAction<{ session: AgentSession }>('agent_update_session', { sessionId: id, viewed: true });
      if (r) this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, ...r.content.session, unseen: false } : s));
    } finally {
      if (this.marking === id) this.marking = '';
    }
  }

  /** Creates a session in the tab's folder and opens it. */
  async createSession(): Promise<AgentSession | undefined> {
    const args: Record<string, unknown> = { cwd: this.cwd };
    if (this.spaceId) args.spaceId = this.spaceId;
    const r = await callForAction<{ session: AgentSession }>('agent_create_session', args);
    if (!r) return undefined;
    const s = r.content.session;
    this.sessions = [{ ...s, unseen: false, pendingPermissions: 0 }, ...this.sessions.filter((x) => x.id !== s.id)];
    this.selectedId = s.id;
    this.transcript = { session: s, messages: [], omitted: false, pendingPermissions: [], options: null };
    this.checkpoints = null;
    this.comparison = null;
    this.staged = [];
    void this.readList();
    return s;
  }

  /** Deletes a session after confirm(question) agrees (default: the in-app dialog). */
  async deleteSession(id: string, confirm: (question: string) => boolean | Promise<boolean> = askDelete): Promise<boolean> {
    const s = this.sessions.find((x) => x.id === id);
    if (!(await confirm(`Delete the agent session "${s?.title ?? id}"? Its transcript is removed.`))) return false;
    const r = await callForAction<{ deleted: boolean }>('agent_delete_session', { sessionId: id });
    if (!r) return false;
    this.sessions = this.sessions.filter((x) => x.id !== id);
    if (this.selectedId === id) {
      this.selectedId = '';
      this.transcript = null;
      this.checkpoints = null;
      this.comparison = null;
      if (this.sessions.length > 0) void this.select(this.sessions[0].id);
    }
    void this.readList();
    return true;
  }

  /**
   * Sends a prompt (with the staged attachments) to the open session, or to
   * a new one. Resolves when the run ends: true when it was sent.
   */
  async send(text: string): Promise<boolean> {
    const body = text.trim();
    if (!body && this.staged.length === 0) return false;
    let id = this.selectedId;
    if (id && this.runs[id]) return false;
    if (!id) {
      const s = await this.createSession();
      if (!s) return false;
      id = s.id;
    }
    const attachments = $state.snapshot(this.staged);
    this.staged = [];
    const abort = new AbortController();
    this.aborts.set(id, abort);
    this.runs = { ...this.runs, [id]: { sessionId: id, text: body, attachments, userCount: userCount(this.transcript?.messages), answer: '' } };
    this.syncTimer();
    const onEvent = (ev: ToolEvent) => {
      const run = this.runs[id];
      if (ev.kind === 'partial_text' && ev.text && run) run.answer += ev.text;
    };
    const args: Record<string, unknown> = { sessionId: id, text: body };
    if (attachments.length > 0) args.attachments = attachments;
    let sent = true;
    try {
      const r = await call<AgentSendResult>('agent_send_message', args, { onEvent, signal: abort.signal });
      if (!r.ok && r.error?.code !== 'CANCELLED') {
        toasts.push(resultError(r, 'agent_send_message'));
        // Nothing was sent (e.g. a run in progress): give the attachments back.
        const code: string = r.error?.code ?? '';
        if (code === 'CONFLICT' || code === 'VALIDATION_ERROR') {
          sent = false;
          if (this.selectedId === id) this.staged = [...attachments, ...this.staged];
        }
      }
    } catch (err) {
      toasts.push(errorText(err));
      sent = false;
    } finally {
      if (this.aborts.get(id) === abort) this.aborts.delete(id);
      const { [id]: _, ...rest } = this.runs;
      this.runs = rest;
      void this.refresh();
    }
    return sent;
  }

  /** Stops the open session's run. */
  async cancel(): Promise<void> {
    const id = this.selectedId;
    if (!id) return;
    await callForAction<{ cancelled: boolean }>('agent_cancel', { sessionId: id });
    this.aborts.get(id)?.abort();
  }

  /** Answers a permission card of the open session. */
  async decide(toolCallId: string, decision: 'allow' | 'deny', remember: boolean): Promise<boolean> {
    const sessionId = this.selectedId;
    if (!sessionId || this.deciding[toolCallId]) return false;
    this.deciding = { ...this.deciding, [toolCallId]: true };
    try {
      const r = await callForAction<{ decided: boolean }>('agent_decide_permission', { sessionId, toolCallId, decision, remember });
      if (r) this.decided = { ...this.decided, [toolCallId]: true };
      if (r && this.transcript?.session.id === sessionId) {
        // The card goes at once; the re-read brings the tool call's new status.
        this.transcript.pendingPermissions = (this.transcript.pendingPermissions ?? []).filter((p) => p.toolCallId !== toolCallId);
      }
      void this.refresh();
      return !!r;
    } finally {
      const { [toolCallId]: _, ...rest } = this.deciding;
      this.deciding = rest;
    }
  }

  /** Changes the open session's model, reasoning level or access. */
  async updateSession(patch: { model?: string; reasoning?: string; autoAccept?: boolean; title?: string }): Promise<boolean> {
    const id = this.selectedId;
    if (!id) return false;
    const r = await callForAction<{ session: AgentSession }>('agent_update_session', { sessionId: id, ...patch });
    if (!r) return false;
    const s = r.content.session;
    this.sessions = this.sessions.map((x) => (x.id === id ? { ...x, ...s } : x));
    if (this.transcript?.session.id === id) this.transcript.session = s;
    return true;
  }

  /** Stages a file for the next prompt (creating a session when none is open). */
  async stageFile(file: File): Promise<AgentAttachment | undefined> {
    if (file.size > MAX_ATTACHMENT_BYTES) {
      toasts.push(`"${file.name}" is ${(file.size / 1024 / 1024).toFixed(1)} MiB: attachments are limited to 10 MiB each.`);
      return undefined;
    }
    this.staging++;
    try {
      let id = this.selectedId;
      if (!id) {
        const s = await this.createSession();
        if (!s) return undefined;
        id = s.id;
      }
      let data: string;
      try {
        data = base64Of(new Uint8Array(await file.arrayBuffer()));
      } catch (err) {
        toasts.push(`"${file.name}" could not be read: ${errorText(err)}`);
        return undefined;
      }
      const r = await callForAction<AgentAttachment>('agent_stage_attachment', { sessionId: id, name: file.name || 'pasted', data });
      if (!r) return undefined;
      if (this.selectedId === id) this.staged = [...this.staged, r.content];
      return r.content;
    } finally {
      this.staging--;
    }
  }

  /** Removes a staged attachment from the next prompt. */
  unstage(path: string): void {
    this.staged = this.staged.filter((a) => a.path !== path);
  }

  /** Collapses or expands the session list (kept per space). */
  toggleCollapsed(): void {
    this.collapsed = !this.collapsed;
    const all = readCollapsed();
    const key = this.spaceId || this.cwd;
    if (this.collapsed) all[key] = true;
    else delete all[key];
    try {
      globalThis.localStorage?.setItem(COLLAPSED_KEY, JSON.stringify(all));
    } catch {
      // no storage: the choice lasts for this session
    }
  }

  /** The folder of the open session (its checkpoints live in its repository). */
  private get sessionCwd(): string {
    return this.selected?.cwd || this.cwd;
  }

  /** Reads the open session's checkpoints; a folder outside git hides them (null). */
  async loadCheckpoints(): Promise<void> {
    const id = this.selectedId;
    if (!id) return;
    try {
      const r = await call<GitCheckpoint[] | { checkpoints: GitCheckpoint[] | null }>('git_checkpoint_list', { cwd: this.sessionCwd });
      if (id !== this.selectedId) return;
      if (!r.ok) {
        this.checkpoints = null;
        return;
      }
      const list = Array.isArray(r.content) ? r.content : (r.content?.checkpoints ?? []);
      this.checkpoints = list
        .filter((c) => c.sessionId === id)
        .sort((a, b) => (Date.parse(b.createdAt) || 0) - (Date.parse(a.createdAt) || 0));
    } catch {
      this.checkpoints = null;
    }
  }

  /** Compares a checkpoint with the working tree (toggles off when shown). */
  async compare(checkpointId: string): Promise<void> {
    if (this.comparison?.id === checkpointId) {
      this.comparison = null;
      return;
    }
    const r = await callForAction<GitCheckpointComparison>('git_checkpoint_compare', {
      cwd: this.sessionCwd,
      left: checkpointId,
      includePatch: true,
    });
    if (r) this.comparison = { id: checkpointId, result: r.content };
  }

  /** Restores a checkpoint after confirm(question) agrees (default: the in-app dialog); the toast offers Undo. */
  async restore(
    checkpointId: string,
    confirm: (question: string) => boolean | Promise<boolean> = askRestore,
  ): Promise<GitCheckpointRestoreResult | undefined> {
    const cp = this.checkpoints?.find((c) => c.id === checkpointId);
    const name = cp?.label ? `"${cp.label}"` : checkpointId;
    if (!(await confirm(`Restore checkpoint ${name}? The working tree and index are replaced by its files; a checkpoint of the present state is taken first.`))) {
      return undefined;
    }
    const cwd = this.sessionCwd;
    const r = await callForAction<GitCheckpointRestoreResult>('git_checkpoint_restore', { cwd, id: checkpointId, confirm: true });
    if (!r) return undefined;
    const pre = r.content.preRestore?.id;
    offerUndo(`Restored checkpoint ${name} (the state before it is checkpoint ${pre ?? 'unknown'}).`, cwd, pre);
    repoWritten(r.content.status?.root ?? cwd);
    this.comparison = null;
    void this.loadCheckpoints();
    return r.content;
  }
}

function askDelete(question: string): Promise<boolean> {
  return confirmDialog({ title: 'Delete agent session?', message: question, confirmLabel: 'Delete session', destructive: true });
}

function askRestore(question: string): Promise<boolean> {
  return confirmDialog({ title: 'Restore checkpoint?', message: question, confirmLabel: 'Restore checkpoint', destructive: true });
}
