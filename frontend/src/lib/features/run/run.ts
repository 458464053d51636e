// What the header's Run button decides: which run configuration a project
// uses, which command is the default, what state its dev servers are in, and
// when a Run's server should open in a browser tab (§6.1 of the original:
// Run arms an auto-open that fires when the server reports its port).

import type { DevServerOpenBrowser } from '../../bridge';
import { isRunning, newestFirst } from '../processes/status';
import type { Project, ProjectDevServer, RunCommand, RunConfig } from './projectTools';

/** A run configuration with its lists never null. */
export interface EffectiveRunConfig {
  commands: RunCommand[];
  defaultCommandId: string;
  env: Record<string, string>;
  /** True when the project has no saved configuration: these are the detected commands. */
  detected: boolean;
}

const packageManagers = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/**
 * The detected commands as the backend runs them: without a Node lockfile
 * the package.json scripts ("script-<name>") go through the
 * defaultPackageManager setting (else npm), as DefaultRunConfig does.
 */
function detectedCommands(detection: Project['detection'] | undefined, defaultPackageManager: string | undefined): RunCommand[] {
  const commands = detection?.commands ?? [];
  if (!detection?.hasPackageJson || detection.lockfile) return commands;
  const pm = defaultPackageManager && packageManagers.has(defaultPackageManager) ? defaultPackageManager : 'npm';
  const scripts = new Set((detection.scripts ?? []).map((s) => s.name));
  return commands.map((c) => {
    const name = c.id.startsWith('script-') ? c.id.slice('script-'.length) : '';
    if (!name || !scripts.has(name)) return c;
    return { ...c, command: pm === 'npm' || pm === 'bun' ? `${pm} run ${name}` : `${pm} ${name}` };
  });
}

/**
 * The configuration Run uses: the saved one, else the detected commands
 * (default: the first dev server, else the first; scripts of a project
 * without a lockfile through defaultPackageManager; as DefaultRunConfig).
 */
export function effectiveRunConfig(project: Pick<Project, 'runConfig' | 'detection'>, defaultPackageManager?: string): EffectiveRunConfig {
  const saved = project.runConfig;
  if (saved) {
    return { commands: saved.commands ?? [], defaultCommandId: saved.defaultCommandId ?? '', env: saved.env ?? {}, detected: false };
  }
  const commands = detectedCommands(project.detection, defaultPackageManager);
  const first = commands.find((c) => c.isDevServer) ?? commands[0];
  return { commands, defaultCommandId: first?.id ?? '', env: {}, detected: true };
}

/** The command Run runs: the default one, else the first dev server, else the first (undefined: none). */
export function defaultCommand(config: Pick<RunConfig, 'commands' | 'defaultCommandId'>): RunCommand | undefined {
  const commands = config.commands ?? [];
  return commands.find((c) => c.id === config.defaultCommandId) ?? commands.find((c) => c.isDevServer) ?? commands[0];
}

/** The commands of the chevron menu: every one but the default, in order. */
export function otherCommands(config: Pick<RunConfig, 'commands' | 'defaultCommandId'>): RunCommand[] {
  const d = defaultCommand(config);
  return (config.commands ?? []).filter((c) => c !== d);
}

/** A project's dev servers, newest first. */
export function projectServers(servers: readonly ProjectDevServer[], projectId: string): ProjectDevServer[] {
  return newestFirst(servers.filter((s) => s.projectId === projectId));
}

export type RunState = 'idle' | 'starting' | 'running' | 'errored';

/** What the Run button shows for a project. */
export interface RunStatus {
  state: RunState;
  /** The server the state is about (the running one, else the newest). */
  server?: ProjectDevServer;
  /** Its port once it reported one. */
  port: number | null;
  /** How many of the project's servers still run. */
  running: number;
}

/**
 * The project's state from its servers (newest first): running when one
 * runs (with a port: the newest one that has a port), starting when one
 * starts, errored when the newest one errored, else idle.
 */
export function runStatus(servers: readonly ProjectDevServer[]): RunStatus {
  const live = servers.filter((s) => isRunning(s.status));
  const running = live.filter((s) => s.status === 'running');
  if (running.length) {
    const withPort = running.find((s) => typeof s.port === 'number' && s.port > 0);
    const server = withPort ?? running[0];
    return { state: 'running', server, port: withPort?.port ?? null, running: live.length };
  }
  if (live.length) return { state: 'starting', server: live[0], port: null, running: live.length };
  const newest = servers[0];
  if (newest?.status === 'errored') return { state: 'errored', server: newest, port: null, running: 0 };
  return { state: 'idle', server: newest, port: null, running: 0 };
}

/** A Run waiting for its server's port. */
export interface ArmedOpen {
  projectId: string;
  serverId: string;
  /** The space the page opens in (the server's, else the project's). */
  spaceId: string;
}

/** What to do about an armed auto-open now. */
export type AutoOpenDecision =
  | { kind: 'wait' }
  | { kind: 'disarm' }
  | { kind: 'open'; port: number; spaceId: string };

/**
 * Decides an armed auto-open against the current servers: open when the
 * Run's server runs with a port (unless the setting says "off": then only
 * disarm), disarm when it stopped or failed first, else wait (also while
 * the server is not listed yet).
 */
export function autoOpenDecision(
  armed: ArmedOpen | null,
  servers: readonly ProjectDevServer[],
  setting: DevServerOpenBrowser | undefined,
): AutoOpenDecision {
  if (!armed) return { kind: 'wait' };
  const s = servers.find((x) => x.id === armed.serverId);
  if (!s) return { kind: 'wait' };
  if (!isRunning(s.status)) return { kind: 'disarm' };
  if (s.status !== 'running' || typeof s.port !== 'number' || s.port <= 0) return { kind: 'wait' };
  if (setting === 'off') return { kind: 'disarm' };
  return { kind: 'open', port: s.port, spaceId: s.spaceId || armed.spaceId };
}

/** The label of a project's detection for people ("Vite + pnpm"), '' when unknown. */
export function detectionLabel(project: Pick<Project, 'detection' | 'missing'> | undefined): string {
  if (!project) return '';
  if (project.missing) return 'folder missing';
  return project.detection?.label?.trim() ?? '';
}
