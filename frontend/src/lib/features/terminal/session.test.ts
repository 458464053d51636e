import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TerminalSession, WorkspaceTab } from '../../bridge';

// An in-memory engine: terminals by id, the tool calls recorded.
const fake = vi.hoisted(() => ({
  terminals: new Map<string, { status: string; buffer: string; nextSeq: number; restoredFrom?: string }>(),
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  seq: 0,
  failBind: false,
  /** The tab's binding in the state ('' for none), as set_workspace_tab_terminal keeps it. */
  binding: '',
  /** Terminals of an earlier run whose scrollback the engine saved. */
  saved: new Set<string>(),
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const session = (id: string): TerminalSession => ({
    id, cwd: '/p', shell: '/bin/sh', pid: 1, cols: 80, rows: 24, status: (fake.terminals.get(id)?.status ?? 'running') as 'running', createdAt: 1, exitCode: null,
  });
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      await new Promise((r) => setTimeout(r, 1));
      const id = String(args.terminalId ?? '');
      switch (tool) {
        case 'create_terminal': {
          const nid = `term_${++fake.seq}`;
          const from = String(args.restoreFrom ?? '');
          const restored = fake.saved.delete(from);
          fake.terminals.set(nid, { status: 'running', buffer: restored ? 'old output' : '', nextSeq: restored ? 2 : 1, restoredFrom: restored ? from : undefined });
          return { ok: true, content: restored ? { ...session(nid), restoredFrom: from } : session(nid) };
        }
        case 'get_terminal_snapshot': {
          const t = fake.terminals.get(id);
          if (!t) return { ok: false, error: { code: 'TOOL_FAILED', message: `Unknown terminal: ${id}` } };
          const restoredFrom = t.restoredFrom ? { restoredFrom: t.restoredFrom } : {};
          return { ok: true, content: { ...session(id), ...restoredFrom, buffer: t.buffer, nextSeq: t.nextSeq } };
        }
        case 'set_workspace_tab_terminal': {
          if (fake.failBind) return { ok: false, error: { code: 'VALIDATION_ERROR', message: 'no such tab' } };
          // A compare-and-set when expect is given, as the backend does.
          if (args.expect === undefined || args.expect === fake.binding) fake.binding = String(args.terminalId ?? '');
          return { ok: true, content: { id: args.tabId, kind: 'terminal', terminalId: fake.binding || null } };
        }
        case 'close_terminal':
          fake.terminals.delete(id);
          return { ok: true, content: { terminalId: id, closed: true } };
        default:
          return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      }
    }),
  };
});

const { attach, reattach, restart, restoreNote, SessionError } = await import('./session');

const tab = (terminalId: string | null): WorkspaceTab => ({
  id: 'wtab_1', spaceId: 's', kind: 'terminal', title: 'Terminal', cwd: '/home/me/shop', active: true, pane: 'primary', terminalId,
  activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
});
const tools = () => fake.calls.map((c) => c.tool);

beforeEach(() => {
  fake.terminals.clear();
  fake.calls = [];
  fake.seq = 0;
  fake.failBind = false;
  fake.binding = '';
  fake.saved.clear();
});

describe('terminal sessions', () => {
  it('replays a running terminal of the tab and pulls after its snapshot', async () => {
    fake.terminals.set('term_old', { status: 'running', buffer: '$ ls\r\nfile\r\n$ ', nextSeq: 42 });
    const a = await attach(tab('term_old'), { cols: 100, rows: 30 });
    expect(a.terminal.id).toBe('term_old');
    expect(a.buffer).toBe('$ ls\r\nfile\r\n$ ');
    expect(a.after).toBe(41);
    expect(tools()).toEqual(['get_terminal_snapshot']);
  });

  it('starts a terminal in the tab folder at the view size and binds it, when the tab has none or the engine forgot it', async () => {
    fake.binding = 'term_from_an_earlier_run';
    const a = await attach(tab('term_from_an_earlier_run'), { cols: 100, rows: 30 });
    expect(a).toMatchObject({ terminal: { id: 'term_1' }, buffer: '', after: 0 });
    expect(fake.calls.map((c) => [c.tool, c.args])).toEqual([
      ['get_terminal_snapshot', { terminalId: 'term_from_an_earlier_run' }],
      ['create_terminal', { cwd: '/home/me/shop', cols: 100, rows: 30, restoreFrom: 'term_from_an_earlier_run' }],
      ['set_workspace_tab_terminal', { tabId: 'wtab_1', terminalId: 'term_1', expect: 'term_from_an_earlier_run' }],
    ]);
    expect(a.restored).toBe(false);
    expect(restoreNote(a)).toBe('');
  });

  it('after a restart, starts the new shell below the saved scrollback and says the session ended with meith, without an id', async () => {
    fake.saved.add('term_before_quit');
    fake.binding = 'term_before_quit';
    const a = await attach(tab('term_before_quit'), { cols: 100, rows: 30 });
    expect(a.restored).toBe(true);
    expect(a.terminal.id).toBe('term_1');
    // The saved output is the new terminal's first entry: pulled from seq 0, not skipped.
    expect(a.after).toBe(0);
    expect(restoreNote(a)).toBe("This terminal's session ended when meith quit. Its output is kept above the new shell.");
    expect(restoreNote(a)).not.toMatch(/term_/);
    expect(fake.calls.find((c) => c.tool === 'set_workspace_tab_terminal')?.args).toEqual({ tabId: 'wtab_1', terminalId: 'term_1', expect: 'term_before_quit' });
  });

  it('a view that follows a terminal another window restored says the session ended too', async () => {
    fake.saved.add('term_before_quit');
    const first = await attach(tab('term_before_quit'), { cols: 100, rows: 30 });
    const other = await reattach(first.terminal.id);
    expect(other.restored).toBe(true);
    expect(restoreNote(other)).toMatch(/^This terminal's session ended when meith quit\./);
  });

  it('starts one terminal for two views of the same tab attaching at once', async () => {
    const [a, b] = await Promise.all([attach(tab(null), { cols: 80, rows: 24 }), attach(tab(null), { cols: 80, rows: 24 })]);
    expect(a.terminal.id).toBe(b.terminal.id);
    expect(tools().filter((t) => t === 'create_terminal').length).toBe(1);
  });

  it('two windows on one tab: the one that binds second closes its own terminal and shows the first', async () => {
    // The other window started term_9 and bound it after this view saw the tab unbound.
    fake.terminals.set('term_9', { status: 'running', buffer: 'theirs', nextSeq: 4 });
    fake.binding = 'term_9';
    const a = await attach(tab(null), { cols: 80, rows: 24 });
    expect(a.terminal.id).toBe('term_9');
    expect(a.buffer).toBe('theirs');
    expect(fake.binding).toBe('term_9');
    await new Promise((r) => setTimeout(r, 5));
    expect(fake.terminals.has('term_1')).toBe(false); // ours was closed
    expect(fake.calls.find((c) => c.tool === 'set_workspace_tab_terminal')?.args).toEqual({ tabId: 'wtab_1', terminalId: 'term_1', expect: '' });

    // If theirs is gone by then, ours takes the tab after all.
    fake.calls = [];
    fake.binding = 'term_gone';
    const b = await attach(tab(null), { cols: 80, rows: 24 });
    expect(b.terminal.id).toBe('term_2');
    expect(fake.binding).toBe('term_2');
  });

  it('closes the new terminal when the tab cannot be bound (it went away)', async () => {
    fake.failBind = true;
    await expect(attach(tab(null), { cols: 80, rows: 24 })).rejects.toBeInstanceOf(SessionError);
    await new Promise((r) => setTimeout(r, 5));
    expect(tools()).toEqual(['create_terminal', 'set_workspace_tab_terminal', 'close_terminal']);
    expect(fake.terminals.size).toBe(0);
  });

  it('restarts: closes the old terminal, starts and binds a new one', async () => {
    fake.terminals.set('term_old', { status: 'exited', buffer: '', nextSeq: 1 });
    fake.binding = 'term_old';
    const a = await restart(tab('term_old'), 'term_old', { cols: 80, rows: 24 });
    expect(a.terminal.id).toBe('term_1');
    expect(tools()).toEqual(['close_terminal', 'create_terminal', 'set_workspace_tab_terminal']);
    expect(fake.terminals.has('term_old')).toBe(false);
    expect(fake.binding).toBe('term_1');

    // A binding cleared meanwhile (not the one this view saw): bound anyway.
    fake.calls = [];
    fake.binding = '';
    const b = await restart(tab('term_1'), 'term_1', { cols: 80, rows: 24 });
    expect(tools()).toEqual(['close_terminal', 'create_terminal', 'set_workspace_tab_terminal', 'set_workspace_tab_terminal']);
    expect(fake.binding).toBe(b.terminal.id);
  });

  it('follows a terminal by id without ever starting one', async () => {
    fake.terminals.set('term_other', { status: 'running', buffer: 'x', nextSeq: 3 });
    await expect(reattach('term_other')).resolves.toMatchObject({ terminal: { id: 'term_other' }, after: 2 });
    await expect(reattach('term_gone')).rejects.toThrow('This terminal was closed.');
    await expect(reattach('term_gone')).rejects.not.toThrow(/term_gone/);
    expect(tools()).not.toContain('create_terminal');
  });
});
