// Types of the Go side as they arrive in the webview.
//
// The inputs and outputs of the tools are generated from the Go registry
// (./generated/tools.ts, by backend/cmd/gentypes: run `go generate ./...`
// after changing a tool's Go types); this file gives them the names the UI
// uses. Written by hand here is only what is not a tool's input or output:
// the envelope, events and payloads of the Wails bridge (app/, protocol),
// the approval prompts (permission), the asset server's pages, and the
// vocabularies (unions) of values the Go side keeps as plain strings.

import type * as Gen from './generated/tools';

export type { ToolName, ToolTypes, ToolInput, ToolOutput } from './generated/tools';

/**
 * T with the keys of R narrowed to R's types: what the Go side guarantees
 * beyond what its types say (a list the state store never leaves null, a
 * plain Go string that only ever holds one of a few values). Each key must
 * be one of T's and each type must narrow T's, so a refinement that no
 * longer fits the generated type fails the check.
 */
export type Refine<T, R extends { [K in keyof R]: K extends keyof T ? T[K] : never }> = Omit<T, keyof R> & R;

export type Capability = Gen.Capability;

export type Caller = 'cli' | 'renderer' | 'agent' | 'plugin' | 'internal';

/** Error codes of a failed ToolResult (backend/protocol). */
export type ToolErrorCode = Gen.ErrorCode;

export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: unknown;
  /** The JSON Schema of a successful call's content; absent when the tool does not describe it. */
  outputSchema?: unknown;
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

export type Diagnostic = Gen.Diagnostic;

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
  /** Where the call comes from, resolved by the runtime from the peer's process ancestry. */
  origin?: ApprovalOrigin;
  /** The decisions the prompt offers: Allow once first, Deny last. */
  scopes?: ApprovalDecision[];
}

/** Where an approval request comes from (permission.Origin). */
export interface ApprovalOrigin {
  kind: 'terminal' | 'process' | 'unknown';
  /** "Terminal · todo-api", or "meith in /home/me/todo-api". */
  label: string;
  terminalId?: string;
  exe?: string;
  folder?: string;
}

export type ApprovalDecision = 'allow_once' | 'allow_terminal' | 'allow_15_minutes' | 'allow_folder' | 'allow_connection' | 'deny';

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

/** The Wails events the Go side emits (app/events.go; the hint topics are backend/hint's). */
export const Topics = {
  toolEvent: 'tool_event',
  toolResult: 'tool_result',
  approvalsChanged: 'approvals_changed',
  stateChanged: 'state_changed',
  logsAppended: 'logs_appended',
  gitChanged: 'git_changed',
  processChanged: 'process_changed',
  agentChanged: 'agent_changed',
  filesChanged: 'files_changed',
  audit: 'audit',
} as const;

// ---- App state (backend/state) ----

/** A space: a named, colored workspace, optionally bound to a project folder. */
export type Space = Refine<Gen.Space, { layout: Layout }>;

/** A pane of a space's workspace: every space has the primary one; a split adds the secondary one. */
export type Pane = 'primary' | 'secondary';

/** The arrangement of a space's workspace (backend/state/layout.go; the store keeps focusedPane valid). */
export type Layout = Refine<Gen.Layout, { focusedPane: Pane }>;

export type WorkspaceTabKind = 'editor' | 'terminal' | 'agent' | 'preview' | 'git';

/** A workspace tab (the state store checks its kind and pane and never leaves openFilePaths null). */
export type WorkspaceTab = Refine<Gen.WorkspaceTab, { kind: WorkspaceTabKind; pane: Pane; openFilePaths: string[] }>;

/** Load states of a browser tab's page (backend/browser LoadLoading…). */
export type BrowserLoadState = 'loading' | 'complete' | 'failed';

/** A browser tab's record (the state store keeps its pane valid). */
export type BrowserTab = Refine<Gen.BrowserTab, { pane: Pane }>;

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

/** The app settings (set_app_settings accepts only these values). */
export type AppSettings = Refine<
  Gen.AppSettings,
  { defaultPackageManager: PackageManager; devServerOpenBrowser: DevServerOpenBrowser; git: GitSettings }
>;

/** A saved commit identity ("gitacct_…"). */
export type IdentityProfile = Gen.IdentityProfile;

/** Settings of the git tools and the Git panel (backend/state GitSettings; the store never leaves the profiles null). */
export type GitSettings = Refine<Gen.GitSettings, { identityProfiles: IdentityProfile[] }>;

/** The content of app_get_state (state.json; the store never leaves a list null). */
export type AppState = Refine<
  Gen.State,
  { spaces: Space[]; browserTabs: BrowserTab[]; workspaceTabs: WorkspaceTab[]; settings: AppSettings }
>;

/** Payload of the "state_changed" Wails event: a hint to re-read. */
export interface StateChangedPayload {
  kind: 'spaces' | 'tabs' | 'projects' | 'plugins' | 'settings';
  ids?: string[];
}

/** One app log entry (applog.Entry), as app_get_logs returns it. */
export type LogEntry = Gen.ApplogEntry;

// ---- Git (backend/git, backend/tools/gittools) ----

/** Payload of the "git_changed" Wails event: a watched repository changed. */
export interface GitChangedPayload {
  root: string;
  /** How many paths changed (0: unknown). */
  count: number;
}

// git_status and git_diff answer one of two shapes (a repository or not),
// so their output is not described (unknown): these are the parts the UI
// reads, written by hand.

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
  /** A merge is in progress (MERGE_HEAD): a commit concludes it. */
  merging?: boolean;
  /** The paths with merge conflicts. */
  conflicted?: { path: string; status: string }[];
}

/** One branch of git_branch. */
export type GitBranch = Gen.Branch;

/** A git checkpoint (backend/git/checkpoint Checkpoint). */
export type GitCheckpoint = Gen.Checkpoint;

/** The result of git_checkpoint_compare. */
export type GitCheckpointComparison = Gen.Comparison;

/** The result of git_checkpoint_restore. */
export type GitCheckpointRestoreResult = Gen.CheckpointRestoreOutput;

// ---- Workspace files (backend/files, backend/tools/filetools) ----

/**
 * Payload of the "files_changed" Wails event: files under a workspace root
 * changed, through the file tools or on disk. Paths are relative to root (at
 * most 64); an empty list with a count over 64 means "many: re-read all".
 */
export interface FilesChangedPayload {
  root: string;
  paths: string[] | null;
  count: number;
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
export type DevServer = Gen.DevServer;

/** A terminal session (process.Terminal). */
export type TerminalSession = Gen.Terminal;

/** get_terminal_snapshot: a terminal with its replayable scrollback. */
export type TerminalSnapshot = Gen.Snapshot;

/** An OS process of a managed process's subtree. */
export type ProcessNode = Gen.ProcessNode;

export type ProcessKind = 'dev-server' | 'terminal' | 'orphan';

/** One managed process of get_process_tree. */
export type ProcessInfo = Gen.ProcessInfo;

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
export type AgentUsage = Gen.Usage;

/** One agent session (agent.Session). Times are Unix milliseconds. */
export type AgentSession = Gen.Session;

/** A session as agent_list_sessions lists it. */
export type AgentSessionListItem = Gen.SessionInfo;

/** One piece of a message, in order: text, a thought, or a tool call (by id). */
export type AgentPart = Gen.Part;

export type AgentToolCallStatus =
  | 'pending'
  | 'awaiting_permission'
  | 'running'
  | 'completed'
  | 'failed'
  | 'denied'
  | 'cancelled';

/** One tool call of an assistant message (agent.ToolCall); transcripts of older builds kept a result's content under data. */
export type AgentToolCall = Refine<Gen.ToolCall, { result?: Gen.ToolResult & { data?: unknown } }>;

/** A file attached to a user message, staged into <cwd>/.meith/attachments. */
export type AgentAttachment = Gen.Attachment;

export type AgentPlanEntry = Gen.PlanEntry;

/** One message of a transcript (agent.Message). */
export type AgentMessage = Gen.Message;

/** A tool call waiting for the user: the inline permission card. */
export type AgentPermissionRequest = Gen.PermissionRequest;

/** A setting the agent advertises (model, reasoning level…). */
export type AgentConfigOption = Gen.ConfigOption;

/** The result of agent_get_transcript. */
export type AgentTranscript = Gen.TranscriptView;

/** The configured agent ("" preset: none). */
export type AgentConfig = Gen.Config;

export type AgentPresetInfo = Gen.Preset;

/** The result of agent_get_config (options: what the configured agent advertised last). */
export type AgentConfigResult = Refine<Gen.ConfigOutput, { options: AgentConfigOption[] | null }>;

/** The result of agent_send_message. */
export type AgentSendResult = Gen.SendResult;

/** Payload of the "agent_changed" Wails event: a hint to re-read ("" sessionId: many, or the list). */
export interface AgentChangedPayload {
  sessionId: string;
  kind: 'sessions' | 'transcript' | 'permission' | 'deleted';
}
