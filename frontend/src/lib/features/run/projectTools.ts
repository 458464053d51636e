// The project tools as the window calls them (backend/tools/projecttools:
// project_list, project_open, project_run, project_stop_dev_server,
// project_set_run_config, …). The shapes are those of the issue-16 plan
// (backend/project/detect Detection, RunConfig; backend/state Project);
// they are written here by hand because the generated types
// (bridge/generated/tools.ts) do not know these tools yet: each call names
// its content type (call<T>), which the bridge accepts for any tool name.
// Once `go generate` has run with the project tools, these aliases can point
// at the generated types instead.

import { call, type DevServer, type Space, type ToolResult, type WorkspaceTab } from '../../bridge';

/** One way to run a project: a shell command (run as one string with the project env). */
export interface RunCommand {
  /** Stable slug, [a-z0-9-]{1,64} ("script-dev", "go-run-server", "custom-1"…). */
  id: string;
  label: string;
  command: string;
  /** Whether the command is a server the window watches for a port. */
  isDevServer: boolean;
}

/** A project's run configuration (null on a project: the detected defaults). */
export interface RunConfig {
  commands: RunCommand[] | null;
  /** One of commands' ids, or "" when there is none. */
  defaultCommandId: string;
  env: Record<string, string> | null;
}

/** A package.json script, in file order. */
export interface PackageScript {
  name: string;
  command: string;
}

/** A workspace package of a monorepo (dir relative to the project). */
export interface ProjectWorkspace {
  name: string;
  dir: string;
  framework: string;
}

/** What detection found in a project folder. */
export interface Detection {
  name: string;
  stacks: string[] | null;
  framework: string;
  /** For people: "Vite + pnpm", "Go", "Django"… */
  label: string;
  packageManager: string;
  lockfile: boolean;
  hasPackageJson: boolean;
  scripts: PackageScript[] | null;
  /** Detected run commands, best first. */
  commands: RunCommand[] | null;
  likelyPort: number | null;
  workspaces: ProjectWorkspace[] | null;
}

/** project_setup_detect's content. */
export interface SetupDetection extends Detection {
  envFiles: string[] | null;
  isMonorepo: boolean;
  setupNotes: string[] | null;
}

/** A project record ("proj_…"), one per space. */
export interface Project {
  id: string;
  name: string;
  /** The folder (realpath). */
  cwd: string;
  kind: 'app' | 'plugin';
  detection: Detection;
  /** null: the detected defaults are used. */
  runConfig: RunConfig | null;
  spaceId: string;
  openedAt: number;
  updatedAt: number;
  /** The folder vanished (detection then says framework "unknown"). */
  missing?: boolean;
}

/** A dev server, with the project and space that started it (absent for one started by hand). */
export type ProjectDevServer = DevServer & { projectId?: string; spaceId?: string };

export type ProjectOpenInput = {
  cwd: string;
  spaceId?: string;
  kind?: 'app' | 'plugin';
  startDevServer?: boolean;
  devScript?: string;
};

export interface ProjectOpenResult {
  project: Project;
  space: Space;
  workspaceTab: WorkspaceTab | null;
  created: boolean;
  devServer: ProjectDevServer | null;
}

export interface ProjectRunResult {
  commandId: string;
  devServer: ProjectDevServer;
}

export interface ProjectStopResult {
  stopped: string[] | null;
}

export interface ProjectRetryResult {
  devServer: ProjectDevServer;
  previousLogsTail: string;
}

/** The project tools' calls, each with its content type. */
export const projectTools = {
  list: (): Promise<ToolResult<{ projects: Project[] | null }>> => call<{ projects: Project[] | null }>('project_list', {}),
  detect: (cwd: string): Promise<ToolResult<Detection>> => call<Detection>('project_detect', { cwd }),
  setupDetect: (cwd: string): Promise<ToolResult<SetupDetection>> => call<SetupDetection>('project_setup_detect', { cwd }),
  open: (args: ProjectOpenInput): Promise<ToolResult<ProjectOpenResult>> => call<ProjectOpenResult>('project_open', args),
  run: (projectId: string, commandId?: string): Promise<ToolResult<ProjectRunResult>> =>
    call<ProjectRunResult>('project_run', commandId ? { projectId, commandId } : { projectId }),
  startDevServer: (projectId: string, script?: string): Promise<ToolResult<ProjectDevServer>> =>
    call<ProjectDevServer>('project_start_dev_server', script ? { projectId, script } : { projectId }),
  stopDevServer: (projectId: string): Promise<ToolResult<ProjectStopResult>> =>
    call<ProjectStopResult>('project_stop_dev_server', { projectId }),
  retryDevServer: (projectId: string, logTailLines?: number): Promise<ToolResult<ProjectRetryResult>> =>
    call<ProjectRetryResult>('project_retry_dev_server', logTailLines ? { projectId, logTailLines } : { projectId }),
  /** runConfig null resets the project to its detected commands. */
  setRunConfig: (projectId: string, runConfig: RunConfig | null): Promise<ToolResult<Project>> =>
    call<Project>('project_set_run_config', { projectId, runConfig }),
};
