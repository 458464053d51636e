import { describe, expect, it } from 'vitest';
import { autoOpenDecision, defaultCommand, detectionLabel, effectiveRunConfig, otherCommands, projectServers, runStatus } from './run';
import type { Detection, ProjectDevServer, RunCommand } from './projectTools';

const cmd = (id: string, isDevServer = true, label = id): RunCommand => ({ id, label, command: `run ${id}`, isDevServer });
const detection = (commands: RunCommand[] | null): Detection => ({
  name: 'shop', stacks: ['node'], framework: 'vite', label: 'Vite + pnpm', packageManager: 'pnpm', lockfile: true, hasPackageJson: true,
  scripts: [], commands, likelyPort: 5173, workspaces: null,
});
let startedAt = 1000;
const srv = (over: Partial<ProjectDevServer>): ProjectDevServer => ({
  id: 'dev_1', cwd: '/p', command: 'pnpm dev', args: null, status: 'running', pid: 1, port: null, exitCode: null, signal: null,
  startedAt: startedAt++, projectId: 'proj_1', spaceId: 'space_1', ...over,
});

describe('which command Run runs', () => {
  it.each([
    { name: 'the saved default', commands: [cmd('build', false), cmd('dev'), cmd('preview')], defaultId: 'preview', want: 'preview' },
    { name: 'an unknown default falls to the first dev server', commands: [cmd('build', false), cmd('dev')], defaultId: 'gone', want: 'dev' },
    { name: 'no dev server: the first', commands: [cmd('test', false), cmd('lint', false)], defaultId: '', want: 'test' },
    { name: 'no commands: none', commands: [], defaultId: '', want: undefined },
    { name: 'null commands: none', commands: null, defaultId: 'dev', want: undefined },
  ])('$name', ({ commands, defaultId, want }) => {
    const config = { commands, defaultCommandId: defaultId };
    expect(defaultCommand(config)?.id).toBe(want);
    expect(otherCommands(config).map((c) => c.id)).toEqual((commands ?? []).map((c) => c.id).filter((id) => id !== want));
  });

  it('uses the saved configuration, else the detected commands with the first dev server as default', () => {
    const saved = { commands: [cmd('custom-x', false)], defaultCommandId: 'custom-x', env: { A: '1' } };
    expect(effectiveRunConfig({ runConfig: saved, detection: detection([cmd('script-dev')]) })).toEqual({ ...saved, detected: false });
    const d = effectiveRunConfig({ runConfig: null, detection: detection([cmd('script-build', false), cmd('script-dev'), cmd('script-start')]) });
    expect(d).toMatchObject({ defaultCommandId: 'script-dev', env: {}, detected: true });
    expect(effectiveRunConfig({ runConfig: null, detection: detection(null) })).toEqual({ commands: [], defaultCommandId: '', env: {}, detected: true });
    expect(effectiveRunConfig({ runConfig: { commands: null, defaultCommandId: '', env: null }, detection: detection(null) })).toEqual({
      commands: [], defaultCommandId: '', env: {}, detected: false,
    });
  });
});

describe('the detected commands of a project without a lockfile', () => {
  // As DefaultRunConfig: the package.json scripts go through the
  // defaultPackageManager setting (else npm); other commands stay.
  const noLock: Detection = {
    ...detection([
      { id: 'script-dev', label: 'dev', command: 'npm run dev', isDevServer: true },
      { id: 'script-start', label: 'start', command: 'npm run start', isDevServer: true },
      { id: 'make-dev', label: 'make dev', command: 'make dev', isDevServer: true },
    ]),
    packageManager: 'npm', lockfile: false, scripts: [{ name: 'dev', command: 'vite' }, { name: 'start', command: 'vite preview' }],
  };
  it.each([
    { setting: 'pnpm', want: ['pnpm dev', 'pnpm start', 'make dev'] },
    { setting: 'bun', want: ['bun run dev', 'bun run start', 'make dev'] },
    { setting: 'unknown', want: ['npm run dev', 'npm run start', 'make dev'] },
    { setting: undefined, want: ['npm run dev', 'npm run start', 'make dev'] },
  ])('defaultPackageManager $setting', ({ setting, want }) => {
    expect(effectiveRunConfig({ runConfig: null, detection: noLock }, setting).commands.map((c) => c.command)).toEqual(want);
  });
  it('a lockfile wins over the setting, and a saved configuration is kept as it is', () => {
    const locked = { ...noLock, packageManager: 'yarn', lockfile: true };
    expect(effectiveRunConfig({ runConfig: null, detection: locked }, 'pnpm').commands.map((c) => c.command)).toEqual(['npm run dev', 'npm run start', 'make dev']);
    const saved = { commands: [cmd('script-dev')], defaultCommandId: 'script-dev', env: {} };
    expect(effectiveRunConfig({ runConfig: saved, detection: noLock }, 'pnpm').commands).toEqual(saved.commands);
  });
});

describe('the run state from the project servers', () => {
  it.each<{ name: string; servers: Partial<ProjectDevServer>[]; state: string; port: number | null; id?: string }>([
    { name: 'none: idle', servers: [], state: 'idle', port: null },
    { name: 'starting', servers: [{ id: 'a', status: 'starting' }], state: 'starting', port: null, id: 'a' },
    { name: 'running without a port yet', servers: [{ id: 'a', status: 'running' }], state: 'running', port: null, id: 'a' },
    { name: 'running: the one with a port', servers: [{ id: 'a', status: 'running', port: 5173 }, { id: 'b', status: 'running' }], state: 'running', port: 5173, id: 'a' },
    { name: 'the newest errored: errored', servers: [{ id: 'old', status: 'stopped' }, { id: 'new', status: 'errored', exitCode: 1 }], state: 'errored', port: null, id: 'new' },
    { name: 'an older error under a newer stop: idle', servers: [{ id: 'old', status: 'errored' }, { id: 'new', status: 'stopped' }], state: 'idle', port: null, id: 'new' },
    { name: 'an error while another runs: running', servers: [{ id: 'a', status: 'running', port: 3000 }, { id: 'b', status: 'errored' }], state: 'running', port: 3000, id: 'a' },
  ])('$name', ({ servers, state, port, id }) => {
    const list = projectServers([...servers.map((s) => srv(s)), srv({ id: 'other', projectId: 'proj_2', port: 9999 })], 'proj_1');
    const st = runStatus(list);
    expect(st.state).toBe(state);
    expect(st.port).toBe(port);
    expect(st.server?.id).toBe(id);
  });

  it('leaves out servers of other projects and ones started by hand', () => {
    const list = projectServers([srv({ id: 'a' }), srv({ id: 'b', projectId: 'proj_2' }), srv({ id: 'c', projectId: undefined })], 'proj_1');
    expect(list.map((s) => s.id)).toEqual(['a']);
  });
});

describe('the auto-open armed by Run', () => {
  const armed = { projectId: 'proj_1', serverId: 'dev_1', spaceId: 'space_p' };
  it.each<{ name: string; servers: Partial<ProjectDevServer>[]; setting?: 'offer' | 'open' | 'off'; want: unknown; armed?: typeof armed | null }>([
    { name: 'nothing armed: wait', armed: null, servers: [{ status: 'running', port: 3000 }], want: { kind: 'wait' } },
    { name: 'server not listed yet: wait', servers: [{ id: 'dev_2', status: 'running', port: 3000 }], want: { kind: 'wait' } },
    { name: 'starting: wait', servers: [{ status: 'starting' }], want: { kind: 'wait' } },
    { name: 'running without a port: wait', servers: [{ status: 'running', port: null }], want: { kind: 'wait' } },
    { name: 'a port: open in the server space', servers: [{ status: 'running', port: 5173 }], want: { kind: 'open', port: 5173, spaceId: 'space_1' } },
    { name: 'a server without a space: the project space', servers: [{ status: 'running', port: 5173, spaceId: undefined }], want: { kind: 'open', port: 5173, spaceId: 'space_p' } },
    { name: 'setting off: disarm', setting: 'off', servers: [{ status: 'running', port: 5173 }], want: { kind: 'disarm' } },
    { name: 'setting offer still opens a Run', setting: 'offer', servers: [{ status: 'running', port: 5173 }], want: { kind: 'open', port: 5173, spaceId: 'space_1' } },
    { name: 'exited first: disarm', servers: [{ status: 'errored', exitCode: 1 }], want: { kind: 'disarm' } },
  ])('$name', ({ servers, setting, want, armed: a }) => {
    expect(autoOpenDecision(a === undefined ? armed : a, servers.map((s) => srv(s)), setting)).toEqual(want);
  });
});

describe('detectionLabel', () => {
  it('says what was detected, or that the folder is gone', () => {
    expect(detectionLabel(undefined)).toBe('');
    expect(detectionLabel({ detection: detection([]) })).toBe('Vite + pnpm');
    expect(detectionLabel({ detection: detection([]), missing: true })).toBe('folder missing');
  });
});
