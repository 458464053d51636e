// Settings → Run: the editable form of a project's run configuration, and
// its conversion back into the RunConfig that project_set_run_config takes
// (with the tool's limits checked first, so a mistake is named next to the
// field instead of coming back from the backend).

import type { RunCommand, RunConfig } from './projectTools';
import type { EffectiveRunConfig } from './run';

/** The limits project_set_run_config enforces. */
export const RUN_CONFIG_LIMITS = {
  commands: 50,
  label: 200,
  command: 8000,
  envKeys: 100,
  envValue: 8000,
} as const;

const ID_RE = /^[a-z0-9-]{1,64}$/;
const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Env keys whose values are masked until shown. */
const SECRET_KEY_RE = /secret|token|key|password|passwd|pwd|auth|credential/i;

/** Whether an env key looks like it holds a secret (its value is masked). */
export const isSecretKey = (key: string): boolean => SECRET_KEY_RE.test(key);

/** One command row of the form ('' id: a new row; it gets an id on save). */
export interface CommandRow {
  id: string;
  label: string;
  command: string;
  isDevServer: boolean;
}

/** One env row of the form. */
export interface EnvRow {
  key: string;
  value: string;
  /** A secret-looking value shown in clear (the "show" toggle). */
  shown: boolean;
}

export interface RunConfigForm {
  commands: CommandRow[];
  /** The default row's index (-1: none). */
  defaultIndex: number;
  env: EnvRow[];
}

/** The form of a configuration. */
export function toForm(config: Pick<EffectiveRunConfig, 'commands' | 'defaultCommandId' | 'env'>): RunConfigForm {
  const commands = config.commands.map((c) => ({ id: c.id, label: c.label, command: c.command, isDevServer: c.isDevServer }));
  let defaultIndex = commands.findIndex((c) => c.id === config.defaultCommandId);
  if (defaultIndex < 0 && commands.length) defaultIndex = Math.max(0, commands.findIndex((c) => c.isDevServer));
  const env = Object.entries(config.env).map(([key, value]) => ({ key, value, shown: false }));
  return { commands, defaultIndex, env };
}

/** A new command row (a dev server by default, as most run commands are). */
export const newCommandRow = (): CommandRow => ({ id: '', label: '', command: '', isDevServer: true });

/** A form field's problem. */
export interface FormError {
  /** "command" or "env" row, by index in the form. */
  where: 'command' | 'env' | 'form';
  index: number;
  message: string;
}

/** An id for a new command: a slug of its label (or command), unique among taken. */
export function commandId(row: Pick<CommandRow, 'label' | 'command'>, taken: ReadonlySet<string>): string {
  const base =
    (row.label || row.command)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'command';
  let id = `custom-${base}`.slice(0, 64);
  for (let n = 2; taken.has(id); n++) id = `custom-${base}-${n}`.slice(0, 64);
  return id;
}

/**
 * The RunConfig of a form, or the problems that keep it from being saved.
 * Commands whose command is empty are dropped (as the original did); a row
 * without a label takes its command as the label; new rows get ids; the
 * default follows its row, else falls to the first dev server, else the
 * first command ("" with none). Env rows with neither key nor value are
 * dropped; keys must be names a shell accepts, once each.
 */
export function fromForm(form: RunConfigForm): { runConfig: RunConfig; errors: FormError[] } {
  const errors: FormError[] = [];
  const kept: { row: CommandRow; index: number }[] = [];
  form.commands.forEach((row, index) => {
    if (row.command.trim() === '') return;
    kept.push({ row, index });
  });
  if (kept.length > RUN_CONFIG_LIMITS.commands) {
    errors.push({ where: 'form', index: -1, message: `At most ${RUN_CONFIG_LIMITS.commands} commands (there are ${kept.length}).` });
  }
  const taken = new Set<string>();
  for (const { row } of kept) if (ID_RE.test(row.id)) taken.add(row.id);
  const seen = new Set<string>();
  const commands: RunCommand[] = [];
  let defaultCommandId = '';
  for (const { row, index } of kept) {
    const command = row.command.trim();
    const label = row.label.trim() || command.slice(0, RUN_CONFIG_LIMITS.label);
    if (label.length > RUN_CONFIG_LIMITS.label) {
      errors.push({ where: 'command', index, message: `The label is longer than ${RUN_CONFIG_LIMITS.label} characters.` });
    }
    if (command.length > RUN_CONFIG_LIMITS.command) {
      errors.push({ where: 'command', index, message: `The command is longer than ${RUN_CONFIG_LIMITS.command} characters.` });
    }
    let id = ID_RE.test(row.id) && !seen.has(row.id) ? row.id : '';
    if (!id) {
      id = commandId(row, taken);
      taken.add(id);
    }
    seen.add(id);
    commands.push({ id, label, command, isDevServer: row.isDevServer });
    if (index === form.defaultIndex) defaultCommandId = id;
  }
  if (!defaultCommandId && commands.length) defaultCommandId = (commands.find((c) => c.isDevServer) ?? commands[0]).id;

  const env: Record<string, string> = {};
  const keys = new Set<string>();
  form.env.forEach((row, index) => {
    const key = row.key.trim();
    if (key === '' && row.value === '') return;
    if (!ENV_KEY_RE.test(key)) {
      errors.push({
        where: 'env',
        index,
        message: key === '' ? 'The variable needs a name.' : 'A name has letters, digits and _ and does not start with a digit.',
      });
      return;
    }
    if (keys.has(key)) {
      errors.push({ where: 'env', index, message: `${key} is set twice.` });
      return;
    }
    if (row.value.length > RUN_CONFIG_LIMITS.envValue) {
      errors.push({ where: 'env', index, message: `The value is longer than ${RUN_CONFIG_LIMITS.envValue} characters.` });
    }
    keys.add(key);
    env[key] = row.value;
  });
  if (keys.size > RUN_CONFIG_LIMITS.envKeys) {
    errors.push({ where: 'form', index: -1, message: `At most ${RUN_CONFIG_LIMITS.envKeys} variables (there are ${keys.size}).` });
  }
  return { runConfig: { commands, defaultCommandId, env }, errors };
}

/** Whether two forms would save the same configuration (ignores the show toggles). */
export function sameForm(a: RunConfigForm, b: RunConfigForm): boolean {
  const strip = (f: RunConfigForm) =>
    JSON.stringify({ c: f.commands, d: f.defaultIndex, e: f.env.map((r) => [r.key, r.value]) });
  return strip(a) === strip(b);
}
