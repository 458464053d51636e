import { describe, expect, it } from 'vitest';
import type { BrowserTab, DevServer } from '../../bridge';
import { findTabOnPort, isLocalOnPort, newPorts, portAction, portMap } from './openOnPort';

const server = (over: Partial<DevServer>): DevServer => ({
  id: 'dev_1', cwd: '/p', command: 'npm run dev', args: null, status: 'running', pid: 10, port: null, exitCode: null, signal: null,
  startedAt: 1, ...over,
});
const tab = (over: Partial<BrowserTab>): BrowserTab => ({
  id: 'btab_1', spaceId: 's1', url: 'about:blank', title: '', active: false, pane: 'primary',
  loadState: 'complete', canGoBack: false, canGoForward: false, ownerId: null, mode: 'web', contextKey: 'space:s1', createdAt: 1, updatedAt: 1, ...over,
});

describe('newPorts', () => {
  it('reports nothing at the first look (servers that ran before the window opened)', () => {
    expect(newPorts(null, [server({ port: 3000 })])).toEqual([]);
  });

  it('reports a port once, when it appears', () => {
    const before = portMap([server({ port: null })]);
    const now = [server({ port: 3000 })];
    expect(newPorts(before, now)).toEqual([{ id: 'dev_1', port: 3000 }]);
    expect(newPorts(portMap(now), now)).toEqual([]);
  });

  it('reports a server that started and got its port between two looks, but not a stopped one', () => {
    const before = portMap([]);
    expect(newPorts(before, [server({ id: 'dev_2', port: 5173 }), server({ id: 'dev_3', port: 8080, status: 'exited' })])).toEqual([
      { id: 'dev_2', port: 5173 },
    ]);
  });
});

describe('portAction', () => {
  it.each([
    ['open', 'open'],
    ['off', 'off'],
    ['offer', 'offer'],
    [undefined, 'offer'],
  ] as const)('%s → %s', (setting, want) => {
    expect(portAction(setting)).toBe(want);
  });
});

describe('finding a tab on the port', () => {
  it.each([
    ['http://localhost:3000/', 3000, true],
    ['http://127.0.0.1:3000/app?x=1', 3000, true],
    ['http://0.0.0.0:3000', 3000, true],
    ['http://[::1]:3000/', 3000, true],
    ['https://localhost:3000/', 3000, true],
    ['http://localhost:3001/', 3000, false],
    ['http://example.com:3000/', 3000, false],
    ['http://localhost/', 80, true],
    ['file:///tmp/x', 3000, false],
    ['not a url', 3000, false],
  ])('%s on %i: %s', (url, port, want) => {
    expect(isLocalOnPort(url, port)).toBe(want);
  });

  it('prefers the active tab of the space, ignores other spaces', () => {
    const tabs = [
      tab({ id: 'other', spaceId: 's2', url: 'http://localhost:3000/', active: true }),
      tab({ id: 'a', url: 'http://localhost:3000/a' }),
      tab({ id: 'b', url: 'http://127.0.0.1:3000/b', active: true }),
    ];
    expect(findTabOnPort(tabs, 's1', 3000)?.id).toBe('b');
    expect(findTabOnPort(tabs, 's1', 4000)).toBeUndefined();
    expect(findTabOnPort(tabs, 's3', 3000)).toBeUndefined();
  });
});
