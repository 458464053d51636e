/**
 * The header's Run button for the active space's project: which command it
 * runs (the run configuration's default; the others in its menu), the state
 * of the project's dev servers (from the processes store: a server records
 * its projectId), and the actions, each a project tool:
 *   - run → project_run {projectId, commandId?}: the Output panel follows the
 *     new server (the drawer opens on it with showOutputOnRun), and an
 *     auto-open is armed: when that server reports its port, the page opens
 *     in its space (a tab already on the port is reloaded and shown) instead
 *     of the devServerOpenBrowser offer ("off" still means: do nothing);
 *   - stop → project_stop_dev_server {projectId}.
 * A failed action leaves its message in `error` for the button to show
 * inline (until the next action or another project).
 */
import { autoOpenDecision, defaultCommand, effectiveRunConfig, otherCommands, projectServers, runStatus, type ArmedOpen } from '../features/run/run';
import { projectTools, type ProjectDevServer, type RunCommand } from '../features/run/projectTools';
import type { ToolResult } from '../bridge';
import { appState } from './appState.svelte';
import { processes } from './processes.svelte';
import { projects } from './projects.svelte';
import { errorText, resultError } from './toasts.svelte';
import { ui } from './ui.svelte';

export class RunStore {
  /** The action in flight ('' for none). */
  busy = $state<'' | 'run' | 'stop'>('');
  /** The last failed action's message, and the project it was about. */
  failure = $state<{ projectId: string; text: string } | null>(null);
  /** A Run waiting for its server's port. */
  armed = $state<ArmedOpen | null>(null);

  project = $derived(projects.active);
  config = $derived(this.project ? effectiveRunConfig(this.project, appState.settings?.defaultPackageManager) : null);
  command = $derived<RunCommand | undefined>(this.config ? defaultCommand(this.config) : undefined);
  others = $derived<RunCommand[]>(this.config ? otherCommands(this.config) : []);
  servers = $derived<ProjectDevServer[]>(this.project ? projectServers(processes.servers, this.project.id) : []);
  status = $derived(runStatus(this.servers));
  /** The error to show next to the button. */
  error = $derived(this.failure && this.failure.projectId === this.project?.id ? this.failure.text : '');

  private unclaim: (() => void) | null = null;

  /** Takes the new ports of armed runs from the processes store; returns stop. */
  start(): () => void {
    this.unclaim ??= processes.claimPorts((server) => {
      if (this.armed?.serverId !== server.id) return false;
      void this.check();
      return true;
    });
    return () => this.stop();
  }

  stop(): void {
    this.unclaim?.();
    this.unclaim = null;
  }

  /** Runs the active project's default command, or commandId. */
  run(commandId?: string): Promise<ProjectDevServer | undefined> {
    return this.startServer('project_run', (id) => projectTools.run(id, commandId));
  }

  /**
   * Retries the active project's errored run (project_retry_dev_server: its
   * servers stop, a fresh one starts); Output follows the new server, which
   * is armed like a Run. The errored server's last lines stay in Output.
   */
  retry(): Promise<ProjectDevServer | undefined> {
    return this.startServer('project_retry_dev_server', (id) => projectTools.retryDevServer(id));
  }

  /**
   * Starts a server of the active project with startCall (named tool, for
   * messages): Output follows it (opened with showOutputOnRun) and its
   * port is armed for the auto-open.
   */
  private async startServer(
    tool: string,
    startCall: (projectId: string) => Promise<ToolResult<{ devServer: ProjectDevServer }>>,
  ): Promise<ProjectDevServer | undefined> {
    const project = this.project;
    if (!project || this.busy) return undefined;
    this.busy = 'run';
    this.failure = null;
    try {
      const r = await startCall(project.id);
      if (!r.ok || !r.content) {
        this.failure = { projectId: project.id, text: resultError(r, tool) };
        // A command that failed at once left its server and output: show why.
        const failed = (r.error?.details as { devServerId?: unknown } | undefined)?.devServerId;
        if (typeof failed === 'string') {
          await processes.refresh();
          processes.select(failed);
          ui.openDrawer('output');
        }
        return undefined;
      }
      const server = r.content.devServer;
      processes.select(server.id);
      if (appState.settings?.showOutputOnRun) ui.openDrawer('output');
      this.armed = { projectId: project.id, serverId: server.id, spaceId: server.spaceId || project.spaceId };
      await processes.refresh();
      // The port may have been seen (and offered) before the answer came.
      processes.dismissOffer(server.id);
      await this.check();
      return server;
    } catch (err) {
      this.failure = { projectId: project.id, text: errorText(err) };
      return undefined;
    } finally {
      this.busy = '';
    }
  }

  /** The active project's setup notes ("Run pnpm install: node_modules is missing"…), read by loadSetupNotes. */
  setupNotes = $state<string[]>([]);

  /** Reads the active project's setup notes (project_setup_detect); none when it fails. */
  async loadSetupNotes(): Promise<void> {
    const project = this.project;
    if (!project) {
      this.setupNotes = [];
      return;
    }
    try {
      const r = await projectTools.setupDetect(project.cwd);
      if (this.project?.id !== project.id) return;
      this.setupNotes = r.ok && r.content ? (r.content.setupNotes ?? []) : [];
    } catch {
      this.setupNotes = [];
    }
  }

  /** Stops the active project's dev servers. */
  async stopServers(): Promise<boolean> {
    const project = this.project;
    if (!project || this.busy) return false;
    this.busy = 'stop';
    this.failure = null;
    if (this.armed?.projectId === project.id) this.armed = null;
    try {
      const r = await projectTools.stopDevServer(project.id);
      if (!r.ok) {
        this.failure = { projectId: project.id, text: resultError(r, 'project_stop_dev_server') };
        return false;
      }
      await processes.refresh();
      return true;
    } catch (err) {
      this.failure = { projectId: project.id, text: errorText(err) };
      return false;
    } finally {
      this.busy = '';
    }
  }

  /** Opens the running server's page (the port chip): a tab of its space on the port is focused, else one opens. */
  openPort(): Promise<void> {
    const { port, server } = this.status;
    if (!port) return Promise.resolve();
    return processes.openPort(port, server?.spaceId || this.project?.spaceId || '');
  }

  /** Acts on the armed auto-open with the servers as they are now. */
  async check(): Promise<void> {
    const d = autoOpenDecision(this.armed, processes.servers, appState.settings?.devServerOpenBrowser);
    if (d.kind === 'wait') return;
    const armed = this.armed;
    this.armed = null;
    if (d.kind === 'open') {
      if (armed) processes.dismissOffer(armed.serverId);
      await processes.openPort(d.port, d.spaceId);
    }
  }
}

export const run = new RunStore();
