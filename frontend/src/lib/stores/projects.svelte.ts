/**
 * The projects meith knows (project_list), one per space. The store reads
 * them at start and re-reads on the "state_changed" hints that may concern
 * them (a space opened or closed, a project opened or its run configuration
 * changed; tab and settings hints do not), and after its own changes.
 * Opening a folder (the rail's folder button, "Open folder…") goes through
 * project_open; saving Settings → Run through project_set_run_config. Those
 * resolve with the tool's error text instead of throwing, so the view that
 * asked can show it next to the control.
 */
import { openFolderDialog, Topics, type StateChangedPayload } from '../bridge';
import { projectTools, type Project, type ProjectOpenResult, type RunConfig } from '../features/run/projectTools';
import { appState } from './appState.svelte';
import { liveStore, LiveModel } from './live';
import { processes } from './processes.svelte';
import { errorText, resultError } from './toasts.svelte';
import { ui } from './ui.svelte';

/** An action's outcome: its content, or the error to show. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export class ProjectsStore extends LiveModel {
  list = $state<Project[]>([]);
  /** Why the last read failed ('' when it did not). */
  error = $state('');
  loaded = $state(false);

  /** The active space's project. */
  active = $derived<Project | undefined>(this.forSpace(appState.activeSpaceId, appState.activeSpace?.projectId));

  /** Follows the state_changed hints that may concern projects (start, stop and refresh: LiveModel). */
  protected readonly hints = liveStore<StateChangedPayload>(Topics.stateChanged, () => this.load(), {
    accept: (p) => p?.kind !== 'tabs' && p?.kind !== 'settings' && p?.kind !== 'plugins',
    onError: (err) => (this.error = errorText(err)),
  });

  /** The project of a space (by the space's projectId, else by the project's spaceId). */
  forSpace(spaceId: string, projectId?: string | null): Project | undefined {
    if (!spaceId && !projectId) return undefined;
    return (projectId ? this.list.find((p) => p.id === projectId) : undefined) ?? this.list.find((p) => p.spaceId === spaceId);
  }

  byId(id: string | undefined): Project | undefined {
    return id ? this.list.find((p) => p.id === id) : undefined;
  }

  private async load(): Promise<void> {
    try {
      const r = await projectTools.list();
      if (r.ok) {
        this.list = r.content?.projects ?? [];
        this.error = '';
      } else {
        this.error = resultError(r, 'project_list');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loaded = true;
    }
  }

  /**
   * Opens a folder as a project (project_open): its space becomes active
   * (the same folder always gives the same space). When the open started
   * the dev server (autoRunOnOpen), the Output panel follows it, and the
   * drawer opens on it with showOutputOnRun.
   */
  async open(cwd: string, opts: { startDevServer?: boolean } = {}): Promise<Outcome<ProjectOpenResult>> {
    let r;
    try {
      r = await projectTools.open(opts.startDevServer === undefined ? { cwd } : { cwd, startDevServer: opts.startDevServer });
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
    if (!r.ok || !r.content) return { ok: false, error: resultError(r, 'project_open') };
    const opened = r.content;
    if (!this.list.some((p) => p.id === opened.project.id)) this.list = [...this.list, opened.project];
    if (ui.view !== 'workspace') ui.view = 'workspace';
    await Promise.all([appState.refresh(), this.refresh()]);
    if (opened.devServer) {
      processes.select(opened.devServer.id);
      if (appState.settings?.showOutputOnRun) ui.openDrawer('output');
      void processes.refresh();
    }
    return { ok: true, value: opened };
  }

  /**
   * Asks for a folder with the native dialog and opens it as a project.
   * Resolves undefined when the user cancels.
   */
  async openFolder(): Promise<Outcome<ProjectOpenResult> | undefined> {
    let dir: string;
    try {
      dir = await openFolderDialog('Open folder as a space');
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
    if (!dir) return undefined;
    return this.open(dir);
  }

  /** Saves a project's run configuration (null: back to the detected one). */
  async setRunConfig(projectId: string, runConfig: RunConfig | null): Promise<Outcome<Project>> {
    let r;
    try {
      r = await projectTools.setRunConfig(projectId, runConfig);
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
    if (!r.ok || !r.content) return { ok: false, error: resultError(r, 'project_set_run_config') };
    const saved = r.content;
    this.list = this.list.map((p) => (p.id === saved.id ? saved : p));
    void this.refresh();
    return { ok: true, value: saved };
  }
}

export const projects = new ProjectsStore();
