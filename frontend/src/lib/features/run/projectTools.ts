// The project tools as the window calls them (backend/tools/projecttools:
// project_list, project_open, project_run, project_stop_dev_server,
// project_set_run_config, …), with the generated types of their inputs and
// results (bridge/generated/tools.ts, from the Go types by `go generate`).

import { call, type ToolResult } from '../../bridge';
import type * as Gen from '../../bridge/generated/tools';

/** One way to run a project: a shell command (run as one string with the project env). */
export type RunCommand = Gen.RunCommand;
/** A project's run configuration (null on a project: the detected defaults). */
export type RunConfig = Gen.RunConfig;
/** A package.json script, in file order. */
export type PackageScript = Gen.Script;
/** A workspace package of a monorepo (dir relative to the project). */
export type ProjectWorkspace = Gen.Workspace;
/** What detection found in a project folder. */
export type Detection = Gen.Detection;
/** project_setup_detect's content. */
export type SetupDetection = Gen.SetupDetection;
/** A project record ("proj_…"), one per space. */
export type Project = Gen.Project;
/** A dev server, with the project and space that started it (absent for one started by hand). */
export type ProjectDevServer = Gen.DevServer;
export type ProjectOpenInput = Gen.OpenProjectInput;
export type ProjectOpenResult = Gen.OpenResult;
export type ProjectRunResult = Gen.RunResult;
export type ProjectStopResult = Gen.StopServersResult;
export type ProjectRetryResult = Gen.RetryResult;

/** The project tools' calls, typed by the generated tool table. */
export const projectTools = {
  list: (): Promise<ToolResult<Gen.ProjectsResult>> => call('project_list', {}),
  detect: (cwd: string): Promise<ToolResult<Detection>> => call('project_detect', { cwd }),
  setupDetect: (cwd: string): Promise<ToolResult<SetupDetection>> => call('project_setup_detect', { cwd }),
  open: (args: ProjectOpenInput): Promise<ToolResult<ProjectOpenResult>> => call('project_open', args),
  run: (projectId: string, commandId?: string): Promise<ToolResult<ProjectRunResult>> =>
    call('project_run', commandId ? { projectId, commandId } : { projectId }),
  startDevServer: (projectId: string, script?: string): Promise<ToolResult<ProjectDevServer>> =>
    call('project_start_dev_server', script ? { projectId, script } : { projectId }),
  stopDevServer: (projectId: string): Promise<ToolResult<ProjectStopResult>> => call('project_stop_dev_server', { projectId }),
  retryDevServer: (projectId: string, logTailLines?: number): Promise<ToolResult<ProjectRetryResult>> =>
    call('project_retry_dev_server', logTailLines ? { projectId, logTailLines } : { projectId }),
  /** runConfig null resets the project to its detected commands. */
  setRunConfig: (projectId: string, runConfig: RunConfig | null): Promise<ToolResult<Project>> =>
    call('project_set_run_config', { projectId, runConfig }),
};
