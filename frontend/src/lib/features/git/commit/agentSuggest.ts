// Commit-message suggestion by the configured agent (TOOL_PROTOCOL: "Its
// commit-message suggestion flow first loads the full staged diff …, then
// sends that patch through the renderer ai.complete bridge for a one-line
// Conventional Commit subject"; here lib/ai/complete). The file-name
// heuristic of ./suggest is the fallback, with the reason it was used.

import { BridgeError, call } from '../../../bridge';
import { ai, isNoAgentError } from '../../../ai/complete';
import { humanizeError, humanizeResult } from '../../../errors';
import { MAX_SUBJECT, suggestCommitMessage, type Suggestion, type SuggestFile } from './suggest';

/** The patch sent to the agent is cut to this many characters. */
export const MAX_PATCH_CHARS = 60_000;
/** The longest answer asked of the agent (a subject line, with room for chatter to strip). */
export const MAX_ANSWER_CHARS = 200;
/** How long the agent may take. */
export const SUGGEST_TIMEOUT_MS = 45_000;
/** What a fallback's reason starts with. */
export const FALLBACK_PREFIX = 'Suggested from file names: ';

export const SYSTEM_PROMPT =
  'You write git commit messages. Reply with exactly ONE line: a Conventional Commit subject ' +
  '("type(optional scope): description"), at most 72 characters, in the imperative mood, describing the intent ' +
  'of the change rather than listing files. Use a type such as feat, fix, docs, test, style, refactor, perf, ' +
  'build, ci or chore. No quotes, no code fences, no trailing period, no body, no explanation.';

/** One file of git_diff {includePatches:true} (backend/git/changes File). */
export interface PatchFile extends SuggestFile {
  binary: boolean;
  diff: string;
  originalPath?: string;
  large?: boolean;
}

interface PatchDiff {
  isRepo: boolean;
  scope: string;
  files: PatchFile[];
}

/** Which diff a suggestion describes: the index when something is staged, else the working tree. */
export type SuggestScope = 'staged' | 'all';

/** The prompt for the agent: the changed files, then the patch (cut to MAX_PATCH_CHARS) in a fence. */
export function buildPrompt(files: readonly PatchFile[], scope: SuggestScope): { prompt: string; cut: boolean } {
  const list = files
    .map((f) => {
      const from = f.originalPath ? `${f.originalPath} → ` : '';
      return `- ${f.status} ${from}${f.path} (+${f.additions} -${f.deletions})${f.binary ? ' [binary]' : ''}`;
    })
    .join('\n');
  let patch = files
    .map((f) => f.diff)
    .filter((d) => d !== '')
    .map((d) => (d.endsWith('\n') ? d : `${d}\n`))
    .join('');
  const cut = patch.length > MAX_PATCH_CHARS;
  if (cut) patch = `${patch.slice(0, MAX_PATCH_CHARS)}\n[diff cut at ${MAX_PATCH_CHARS} characters; ${patch.length - MAX_PATCH_CHARS} more left out]\n`;
  // A fence longer than any run of backticks in the patch.
  const longest = Math.max(0, ...(patch.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const what = scope === 'staged' ? 'staged changes' : 'working-tree changes';
  const prompt =
    `Write the commit subject for these ${what}.\n\nChanged files:\n${list}\n\n` +
    (patch === '' ? 'No patch text (binary or empty files only).\n' : `Diff:\n${fence}diff\n${patch}${fence}\n`);
  return { prompt, cut };
}

const QUOTES = /^[\s"'`“”‘’*]+|[\s"'`“”‘’*]+$/g;

/**
 * The subject line of an agent's answer: the first line with text once code
 * fences, bullets, a "Commit message:" label, quotes, backticks and a
 * trailing period are stripped; cut at a word to MAX_SUBJECT characters.
 * '' when nothing is left.
 */
export function sanitizeSubject(answer: string): string {
  for (const raw of answer.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || /^(`{3,}|~{3,})/.test(line)) continue;
    line = line
      .replace(/^(?:[-*•+]|\d+[.)])\s+/, '')
      .replace(QUOTES, '')
      .replace(/^(?:suggested\s+)?(?:commit(?:\s+message)?|subject)\s*:\s*/i, '')
      .replace(QUOTES, '')
      .replace(/\.+$/, '')
      .replace(QUOTES, '')
      .replace(/\s+/g, ' ');
    if (line !== '') return cutSubject(line);
  }
  return '';
}

function cutSubject(s: string): string {
  if (s.length <= MAX_SUBJECT) return s;
  const head = s.slice(0, MAX_SUBJECT + 1);
  const space = head.lastIndexOf(' ');
  return (space >= MAX_SUBJECT / 2 ? head.slice(0, space) : s.slice(0, MAX_SUBJECT)).replace(/[\s,;:.-]+$/, '');
}

/** Why the agent's suggestion could not be used, for the fallback's reason line. */
export function fallbackWhy(err: unknown): string {
  if (isNoAgentError(err)) return 'no agent configured (Settings → Agent)';
  if (err instanceof BridgeError) {
    if (err.code === 'TIMEOUT') return 'the agent did not answer in time';
    if (err.code === 'UNKNOWN_TOOL') return 'agent completions are not available in this build';
    if (err.code === 'BRIDGE_UNAVAILABLE') return 'not running inside the meith window';
  }
  return `the agent failed (${clip(humanizeError(err))})`;
}

function clip(s: string): string {
  const line = s.split('\n')[0].trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

export interface SuggestInput {
  /** A folder in the repository. */
  cwd: string;
  /** The Staged and Changes lists of the panel (the heuristic's source when the diff cannot be read). */
  staged: readonly SuggestFile[];
  changes: readonly SuggestFile[];
  /** Aborting cancels the diff read and the completion; the suggestion then rejects. */
  signal?: AbortSignal;
}

/**
 * Suggests a commit message: reads the full staged diff (the working-tree
 * diff when nothing is staged), asks the agent for one Conventional Commit
 * subject, and falls back to the file-name heuristic, saying why, when there
 * is no usable answer. Rejects when signal aborts, and with the no-agent
 * error (isNoAgentError) when no agent is configured.
 */
export async function suggestFromDiff({ cwd, staged, changes, signal }: SuggestInput): Promise<Suggestion> {
  const scope: SuggestScope = staged.length > 0 ? 'staged' : 'all';
  const fallback = (files: readonly SuggestFile[], why: string) => suggestCommitMessage(files, FALLBACK_PREFIX + why);
  const listed = scope === 'staged' ? staged : changes;

  let files: PatchFile[];
  try {
    const r = await call<PatchDiff>('git_diff', { cwd, includePatches: true, scope }, { signal });
    if (!r.ok) {
      if (r.error?.code === 'CANCELLED' && signal?.aborted) throw new BridgeError('CANCELLED', r.error.message);
      return fallback(listed, `couldn't read the diff (${clip(humanizeResult(r))})`);
    }
    files = r.content?.files ?? [];
  } catch (err) {
    if (signal?.aborted) throw err;
    return fallback(listed, `couldn't read the diff (${clip(humanizeError(err))})`);
  }
  if (files.length === 0) return fallback(files, 'there are no changes to describe');

  const { prompt, cut } = buildPrompt(files, scope);
  let text: string;
  try {
    ({ text } = await ai.complete(
      { prompt, systemPrompt: SYSTEM_PROMPT, maxChars: MAX_ANSWER_CHARS, timeoutMs: SUGGEST_TIMEOUT_MS },
      { signal, cwd },
    ));
  } catch (err) {
    if (signal?.aborted) throw err;
    if (isNoAgentError(err)) throw err; // no guess: the composer offers Settings → Agent
    return fallback(files, fallbackWhy(err));
  }
  const message = sanitizeSubject(text);
  if (message === '') return fallback(files, "the agent's answer was empty");
  const from = scope === 'staged' ? 'the staged diff' : 'the working-tree diff';
  return { message, reason: `Suggested by the agent from ${from}${cut ? ` (its first ${MAX_PATCH_CHARS.toLocaleString('en-US')} characters)` : ''}.` };
}
