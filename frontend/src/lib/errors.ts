// The one place that turns an error into words for the window. Every view
// shows errors through here: a BridgeError, a failed ToolResult, an Error or
// a string become a sentence a person can act on, never a protocol code
// ("TOOL_FAILED: …") or an internal tool name ("git_diff failed").
import { BridgeError } from './bridge';
import { KNOWN_CODES } from './bridge/errors';

/** The error part of a failed tool result. */
export interface ToolErrorLike {
  code?: string;
  message?: string;
}

/** "CODE: " anywhere (a wrapped message may carry one in its middle). */
const CODE_PREFIX = new RegExp(`\\b(?:${[...KNOWN_CODES].join('|')}):\\s*`, 'g');
/** An internal tool name followed by "failed" / ": ", e.g. "git_diff failed", "git_branch: ". */
const TOOL_NAME = /\b[a-z]+(?:_[a-z]+)+(?=:\s| failed\b)/g;
/** `Tool "git_diff" …` as the registry words timeouts and cancels. */
const QUOTED_TOOL = /\bTool "[a-z_]+" /g;

/** Messages git and the runtime write, said in meith's terms. */
const REWRITES: { test: RegExp; text: (m: RegExpExecArray) => string }[] = [
  {
    test: /Your local changes to the following files would be overwritten by checkout:\s*([\s\S]*?)\s*Please commit your changes or stash them before you switch branches\.?/,
    text: (m) => {
      const files = m[1].split(/\s*\n\s*/).map((f) => f.trim()).filter(Boolean);
      const list = files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
      return `Switching would overwrite your changes to ${list}. Commit or discard them in the Git panel first, then switch.`;
    },
  },
];

function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * Words for an error code and message. action says what failed in the
 * user's terms ("read the file") for a message that says nothing.
 */
export function humanizeToolError(error: ToolErrorLike | undefined, action = ''): string {
  const code = error?.code ?? '';
  const raw = error?.message ?? '';
  let message = raw.replace(CODE_PREFIX, '').replace(QUOTED_TOOL, 'It ').replace(TOOL_NAME, '').trim();
  message = message.replace(/^[:\s]+/, '').replace(/^failed\b\s*/, '').trim();
  for (const r of REWRITES) {
    const m = r.test.exec(message);
    if (m) return r.text(m);
  }
  // "Couldn't <action>: <why>", or the why alone.
  const why = (text: string) => (action ? `Couldn't ${action}: ${text}` : sentence(text));
  switch (code) {
    case 'CANCELLED':
      return 'Cancelled.';
    case 'TIMEOUT':
      return message && !/\bTool "[a-z_]+" /.test(raw) ? why(message) : why('it took too long. Try again.');
    case 'RUNTIME_SHUTTING_DOWN':
      return 'meith is shutting down; try again after it restarts.';
    case 'BRIDGE_UNAVAILABLE':
      return 'The meith runtime is not reachable. Restart meith.';
    case 'UNKNOWN_TOOL':
      return why('this version of meith cannot do that.');
    case 'PERMISSION_DENIED':
      return message ? `Not allowed: ${message}` : why('not allowed.');
    case 'PROTOCOL_ERROR':
      return why(`the runtime did not understand the request${message ? ` (${message})` : ''}.`);
  }
  if (!message) return action ? `Couldn't ${action}.` : 'Something went wrong.';
  return sentence(message);
}

/** Words for anything thrown or rejected (BridgeError, Error, string). */
export function humanizeError(err: unknown, action = ''): string {
  if (err instanceof BridgeError) return humanizeToolError({ code: err.code, message: err.message }, action);
  if (err instanceof Error) return humanizeToolError({ message: err.message }, action);
  if (typeof err === 'string') return humanizeToolError({ message: err }, action);
  return humanizeToolError({ message: String(err ?? '') }, action);
}

/** Words for a failed tool result. */
export function humanizeResult(r: { error?: ToolErrorLike }, action = ''): string {
  return humanizeToolError(r.error, action);
}

/** True for a cancel: shown nowhere. */
export function isCancel(err: unknown): boolean {
  return err instanceof BridgeError ? err.code === 'CANCELLED' : false;
}
