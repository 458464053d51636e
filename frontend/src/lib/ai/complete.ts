// lib/ai/complete: one-shot completions by the configured agent (the
// ai_complete tool), over the bridge's call. The Git panel's commit-message
// suggestion uses it; the agent runs without meith's tools and answers with
// plain text.

import { BridgeError, call } from '../bridge';

/** The arguments of ai_complete. */
export interface AiCompleteRequest {
  /** What to answer. */
  prompt: string;
  /** Instructions sent ahead of the prompt. */
  systemPrompt?: string;
  /** The longest answer kept, in characters (the tool's default: 2000). */
  maxChars?: number;
  /** How long the agent may take, in milliseconds (the tool's default: 60000). */
  timeoutMs?: number;
}

/** The result of ai_complete. */
export interface AiCompleteResult {
  text: string;
  /** The answer was cut to maxChars. */
  truncated: boolean;
}

/** How a completion is run. */
export interface AiCompleteOptions {
  /** Aborting cancels the completion; complete then rejects with a CANCELLED BridgeError. */
  signal?: AbortSignal;
  /** The folder the agent runs in (a scope hint to the runtime). */
  cwd?: string;
}

/**
 * Asks the configured agent for one completion. Rejects with a BridgeError
 * (the tool error's code and message) when the call fails: no agent
 * configured, a timeout, the agent's own error, or a cancel.
 */
async function complete(req: AiCompleteRequest, options: AiCompleteOptions = {}): Promise<AiCompleteResult> {
  const args: Record<string, unknown> = { prompt: req.prompt };
  if (req.systemPrompt !== undefined) args.systemPrompt = req.systemPrompt;
  if (req.maxChars !== undefined) args.maxChars = req.maxChars;
  if (req.timeoutMs !== undefined) args.timeoutMs = req.timeoutMs;
  const r = await call<Partial<AiCompleteResult>>('ai_complete', args, {
    signal: options.signal,
    clientInfo: options.cwd ? { cwd: options.cwd } : undefined,
  });
  if (!r.ok) {
    throw new BridgeError(r.error?.code ?? 'TOOL_FAILED', r.error?.message || 'ai_complete failed');
  }
  const text = r.content?.text;
  if (typeof text !== 'string') throw new BridgeError('PROTOCOL_ERROR', 'ai_complete returned no text');
  return { text, truncated: r.content?.truncated === true };
}

/** Completions by the configured agent. */
export const ai = { complete };

/** Whether err says that no agent is configured (Settings → Agent). */
export function isNoAgentError(err: unknown): boolean {
  return err instanceof BridgeError && /no agent (is )?configured/i.test(err.message);
}
