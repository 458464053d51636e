import { describe, expect, it, vi } from 'vitest';

vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return { ...real, call: vi.fn(async () => ({ ok: false, error: { code: 'CANCELLED', message: 'test' } })), subscribe: vi.fn(() => () => {}) };
});

const { absolutePath, pickEditorTab } = await import('./editorNav.svelte');

describe('Open in editor: where a request goes', () => {
  it.each([
    ['/w/proj', 'src/a.go', '/w/proj/src/a.go'],
    ['/w/proj/', './src/../lib/b.ts', '/w/proj/lib/b.ts'],
    ['/w/proj', '/etc/hosts', '/etc/hosts'],
    ['/w/proj', '../other/x.py', '/w/other/x.py'],
    ['/w', '../../../x', '/x'],
  ])('absolutePath(%s, %s) = %s', (cwd, path, want) => {
    expect(absolutePath(cwd, path)).toBe(want);
  });

  const tabs = [
    { id: 't1', kind: 'terminal', cwd: '/w/proj/src' },
    { id: 't2', kind: 'editor', cwd: '/w/proj' },
    { id: 't3', kind: 'editor', cwd: '/w/proj/web' },
    { id: 't4', kind: 'editor', cwd: '/w/proj-two' },
  ];

  it.each([
    ['the deepest editor folder holding the file', '/w/proj/web/src/app.ts', 't3', 'src/app.ts'],
    ['a shallower one when the deeper does not hold it', '/w/proj/src/main.go', 't2', 'src/main.go'],
    ['not a folder that only shares a prefix', '/w/proj-two/a.txt', 't4', 'a.txt'],
  ])('picks %s', (_name, abs, id, rel) => {
    const got = pickEditorTab(tabs, abs);
    expect(got?.tab.id).toBe(id);
    expect(got?.rel).toBe(rel);
  });

  it('picks nothing outside every editor folder, nor a folder itself', () => {
    expect(pickEditorTab(tabs, '/elsewhere/a.txt')).toBeNull();
    expect(pickEditorTab(tabs, '/w/proj-two')).toBeNull();
  });
});
