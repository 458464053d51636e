import { describe, expect, it } from 'vitest';
import type { DevServer } from '../../bridge';
import { newestFirst, runningSummary, serverLabel, statusText, uptime } from './status';

const server = (over: Partial<DevServer>): DevServer => ({
  id: 'dev_1', cwd: '/p', command: 'npm run dev', args: null, status: 'running', pid: 10, port: null, exitCode: null, signal: null,
  startedAt: 1000, ...over,
});

describe('status bar summary', () => {
  it.each<[string, Partial<DevServer>[], string]>([
    ['none', [], ''],
    ['one without a port yet', [{ status: 'starting' }], '1 running'],
    ['one with a port', [{ port: 3000 }], '1 running :3000'],
    ['two, ports sorted, stopped ones left out', [{ id: 'a', port: 5173 }, { id: 'b', port: 3000 }, { id: 'c', port: 8080, status: 'stopped' }], '2 running :3000 :5173'],
    ['the same port once', [{ id: 'a', port: 3000 }, { id: 'b', port: 3000 }], '2 running :3000'],
    ['only ended ones', [{ status: 'exited', port: 3000 }, { status: 'errored' }], ''],
  ])('%s', (_name, servers, want) => {
    expect(runningSummary(servers.map(server)).text).toBe(want);
  });
});

describe('labels and times', () => {
  it('names a server by name, else command and args', () => {
    expect(serverLabel(server({ name: 'web' }))).toBe('web');
    expect(serverLabel(server({ command: 'node', args: ['server.js', '--port', '0'] }))).toBe('node server.js --port 0');
  });

  it('sorts newest first', () => {
    expect(newestFirst([server({ id: 'old', startedAt: 1 }), server({ id: 'new', startedAt: 9 })]).map((s) => s.id)).toEqual(['new', 'old']);
  });

  it.each([
    [0, '0s'],
    [42_000, '42s'],
    [187_000, '3m 07s'],
    [7_500_000, '2h 05m'],
    [3 * 86_400_000 + 4 * 3_600_000, '3d 4h'],
  ])('uptime %i ms reads %s', (ms, want) => {
    expect(uptime(1000, 1000 + ms)).toBe(want);
  });

  it('words how a server ended', () => {
    expect(statusText(server({ status: 'exited', exitCode: 1 }))).toBe('exited with code 1');
    expect(statusText(server({ status: 'exited', signal: 'SIGKILL' }))).toBe('exited (SIGKILL)');
    expect(statusText(server({ status: 'stopped', signal: 'SIGTERM' }))).toBe('stopped (SIGTERM)');
    expect(statusText(server({}))).toBe('running');
  });
});
