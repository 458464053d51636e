// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';

const fake = vi.hoisted(() => ({ calls: [] as { tool: string; args: unknown }[] }));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const schema = {
    type: 'object',
    properties: {
      message: { type: 'string', description: 'echoed back' },
      kind: { type: 'string', enum: ['a', 'b'] },
      limit: { type: 'integer' },
      paths: { type: 'array', items: { type: 'string' } },
      verbose: { type: 'boolean' },
    },
    required: ['message'],
  };
  return {
    ...real,
    call: vi.fn(async (tool: string, args: unknown) => {
      fake.calls.push({ tool, args });
      if (tool === 'git_status') return { ok: false, error: { code: 'TOOL_FAILED', message: 'not a git repository' } };
      return { ok: true, content: { pong: true } };
    }),
    listTools: vi.fn(async () => [
      { name: 'app_ping', description: 'Check the runtime answers.', inputSchema: schema, capabilities: ['read-only'] },
      { name: 'git_status', description: 'Status of a repository.', inputSchema: { type: 'object', properties: {} }, capabilities: ['read-only'] },
      { name: 'create_space', description: 'Create a new space.', inputSchema: { type: 'object', properties: {} }, capabilities: ['writes-files'] },
    ]),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: ToolList } = await import('./ToolList.svelte');
const { tools } = await import('../../stores/tools.svelte');
const { fieldsOf, argsOf } = await import('./tryForm');

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const names = () => [...document.querySelectorAll('[data-testid="tool-row"] .name code')].map((n) => n.textContent!.trim());
const input = (sel: string) => document.querySelector(sel) as HTMLInputElement;
const type = (el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) => {
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  flushSync();
};

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.calls = [];
  document.body.innerHTML = '';
  await tools.refresh();
  app = mount(ToolList, { target: document.body });
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('the Tools panel', () => {
  it('filters by name, description and capability', () => {
    expect(names()).toEqual(['app_ping', 'create_space', 'git_status']);
    type(input('input[type="search"]'), 'git');
    expect(names()).toEqual(['git_status']);
    type(input('input[type="search"]'), 'writes');
    expect(names()).toEqual(['create_space']);
    type(input('input[type="search"]'), 'zzz');
    expect(document.body.textContent).toContain('No tool matches');
  });

  it('opens a tool: its schema and a form that calls it', async () => {
    (document.querySelector('[data-testid="tool-row"] button') as HTMLButtonElement).click();
    flushSync();
    expect(document.querySelector('[data-testid="tool-schema"]')?.textContent).toContain('"required"');
    type(input('[name="message"]'), 'hi');
    type(document.querySelector('select[name="kind"]') as HTMLSelectElement, 'b');
    type(input('[name="limit"]'), '3');
    type(document.querySelector('textarea[name="paths"]') as HTMLTextAreaElement, '["a.txt"]');
    (document.querySelector('[data-testid="tool-try"]') as HTMLButtonElement).click();
    await settle();
    expect(fake.calls).toEqual([{ tool: 'app_ping', args: { message: 'hi', kind: 'b', limit: 3, paths: ['a.txt'] } }]);
    expect(document.querySelector('[data-testid="tool-result"]')?.textContent).toContain('"pong": true');
  });

  it('shows a failed call in words', async () => {
    const rows = [...document.querySelectorAll('[data-testid="tool-row"]')];
    (rows[2].querySelector('button') as HTMLButtonElement).click();
    flushSync();
    (document.querySelector('[data-testid="tool-try"]') as HTMLButtonElement).click();
    await settle();
    const out = document.querySelector('[data-testid="tool-result"]')!.textContent!;
    expect(out).toContain('Not a git repository');
    expect(out).not.toContain('TOOL_FAILED');
  });
});

describe('tryForm', () => {
  it('makes fields from the schema and arguments from the values', () => {
    const fields = fieldsOf({ properties: { n: { type: ['integer', 'null'] }, s: { type: 'string' } }, required: ['s'] });
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([['s', 'text', true], ['n', 'number', false]]);
    expect(argsOf(fields, { s: 'x', n: '' })).toEqual({ args: { s: 'x' } });
    expect(argsOf(fields, { n: 'many' })).toEqual({ error: 'n must be a number' });
  });
});
