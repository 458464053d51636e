import { describe, expect, it } from 'vitest';
import { commandId, fromForm, isSecretKey, RUN_CONFIG_LIMITS, sameForm, toForm, type RunConfigForm } from './runConfigForm';

const row = (over: Partial<RunConfigForm['commands'][number]> = {}) => ({ id: '', label: '', command: '', isDevServer: true, ...over });
const env = (key: string, value: string) => ({ key, value, shown: false });

describe('isSecretKey', () => {
  it.each([
    ['API_TOKEN', true], ['GITHUB_TOKEN', true], ['STRIPE_SECRET_KEY', true], ['DB_PASSWORD', true], ['MYSQL_PWD', true],
    ['passwd', true], ['AUTH_URL', true], ['AWS_CREDENTIALS', true], ['apiKey', true],
    ['PORT', false], ['NODE_ENV', false], ['HOST', false], ['DEBUG', false],
  ])('%s → %s', (key, want) => expect(isSecretKey(key)).toBe(want));
});

describe('toForm', () => {
  it('keeps the commands in order, the default by index and the env as rows', () => {
    const f = toForm({ commands: [row({ id: 'a', label: 'A', command: 'a' }), row({ id: 'b', label: 'B', command: 'b' })], defaultCommandId: 'b', env: { PORT: '3000', API_TOKEN: 'x' } });
    expect(f.defaultIndex).toBe(1);
    expect(f.env).toEqual([env('PORT', '3000'), env('API_TOKEN', 'x')]);
    expect(toForm({ commands: [], defaultCommandId: '', env: {} })).toEqual({ commands: [], defaultIndex: -1, env: [] });
  });
});

describe('fromForm', () => {
  it('drops commands without a command and keeps the default with its row', () => {
    const { runConfig, errors } = fromForm({
      commands: [row({ id: 'script-dev', label: 'Dev', command: ' pnpm dev ' }), row({ label: 'empty', command: '   ' }), row({ label: 'Preview', command: 'pnpm preview' })],
      defaultIndex: 2,
      env: [],
    });
    expect(errors).toEqual([]);
    expect(runConfig.commands).toEqual([
      { id: 'script-dev', label: 'Dev', command: 'pnpm dev', isDevServer: true },
      { id: 'custom-preview', label: 'Preview', command: 'pnpm preview', isDevServer: true },
    ]);
    expect(runConfig.defaultCommandId).toBe('custom-preview');
  });

  it('moves the default to the first dev server (else the first) when its row was dropped, "" with none left', () => {
    const f = (defaultIndex: number, commands: ReturnType<typeof row>[]) => fromForm({ commands, defaultIndex, env: [] }).runConfig.defaultCommandId;
    expect(f(0, [row({ command: '' }), row({ id: 'lint', command: 'lint', isDevServer: false }), row({ id: 'web', command: 'serve' })])).toBe('web');
    expect(f(0, [row({ command: '' }), row({ id: 'lint', command: 'lint', isDevServer: false })])).toBe('lint');
    expect(f(0, [row({ command: '' })])).toBe('');
    expect(fromForm({ commands: [], defaultIndex: -1, env: [] }).runConfig).toEqual({ commands: [], defaultCommandId: '', env: {} });
  });

  it('labels a row without a label with its command and gives new rows unique ids', () => {
    const { runConfig } = fromForm({
      commands: [row({ command: 'make dev' }), row({ label: 'Make dev', command: 'make dev' }), row({ id: 'custom-make-dev', label: 'x', command: 'y' }), row({ id: 'BAD ID', command: 'z' })],
      defaultIndex: 0,
      env: [],
    });
    expect(runConfig.commands?.map((c) => [c.id, c.label])).toEqual([
      ['custom-make-dev-2', 'make dev'],
      ['custom-make-dev-3', 'Make dev'],
      ['custom-make-dev', 'x'],
      ['custom-z', 'z'],
    ]);
    for (const c of runConfig.commands ?? []) expect(c.id).toMatch(/^[a-z0-9-]{1,64}$/);
    expect(commandId({ label: '', command: '!!!' }, new Set())).toBe('custom-command');
    expect(commandId({ label: 'x'.repeat(100), command: '' }, new Set()).length).toBeLessThanOrEqual(64);
  });

  it('names the rows with bad env names, duplicates and overlong fields, and keeps the good ones', () => {
    const { runConfig, errors } = fromForm({
      commands: [row({ label: 'L'.repeat(RUN_CONFIG_LIMITS.label + 1), command: 'x' }), row({ command: 'c'.repeat(RUN_CONFIG_LIMITS.command + 1) })],
      defaultIndex: 0,
      env: [env('PORT', '3000'), env('', ''), env('1BAD', 'x'), env('PORT', '4000'), env('', 'orphan'), env('API_TOKEN', 'secret-value')],
    });
    expect(errors.map((e) => [e.where, e.index])).toEqual([
      ['command', 0], ['command', 1], ['env', 2], ['env', 3], ['env', 4],
    ]);
    expect(errors.find((e) => e.index === 3 && e.where === 'env')?.message).toBe('PORT is set twice.');
    expect(errors.find((e) => e.index === 4 && e.where === 'env')?.message).toBe('The variable needs a name.');
    // No value is ever echoed in a message.
    expect(errors.map((e) => e.message).join(' ')).not.toContain('secret-value');
    expect(runConfig.env).toEqual({ PORT: '3000', API_TOKEN: 'secret-value' });
  });

  it('refuses more commands or variables than the tool takes', () => {
    const many = Array.from({ length: RUN_CONFIG_LIMITS.commands + 1 }, (_, i) => row({ command: `c${i}` }));
    expect(fromForm({ commands: many, defaultIndex: 0, env: [] }).errors.map((e) => e.where)).toEqual(['form']);
    const vars = Array.from({ length: RUN_CONFIG_LIMITS.envKeys + 1 }, (_, i) => env(`V${i}`, ''));
    expect(fromForm({ commands: [], defaultIndex: -1, env: vars }).errors.map((e) => e.where)).toEqual(['form']);
  });
});

describe('sameForm', () => {
  it('ignores the show toggles', () => {
    const a: RunConfigForm = { commands: [], defaultIndex: -1, env: [env('API_TOKEN', 'x')] };
    expect(sameForm(a, { ...a, env: [{ key: 'API_TOKEN', value: 'x', shown: true }] })).toBe(true);
    expect(sameForm(a, { ...a, env: [env('API_TOKEN', 'y')] })).toBe(false);
  });
});
