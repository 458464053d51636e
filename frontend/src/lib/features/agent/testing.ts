// A stand-in for the bridge in the agent tab's tests: the agent tools answer
// from a small in-memory model, agent_send_message runs until the test ends
// it (streaming partial_text on request), and "agent_changed" hints are
// emitted by hand. Tests mock '../../bridge' (or '../bridge') with call and
// subscribe from here.
import type {
  AgentConfigResult,
  AgentMessage,
  AgentSession,
  AgentSessionListItem,
  AgentTranscript,
  GitCheckpoint,
  GitCheckpointComparison,
  ToolEvent,
  ToolResult,
} from '../../bridge';

export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
}

interface Run {
  args: Record<string, unknown>;
  onEvent?: (e: ToolEvent) => void;
  signal?: AbortSignal;
  resolve: (r: ToolResult) => void;
}

export function session(over: Partial<AgentSessionListItem> = {}): AgentSessionListItem {
  return {
    id: 'sess_1',
    title: 'Fix login',
    cwd: '/home/me/shop',
    spaceId: 'space_1',
    adapter: 'claude',
    autoAccept: false,
    status: 'idle',
    createdAt: 1_000,
    updatedAt: 2_000,
    lastViewedAt: 2_000,
    unseen: false,
    pendingPermissions: 0,
    ...over,
  };
}

export function transcript(s: AgentSession, messages: AgentMessage[] = [], over: Partial<AgentTranscript> = {}): AgentTranscript {
  const { unseen: _u, pendingPermissions: _p, ...plain } = s as AgentSessionListItem;
  return { session: plain, messages, omitted: false, pendingPermissions: [], options: [], ...over };
}

export function createAgentFake() {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const db = {
    calls: [] as RecordedCall[],
    sessions: [] as AgentSessionListItem[],
    transcripts: {} as Record<string, AgentTranscript>,
    config: {
      config: { preset: 'claude', command: 'npx', args: [], model: '', reasoning: '', autoAccept: false },
      presets: [{ id: 'claude', label: 'Claude Code', command: 'npx', args: [], installHint: '' }],
      options: [],
    } as AgentConfigResult,
    /** null: the folder is not a git repository. */
    checkpoints: [] as GitCheckpoint[] | null,
    comparison: null as GitCheckpointComparison | null,
    /** Tools that fail, with their error. */
    fail: {} as Record<string, { code: string; message: string }>,
    /** The run in progress (the last one started). */
    run: null as Run | null,
    /** Every run started. */
    runs: [] as Run[],
    seq: 0,
  };

  function reset(): void {
    db.calls = [];
    db.sessions = [];
    db.transcripts = {};
    db.config = {
      config: { preset: 'claude', command: 'npx', args: [], model: '', reasoning: '', autoAccept: false },
      presets: [{ id: 'claude', label: 'Claude Code', command: 'npx', args: [], installHint: '' }],
      options: [],
    };
    db.checkpoints = [];
    db.comparison = null;
    db.fail = {};
    db.run = null;
    db.runs = [];
    db.seq = 0;
    listeners.clear();
  }

  function ok<T>(content: T): ToolResult<T> {
    return { ok: true, content: structuredClone(content) };
  }

  async function call(tool: string, args: Record<string, unknown> = {}, opts: { onEvent?: (e: ToolEvent) => void; signal?: AbortSignal } = {}): Promise<ToolResult> {
    db.calls.push({ tool, args: structuredClone(args) });
    await Promise.resolve();
    const f = db.fail[tool];
    if (f) return { ok: false, error: f as ToolResult['error'] };
    const sid = String(args.sessionId ?? '');
    switch (tool) {
      case 'agent_get_config':
        return ok(db.config);
      case 'agent_list_sessions':
        return ok({ sessions: db.sessions });
      case 'agent_get_transcript': {
        const t = db.transcripts[sid];
        if (t) return ok(t);
        const s = db.sessions.find((x) => x.id === sid);
        if (!s) return { ok: false, error: { code: 'TOOL_FAILED', message: `Unknown session ${sid}` } };
        return ok(transcript(s));
      }
      case 'agent_create_session': {
        const s = session({ id: `sess_new${++db.seq}`, title: 'New session', cwd: String(args.cwd ?? ''), spaceId: (args.spaceId as string) ?? null, createdAt: 9_000 + db.seq, updatedAt: 9_000 + db.seq });
        db.sessions = [s, ...db.sessions];
        const { unseen: _u, pendingPermissions: _p, ...plain } = s;
        return ok({ session: plain });
      }
      case 'agent_update_session': {
        const s = db.sessions.find((x) => x.id === sid);
        if (!s) return { ok: false, error: { code: 'TOOL_FAILED', message: `Unknown session ${sid}` } };
        if (args.viewed) {
          s.lastViewedAt = s.updatedAt;
          s.unseen = false;
        }
        for (const k of ['model', 'reasoning', 'autoAccept', 'title'] as const) {
          if (k in args) (s as unknown as Record<string, unknown>)[k] = args[k];
        }
        const { unseen: _u, pendingPermissions: _p, ...plain } = s;
        if (db.transcripts[sid]) db.transcripts[sid].session = structuredClone(plain);
        return ok({ session: plain });
      }
      case 'agent_delete_session':
        db.sessions = db.sessions.filter((x) => x.id !== sid);
        return ok({ deleted: true });
      case 'agent_send_message':
        return new Promise<ToolResult>((resolve) => {
          const run: Run = { args, onEvent: opts.onEvent, signal: opts.signal, resolve };
          db.run = run;
          db.runs.push(run);
          opts.signal?.addEventListener('abort', () => resolve({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } }), { once: true });
        });
      case 'agent_cancel':
        return ok({ cancelled: true });
      case 'agent_decide_permission': {
        const t = db.transcripts[sid];
        if (t) t.pendingPermissions = (t.pendingPermissions ?? []).filter((p) => p.toolCallId !== args.toolCallId);
        return ok({ decided: true });
      }
      case 'agent_stage_attachment':
        return ok({ name: String(args.name), path: `/home/me/shop/.meith/attachments/${String(args.name)}`, size: atob(String(args.data)).length });
      case 'git_checkpoint_list':
        if (db.checkpoints === null) return { ok: false, error: { code: 'TOOL_FAILED', message: 'not a git repository' } };
        return ok(db.checkpoints);
      case 'git_checkpoint_compare':
        return ok(db.comparison);
      case 'git_checkpoint_restore':
        return ok({
          checkpoint: db.checkpoints?.find((c) => c.id === args.id),
          preRestore: { id: 'cp_pre', createdAt: new Date(0).toISOString(), label: `Before restoring ${String(args.id)}`, source: 'restore' },
        });
      case 'app_get_state':
        return { ok: false, error: { code: 'TOOL_FAILED', message: 'not here' } };
      default:
        return ok({});
    }
  }

  return {
    db,
    reset,
    call,
    subscribe(topic: string, fn: (p: unknown) => void): () => void {
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    emit(topic: string, payload: unknown): void {
      for (const fn of [...(listeners.get(topic) ?? [])]) fn(payload);
    },
    /** Streams answer text of the run in progress. */
    stream(text: string): void {
      db.run?.onEvent?.({ kind: 'partial_text', text });
    },
    /** Ends the run in progress. */
    finish(result: ToolResult = { ok: true, content: { status: 'done' } }): void {
      db.run?.resolve(result);
      db.run = null;
    },
    /** The calls of one tool, in order. */
    callsOf(tool: string): Record<string, unknown>[] {
      return db.calls.filter((c) => c.tool === tool).map((c) => c.args);
    },
  };
}

export type AgentFake = ReturnType<typeof createAgentFake>;

/** Lets pending promises and timers of 0 ms run. */
export async function settle(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
}
