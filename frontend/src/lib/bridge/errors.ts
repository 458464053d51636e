import type { ToolErrorCode } from './types';

/**
 * Codes of a BridgeError: a tool error code carried by a Go error
 * ("CODE: message"), or one of the bridge's own codes.
 */
export type BridgeErrorCode =
  | ToolErrorCode
  /** window.go / window.runtime are missing: not running inside the Wails window. */
  | 'BRIDGE_UNAVAILABLE'
  /** A bound method rejected with a message that carries no known code. */
  | 'BRIDGE_ERROR';

/** Every code of the protocol and of the bridge. */
export const KNOWN_CODES: ReadonlySet<string> = new Set<BridgeErrorCode>([
  'UNKNOWN_TOOL',
  'VALIDATION_ERROR',
  'PERMISSION_DENIED',
  'TIMEOUT',
  'TOOL_FAILED',
  'RUNTIME_SHUTTING_DOWN',
  'CANCELLED',
  'PROTOCOL_ERROR',
  'BRIDGE_UNAVAILABLE',
  'BRIDGE_ERROR',
]);

/**
 * The one error type the bridge throws. Wails v2 rejects a bound method's
 * promise with the Go error's string; the Go side writes coded errors as
 * "CODE: message" (protocol.ToolError), which is parsed back here.
 */
export class BridgeError extends Error {
  readonly code: BridgeErrorCode;

  constructor(code: BridgeErrorCode, message: string) {
    super(message);
    this.name = 'BridgeError';
    this.code = code;
  }
}

const CODED = /^([A-Z][A-Z_]*): ([\s\S]*)$/;

/** Turns whatever a bound method rejected with into a BridgeError. */
export function toBridgeError(reason: unknown): BridgeError {
  if (reason instanceof BridgeError) return reason;
  let text: string;
  if (typeof reason === 'string') text = reason;
  else if (reason instanceof Error) text = reason.message;
  else if (reason && typeof reason === 'object' && 'message' in reason) text = String((reason as { message: unknown }).message);
  else text = String(reason);
  const m = CODED.exec(text);
  if (m && KNOWN_CODES.has(m[1])) return new BridgeError(m[1] as BridgeErrorCode, m[2]);
  return new BridgeError('BRIDGE_ERROR', text);
}
