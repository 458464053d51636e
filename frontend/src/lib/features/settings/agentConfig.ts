// Helpers of the Agent section of Settings: the shapes of agent_get_config,
// agent_set_config and agent_probe (backend/tools/agenttools), the custom
// args field, and the model/reasoning options an agent advertises.

/** The preset ids ("" = no agent configured). */
export type PresetId = '' | 'claude' | 'codex' | 'gemini' | 'custom';

/** The agent configuration (agent_get_config / agent_set_config). */
export interface AgentConfig {
  preset: PresetId;
  command: string;
  args: string[];
  model: string;
  reasoning: string;
  autoAccept: boolean;
}

/** A built-in agent command line. */
export interface AgentPreset {
  id: PresetId;
  label: string;
  command: string;
  args: string[];
  installHint: string;
}

/** One value of an advertised option. */
export interface OptionValue {
  value: string;
  name: string;
}

/** A session config option an agent advertises (model, reasoning effort…). */
export interface ConfigOption {
  id: string;
  name: string;
  category: string;
  current: string;
  values: OptionValue[];
}

/** The content of agent_get_config. */
export interface AgentConfigView {
  config: AgentConfig;
  presets: AgentPreset[];
  options: ConfigOption[];
}

/** The content of agent_probe. */
export interface ProbeResult {
  ok: boolean;
  name?: string;
  version?: string;
  httpMcp: boolean;
  message: string;
  stderr?: string;
  options?: ConfigOption[];
  command: string;
  args: string[];
}

/** The stderr shown under a failed probe keeps this many characters (its end). */
export const MAX_STDERR = 4000;

/** The last MAX_STDERR characters of stderr, marked when cut. */
export function clipStderr(stderr: string): string {
  const s = stderr.trimEnd();
  return s.length <= MAX_STDERR ? s : `…${s.slice(s.length - MAX_STDERR)}`;
}

/**
 * Splits an args field into arguments: whitespace separates them; single
 * quotes keep everything literally; double quotes keep spaces and take \"
 * and \\ escapes; a backslash outside quotes escapes the next character.
 * An unclosed quote runs to the end.
 */
export function parseArgs(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false; // an argument is open (so "" counts as an empty argument)
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) cur += text[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** One argument as parseArgs reads it back: quoted when it holds spaces, quotes or backslashes, or is empty. */
export function quoteArg(arg: string): string {
  if (arg !== '' && !/[\s"'\\]/.test(arg)) return arg;
  if (!arg.includes("'")) return `'${arg}'`;
  return `"${arg.replace(/["\\]/g, '\\$&')}"`;
}

/** A command line for display and for the args field. */
export function formatArgs(args: readonly string[]): string {
  return args.map(quoteArg).join(' ');
}

/** The command and its args as one line. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].filter((x, i) => i > 0 || x !== '').map(quoteArg).join(' ');
}

const REASONING_HINTS = ['thought_level', 'reasoning', 'reasoning_effort', 'effort', 'thinking'];

/** The advertised model option, if any (by category or id "model"). */
export function modelOption(options: readonly ConfigOption[]): ConfigOption | undefined {
  return options.find((o) => o.values?.length > 0 && (o.category === 'model' || o.id === 'model'));
}

/** The advertised reasoning option, if any (by the ids or categories the ACP adapter recognises). */
export function reasoningOption(options: readonly ConfigOption[]): ConfigOption | undefined {
  return options.find(
    (o) => o.values?.length > 0 && (REASONING_HINTS.includes(o.category?.toLowerCase()) || REASONING_HINTS.includes(o.id?.toLowerCase())),
  );
}
