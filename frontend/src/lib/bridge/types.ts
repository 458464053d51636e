// Types of the Go side (backend/protocol, backend/permission, app/) as they
// arrive in the webview. They are written by hand from the Go structs' JSON
// tags; keep them in step when those change.

export type Capability =
  | 'read-only'
  | 'writes-files'
  | 'controls-browser'
  | 'starts-process'
  | 'accesses-network'
  | 'destructive';

export type Caller = 'cli' | 'renderer' | 'agent' | 'plugin' | 'internal';

/** Error codes of a failed ToolResult (backend/protocol). */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'VALIDATION_ERROR'
  | 'PERMISSION_DENIED'
  | 'TIMEOUT'
  | 'TOOL_FAILED'
  | 'RUNTIME_SHUTTING_DOWN'
  | 'CANCELLED'
  | 'PROTOCOL_ERROR';

export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: unknown;
  capabilities: Capability[];
}

export interface ClientInfo {
  caller?: Caller;
  cwd?: string;
  sessionId?: string;
  spaceId?: string;
  tabId?: string;
}

export type ToolEventKind = 'progress' | 'log' | 'partial_text' | 'artifact';

/** One streamed event of a call (protocol.Event). */
export interface ToolEvent {
  kind: ToolEventKind;
  message?: string;
  fraction?: number;
  level?: 'debug' | 'info' | 'warn' | 'error';
  text?: string;
  mimeType?: string;
  name?: string;
  dataBase64?: string;
  path?: string;
}

export interface Diagnostic {
  level: string;
  message: string;
}

export interface ToolErrorInfo {
  code: ToolErrorCode;
  message: string;
  details?: unknown;
}

/** The envelope every tool call resolves to (protocol.ToolResult). */
export interface ToolResult<T = unknown> {
  ok: boolean;
  content?: T;
  meta?: Record<string, unknown>;
  diagnostics?: Diagnostic[];
  error?: ToolErrorInfo;
}

/** The process on the other end of a socket connection (registry.Peer). */
export interface Peer {
  pid: number;
  uid: number;
  exe?: string;
  cwd?: string;
}

/** A privileged socket call waiting for the desktop user (permission.ApprovalRequest). */
export interface ApprovalRequest {
  /** "appr_" + 12 hex digits. */
  id: string;
  createdAt: string;
  /** When the call stops waiting and is denied. */
  expiresAt: string;
  toolName: string;
  description: string;
  /** The tool's privileged capabilities; "allow for this connection" grants them all. */
  capabilities: Capability[];
  /** The most severe of them, the one the prompt names. */
  capability: Capability;
  caller: Caller;
  sessionId: string;
  peer?: Peer | null;
  /** The redacted arguments. */
  argsSummary: string;
}

export type ApprovalDecision = 'allow_once' | 'allow_connection' | 'deny';

/** Payload of the "tool_event" Wails event. */
export interface ToolEventPayload {
  callId: string;
  event: ToolEvent;
}

/** Payload of the "tool_result" Wails event. */
export interface ToolResultPayload {
  callId: string;
  result: ToolResult;
}

/** Payload of the "approvals_changed" Wails event: a hint to re-read. */
export interface ApprovalsChangedPayload {
  kind: 'pending' | 'resolved';
  id: string;
  pending: number;
}

/** The Wails events the Go side emits (app/binding.go). */
export const Topics = {
  toolEvent: 'tool_event',
  toolResult: 'tool_result',
  approvalsChanged: 'approvals_changed',
  stateChanged: 'state_changed',
  logsAppended: 'logs_appended',
  gitChanged: 'git_changed',
  processChanged: 'process_changed',
} as const;

// ---- App state (backend/state/types.go) ----

/** A space: a named, colored workspace, optionally bound to a project folder. */
export interface Space {
  id: string;
  name: string;
  color: string;
  cwd?: string;
  projectId: string | null;
  /** How the space's workspace is arranged (split, panes, drawer). */
  layout: Layout;
  /** Unix milliseconds. */
  createdAt: number;
  updatedAt: number;
}

/** A pane of a space's workspace: every space has the primary one; a split adds the secondary one. */
export type Pane = 'primary' | 'secondary';

/** The arrangement of a space's workspace (backend/state/layout.go). */
export interface Layout {
  split: boolean;
  /** The primary pane's share of the width while split (0.15–0.85). */
  splitRatio: number;
  focusedPane: Pane;
  /** The tab each pane shows ('' for an empty pane). */
  primaryTabId: string;
  secondaryTabId: string;
  drawerOpen: boolean;
  /** Pixels (120–800). */
  drawerHeight: number;
}

export type WorkspaceTabKind = 'editor' | 'terminal' | 'agent' | 'preview' | 'git';

export interface WorkspaceTab {
  id: string;
  spaceId: string;
  kind: WorkspaceTabKind;
  title: string;
  cwd: string;
  active: boolean;
  pane: Pane;
  terminalId: string | null;
  activeFilePath: string | null;
  openFilePaths: string[];
  selectedGitFilePath: string | null;
  createdAt: number;
}

/** Load states of a browser tab's page (backend/browser LoadLoading…). */
export type BrowserLoadState = 'loading' | 'complete' | 'failed';

export interface BrowserTab {
  id: string;
  spaceId: string;
  url: string;
  title: string;
  active: boolean;
  pane: Pane;
  /** The page's icon (an http(s) or data: URL); absent when it has none. */
  favicon?: string;
  loadState?: BrowserLoadState;
  canGoBack?: boolean;
  canGoForward?: boolean;
  /** The automation owner (browser_use_start), or null. */
  ownerId?: string | null;
  mode?: 'web' | 'plugin';
  /** Why the last navigation failed (loadState "failed"). */
  errorText?: string;
}

/**
 * One user input of a browser tab's live view, in the page's CSS pixels
 * (backend/browser InputEvent). Modifiers: Alt=1, Ctrl=2, Meta=4, Shift=8.
 */
export interface BrowserInputEvent {
  kind: 'mouse' | 'wheel' | 'key' | 'text';
  /** mouse: mousePressed | mouseReleased | mouseMoved; key: keyDown | keyUp. */
  type?: 'mousePressed' | 'mouseReleased' | 'mouseMoved' | 'keyDown' | 'keyUp';
  x?: number;
  y?: number;
  button?: 'none' | 'left' | 'middle' | 'right';
  buttons?: number;
  clickCount?: number;
  deltaX?: number;
  deltaY?: number;
  modifiers?: number;
  key?: string;
  code?: string;
  text?: string;
  keyCode?: number;
}

export type PackageManager = 'unknown' | 'npm' | 'pnpm' | 'yarn' | 'bun';

/** What the window does when a dev server reports its port. */
export type DevServerOpenBrowser = 'offer' | 'open' | 'off';

export interface AppSettings {
  autoRunOnOpen: boolean;
  confirmOnClose: boolean;
  stopServersOnClose: boolean;
  showOutputOnRun: boolean;
  defaultPackageManager: PackageManager;
  debugMode: boolean;
  /** At start-up, stop the dev servers and terminals an earlier run left running (else list them as orphans). */
  stopOrphansOnStart: boolean;
  /** When a dev server reports its port: "open" a browser tab on it (or reload one), "offer" to, or nothing ("off"). */
  devServerOpenBrowser: DevServerOpenBrowser;
  git: GitSettings;
}

/** A saved commit identity ("gitacct_…"). */
export interface IdentityProfile {
  id: string;
  label: string;
  name: string;
  email: string;
}

/** Settings of the git tools and the Git panel (backend/state GitSettings). */
export interface GitSettings {
  refreshIntervalMs: number;
  showUntrackedFiles: boolean;
  confirmBeforeRestore: boolean;
  checkpointBeforeAgentRun: boolean;
  identityProfiles: IdentityProfile[];
  /** The profile git_commit uses; null uses the repository's git config. */
  activeIdentityProfileId: string | null;
}

/** The content of app_get_state (state.json). */
export interface AppState {
  version: number;
  spaces: Space[];
  activeSpaceId: string;
  browserTabs: BrowserTab[];
  workspaceTabs: WorkspaceTab[];
  settings: AppSettings;
}

/** Payload of the "state_changed" Wails event: a hint to re-read. */
export interface StateChangedPayload {
  kind: 'spaces' | 'tabs' | 'settings';
  ids?: string[];
}

/** One app log entry (applog.Entry), as app_get_logs returns it. */
export interface LogEntry {
  id: string;
  ts: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  source: string;
  message: string;
  caller?: string;
  sessionId?: string;
  toolName?: string;
  data?: Record<string, unknown>;
}

// ---- Git (backend/git, backend/tools/gittools) ----

/** Payload of the "git_changed" Wails event: a watched repository changed. */
export interface GitChangedPayload {
  root: string;
  /** How many paths changed (0: unknown). */
  count: number;
}

/** The summary of git_diff {includePatches:false}. */
export interface GitDiffSummary {
  isRepo: boolean;
  root: string | null;
  scope: 'all' | 'staged' | 'unstaged';
  files: { path: string; status: string; additions: number; deletions: number; binary: boolean }[];
  totalAdditions: number;
  totalDeletions: number;
}

/** The parts of git_status the header uses. */
export interface GitStatusSummary {
  isRepo: boolean;
  root: string | null;
  branch?: string;
  detached?: boolean;
  upstream?: string;
  ahead?: number;
  behind?: number;
  clean?: boolean;
  /** A watcher on the Go side reports this repository's changes. */
  watched?: boolean;
}

/** One branch of git_branch. */
export interface GitBranch {
  name: string;
  current: boolean;
  upstream: string;
  commit: string;
  subject: string;
}

// ---- Processes (backend/process, backend/tools/processtools) ----

/** Statuses of a dev server or terminal (process.Status…). */
export type ProcessStatus = 'starting' | 'running' | 'exited' | 'errored' | 'stopped';

/** Streams of a process output entry. */
export type OutputStream = 'stdout' | 'stderr' | 'pty' | 'system';

/** One line of a dev server, or one chunk of a terminal's output (stream "pty"). */
export interface OutputEntry {
  seq: number;
  stream: OutputStream;
  text: string;
  /** Unix milliseconds. */
  ts: number;
}

/** What GET /_meith/process/<id>/output?after=<seq> answers. */
export interface OutputPage {
  entries: OutputEntry[] | null;
  /** The seq the next entry will get. */
  nextSeq: number;
  status: ProcessStatus | string;
}

/** A managed dev server (process.DevServer). */
export interface DevServer {
  /** "dev_…" */
  id: string;
  name?: string;
  cwd: string;
  command: string;
  args: string[] | null;
  status: ProcessStatus;
  pid: number;
  port: number | null;
  exitCode: number | null;
  signal: string | null;
  /** Unix milliseconds. */
  startedAt: number;
  endedAt?: number;
}

/** A terminal session (process.Terminal). */
export interface TerminalSession {
  /** "term_…" */
  id: string;
  cwd: string;
  shell: string;
  pid: number;
  cols: number;
  rows: number;
  status: ProcessStatus;
  createdAt: number;
  exitCode: number | null;
}

/** get_terminal_snapshot: a terminal with its replayable scrollback. */
export interface TerminalSnapshot extends TerminalSession {
  buffer: string;
  nextSeq: number;
}

/** An OS process of a managed process's subtree. */
export interface ProcessNode {
  pid: number;
  ppid: number;
  command: string;
  ports: number[] | null;
  children: ProcessNode[] | null;
}

export type ProcessKind = 'dev-server' | 'terminal' | 'orphan';

/** One managed process of get_process_tree. */
export interface ProcessInfo {
  kind: ProcessKind;
  id: string;
  pid: number;
  cwd: string;
  command?: string;
  status: ProcessStatus | string;
  ports: number[] | null;
  tree: ProcessNode | null;
}

/** Payload of the "process_changed" Wails event: a hint to re-read (empty kind and id: many changed). */
export interface ProcessChangedPayload {
  kind: 'dev-server' | 'terminal' | '';
  id: string;
}
