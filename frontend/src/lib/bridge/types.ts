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
  agentChanged: 'agent_changed',
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

// ---- Agent (backend/agent, backend/tools/agenttools) ----

/** The agent presets (the program a session runs). */
export type AgentAdapter = 'claude' | 'codex' | 'gemini' | 'custom';

export type AgentSessionStatus = 'idle' | 'running' | 'error' | 'cancelled';

/** Token use and cost as the agent reports them. */
export interface AgentUsage {
  inputTokens?: number;
  outputTokens?: number;
  used?: number;
  size?: number;
  costAmount?: number;
  costCurrency?: string;
}

/** One agent session (agent.Session). Times are Unix milliseconds. */
export interface AgentSession {
  /** "sess_…" */
  id: string;
  title: string;
  cwd: string;
  spaceId: string | null;
  adapter: AgentAdapter | string;
  model?: string;
  reasoning?: string;
  /** "Full access": privileged tool calls run without asking. */
  autoAccept: boolean;
  status: AgentSessionStatus;
  createdAt: number;
  updatedAt: number;
  lastViewedAt?: number;
  usage?: AgentUsage;
  lastError?: string;
}

/** A session as agent_list_sessions lists it. */
export interface AgentSessionListItem extends AgentSession {
  /** Changed since the user last looked (updatedAt > lastViewedAt). */
  unseen: boolean;
  pendingPermissions: number;
}

/** One piece of a message, in order: text, a thought, or a tool call (by id). */
export interface AgentPart {
  type: 'text' | 'thought' | 'tool';
  text?: string;
  toolCallId?: string;
}

export type AgentToolCallStatus =
  | 'pending'
  | 'awaiting_permission'
  | 'running'
  | 'completed'
  | 'failed'
  | 'denied'
  | 'cancelled';

/** One tool call of an assistant message (agent.ToolCall). */
export interface AgentToolCall {
  id: string;
  name: string;
  title?: string;
  /** "meith": one of meith's tools through the MCP bridge; "agent": the agent's own. */
  source: 'meith' | 'agent';
  /** The ACP tool kind of an agent tool (read, edit, execute…). */
  kind?: string;
  capabilities?: Capability[];
  /** The gating capability when the call needed approval. */
  capability?: Capability;
  args?: unknown;
  status: AgentToolCallStatus;
  /** The (clipped) result of a meith tool. */
  result?: ToolResult & { data?: unknown };
  /** The (clipped) text an agent tool reported. */
  output?: string;
  decision?: 'allow' | 'deny';
  startedAt: number;
  endedAt?: number;
}

/** A file attached to a user message, staged into <cwd>/.meith/attachments. */
export interface AgentAttachment {
  name: string;
  path: string;
  size: number;
}

export interface AgentPlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority?: string;
}

/** One message of a transcript (agent.Message). */
export interface AgentMessage {
  /** "msg_…" */
  id: string;
  role: 'user' | 'assistant';
  createdAt: number;
  parts: AgentPart[] | null;
  toolCalls: AgentToolCall[] | null;
  attachments?: AgentAttachment[];
  plan?: AgentPlanEntry[];
  status?: 'streaming' | 'done' | 'cancelled' | 'error';
  stopReason?: string;
  error?: { code: string; message: string };
  usage?: AgentUsage;
}

/** A tool call waiting for the user: the inline permission card. */
export interface AgentPermissionRequest {
  sessionId: string;
  toolCallId: string;
  toolName: string;
  title?: string;
  source: 'meith' | 'agent';
  capability: Capability;
  /** The card's phrase: "write files", "control the browser"… */
  action: string;
  args: unknown;
  createdAt: number;
}

/** A setting the agent advertises (model, reasoning level…). */
export interface AgentConfigOption {
  id: string;
  name: string;
  category: string;
  current: string;
  values: { value: string; name: string }[] | null;
}

/** The result of agent_get_transcript. */
export interface AgentTranscript {
  session: AgentSession;
  messages: AgentMessage[] | null;
  /** Earlier messages or content were left out of this read. */
  omitted: boolean;
  pendingPermissions: AgentPermissionRequest[] | null;
  options: AgentConfigOption[] | null;
}

/** The configured agent ("" preset: none). */
export interface AgentConfig {
  preset: '' | AgentAdapter;
  command: string;
  args: string[] | null;
  model: string;
  reasoning: string;
  autoAccept: boolean;
}

export interface AgentPresetInfo {
  id: string;
  label: string;
  command: string;
  args: string[] | null;
  installHint: string;
}

/** The result of agent_get_config. */
export interface AgentConfigResult {
  config: AgentConfig;
  presets: AgentPresetInfo[] | null;
  options: AgentConfigOption[] | null;
}

/** The result of agent_send_message. */
export interface AgentSendResult {
  sessionId: string;
  messageId: string;
  status: string;
  stopReason: string;
  text: string;
  toolCalls: number;
  usage?: AgentUsage;
}

/** Payload of the "agent_changed" Wails event: a hint to re-read ("" sessionId: many, or the list). */
export interface AgentChangedPayload {
  sessionId: string;
  kind: 'sessions' | 'transcript' | 'permission' | 'deleted';
}

/** A git checkpoint (backend/git/checkpoint Checkpoint). */
export interface GitCheckpoint {
  id: string;
  ref?: string;
  root?: string;
  /** RFC 3339. */
  createdAt: string;
  label?: string;
  source?: string;
  sessionId?: string;
  toolCallId?: string;
}

/** The result of git_checkpoint_compare. */
export interface GitCheckpointComparison {
  left: string;
  right: string;
  stat: { files: number; additions: number; deletions: number };
  files: { path: string; status: string; additions: number; deletions: number; binary: boolean }[] | null;
  /** The unified diff of all files ("" unless asked for). */
  patch: string;
}

/** The result of git_checkpoint_restore. */
export interface GitCheckpointRestoreResult {
  checkpoint: GitCheckpoint;
  /** The checkpoint of the state before the restore: restoring it undoes the restore. */
  preRestore: GitCheckpoint;
  undo?: string;
}
