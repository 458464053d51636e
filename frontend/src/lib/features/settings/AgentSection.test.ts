// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AgentConfig, AgentPreset, ConfigOption, ProbeResult } from './agentConfig';
import { commandLine, formatArgs, parseArgs } from './agentConfig';
import { defaultSettings } from '../../testing/settings';

// An in-memory agenttools backend: agent_get_config answers with the config,
// agent_set_config merges a partial patch (or fails when broken), agent_probe
// answers with fake.probe(args).
const fake = vi.hoisted(() => ({
  config: null as unknown as AgentConfig,
  options: [] as ConfigOption[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  broken: false,
  probe: null as unknown as (args: Record<string, unknown>) => ProbeResult | Promise<ProbeResult>,
}));
const presets: AgentPreset[] = [
  { id: 'claude', label: 'Claude Code', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'], installHint: 'Needs Node.js and a Claude login.' },
  { id: 'codex', label: 'Codex', command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp'], installHint: 'Needs Node.js and an OpenAI login.' },
  { id: 'gemini', label: 'Gemini CLI', command: 'gemini', args: ['--experimental-acp'], installHint: 'npm install -g @google/gemini-cli' },
  { id: 'custom', label: 'Custom', command: '', args: [], installHint: '' },
];
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'agent_get_config':
          return { ok: true, content: { config: structuredClone(fake.config), presets: structuredClone(presets), options: structuredClone(fake.options) } };
        case 'agent_set_config':
          if (fake.broken) return { ok: false, error: { code: 'TOOL_FAILED', message: 'disk full' } };
          fake.config = { ...fake.config, ...args };
          return { ok: true, content: { config: structuredClone(fake.config) } };
        case 'agent_probe':
          return { ok: true, content: await fake.probe(args) };
        case 'app_get_state':
          return { ok: true, content: { version: 1, spaces: [], activeSpaceId: null, browserTabs: [], workspaceTabs: [], settings: defaultSettings() } };
        default:
          return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      }
    }),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: AgentSection } = await import('./AgentSection.svelte');
const { default: SettingsView } = await import('./SettingsView.svelte');

const ready = (over: Partial<ProbeResult> = {}): ProbeResult => ({
  ok: true, name: 'claude-agent-acp', version: '0.5.1', httpMcp: true, message: '', command: 'npx', args: [], ...over,
});
const config = (over: Partial<AgentConfig> = {}): AgentConfig => ({
  preset: 'claude', command: '', args: [], model: '', reasoning: '', autoAccept: false, ...over,
});

/** Runs due timers and the promises they start. */
const settle = async (ms = 0) => {
  await vi.advanceTimersByTimeAsync(ms);
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0);
  flushSync();
};
const text = () => document.body.textContent!.replace(/\s+/g, ' ');
const probes = () => fake.calls.filter((c) => c.tool === 'agent_probe').map((c) => c.args);
const writes = () => fake.calls.filter((c) => c.tool === 'agent_set_config').map((c) => c.args);
const radio = (label: string) =>
  [...document.querySelectorAll<HTMLLabelElement>('label')].find((l) => l.textContent?.trim() === label)?.querySelector('input') as HTMLInputElement;
const checkedPreset = () => (document.querySelector('input[name="agent-preset"]:checked') as HTMLInputElement | null)?.value;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement;
function control<T extends HTMLElement>(name: RegExp): T {
  const label = [...document.querySelectorAll('label')].find((l) => name.test(l.textContent ?? ''));
  if (!label) throw new Error(`no label ${name}`);
  const el = label.htmlFor ? document.getElementById(label.htmlFor) : label.querySelector('input, select');
  if (!el) throw new Error(`no control for ${name}`);
  return el as T;
}
function typeInto(el: HTMLInputElement, value: string) {
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}
const pick = (el: HTMLSelectElement | HTMLInputElement, value?: string) => {
  if (value !== undefined) el.value = value;
  else (el as HTMLInputElement).checked = !(el as HTMLInputElement).checked;
  el.dispatchEvent(new Event('change', { bubbles: true }));
};

let app: ReturnType<typeof mount> | undefined;
async function render(c: AgentConfig = config(), options: ConfigOption[] = []) {
  fake.config = structuredClone(c);
  fake.options = options;
  app = mount(AgentSection, { target: document.body });
  await settle();
}
beforeEach(() => {
  vi.useFakeTimers();
  fake.calls = [];
  fake.broken = false;
  fake.probe = () => ready();
  document.body.innerHTML = '';
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  vi.useRealTimers();
});

describe('AgentSection', () => {
  it('loads the config and offers None plus every preset, showing its command line', async () => {
    await render();
    expect(fake.calls[0]).toEqual({ tool: 'agent_get_config', args: {} });
    const labels = [...document.querySelectorAll('input[name="agent-preset"]')].map((r) => r.closest('label')!.textContent!.trim());
    expect(labels).toEqual(['None', 'Claude Code', 'Codex', 'Gemini CLI', 'Custom']);
    expect(checkedPreset()).toBe('claude');
    expect(document.querySelector('[data-testid="agent-command-line"]')?.textContent).toBe('npx -y @agentclientprotocol/claude-agent-acp');
  });

  it('probes 400 ms after loading and shows the agent ready', async () => {
    let answer!: (r: ProbeResult) => void;
    fake.probe = () => new Promise((r) => (answer = r));
    await render();
    expect(text()).toContain('Checking Claude Code…');
    await settle(399);
    expect(probes()).toEqual([]);
    await settle(1);
    expect(probes()).toEqual([{ preset: 'claude' }]);
    expect(text()).toContain('Checking Claude Code…');
    answer(ready());
    await settle();
    expect(text()).toContain('✓ Claude Code is installed and ready.');
    expect(text()).toContain('claude-agent-acp 0.5.1');
    expect(text()).not.toContain('Checking');
  });

  it('saves a preset change as a partial patch and shows why the agent is unavailable', async () => {
    await render();
    await settle(400);
    fake.probe = (args) => ({
      ok: false, httpMcp: false, message: 'npx exited with status 1', stderr: `npm ERR! 404 Not Found\n${'x'.repeat(5000)}TAIL`,
      command: 'npx', args: (args.args as string[]) ?? [],
    });
    pick(radio('Codex'));
    await settle();
    expect(writes()).toEqual([{ preset: 'codex' }]);
    expect(checkedPreset()).toBe('codex');
    expect(document.querySelector('[data-testid="agent-command-line"]')?.textContent).toBe('npx -y @agentclientprotocol/codex-acp');
    expect(text()).toContain('Checking Codex…');
    await settle(400);
    expect(probes()).toEqual([{ preset: 'claude' }, { preset: 'codex' }]);
    expect(text()).toContain("Codex isn't available");
    expect(text()).toContain('npx exited with status 1');
    const pre = document.querySelector('pre')!;
    expect(pre.textContent!.startsWith('…')).toBe(true); // clipped to its end
    expect(pre.textContent!.endsWith('TAIL')).toBe(true);
    expect(pre.textContent!.length).toBeLessThan(5000);
    expect(text()).toContain('Needs Node.js and an OpenAI login.');

    fake.probe = () => ready();
    button('Check again').click();
    await settle();
    expect(probes()).toHaveLength(3); // at once, no delay
    expect(text()).toContain('✓ Codex is installed and ready.');
  });

  it('reports a failing probe call as unavailable', async () => {
    const { call } = await import('../../bridge');
    vi.mocked(call).mockImplementationOnce(async () => ({ ok: true, content: { config: config({ preset: 'gemini' }), presets, options: [] } }))
      .mockImplementationOnce(async () => ({ ok: false, error: { code: 'TIMEOUT', message: 'probe took longer than 20s' } }));
    app = mount(AgentSection, { target: document.body });
    await settle(400);
    expect(text()).toContain("Gemini CLI isn't available");
    expect(text()).toContain('Couldn\'t check the agent: probe took longer than 20s');
    expect(text()).toContain('npm install -g @google/gemini-cli');
  });

  it('None configures no agent and does not probe', async () => {
    await render();
    pick(radio('None'));
    await settle(1000);
    expect(writes()).toEqual([{ preset: '' }]);
    expect(probes()).toEqual([]); // the pending probe of Claude Code was dropped
    expect(text()).toContain('No agent is configured');
    expect(document.querySelector('[data-testid="agent-command-line"]')).toBeNull();
    expect(button('Check again')).toBeUndefined();
  });

  it('Custom: starts from the replaced preset, parses args with quotes, saves them as an array, probes debounced', async () => {
    await render();
    pick(radio('Custom'));
    await settle();
    expect(writes()).toEqual([{ preset: 'custom', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'] }]);
    const command = control<HTMLInputElement>(/^Command$/);
    const args = control<HTMLInputElement>(/^Arguments$/);
    expect(command.value).toBe('npx');
    expect(args.value).toBe('-y @agentclientprotocol/claude-agent-acp');
    await settle(400);
    expect(probes().at(-1)).toEqual({ preset: 'custom', command: 'npx', args: ['-y', '@agentclientprotocol/claude-agent-acp'] });
    const before = probes().length;

    typeInto(command, '/opt/my agent/bin/run');
    await settle(200);
    typeInto(args, '--acp --name "two words" \'it "quoted"\' --empty ""');
    await settle(399);
    expect(probes()).toHaveLength(before); // each keystroke restarts the delay
    await settle(1);
    const want = ['--acp', '--name', 'two words', 'it "quoted"', '--empty', ''];
    expect(probes().slice(before)).toEqual([{ preset: 'custom', command: '/opt/my agent/bin/run', args: want }]);
    expect(text()).toContain('run is installed and ready.');
    expect(document.querySelector('[data-testid="agent-command-line"]')?.textContent).toBe(
      `'/opt/my agent/bin/run' --acp --name 'two words' 'it "quoted"' --empty ''`,
    );
    expect(writes()).toHaveLength(1); // typing saves nothing

    command.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await settle();
    args.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes().slice(1)).toEqual([{ command: '/opt/my agent/bin/run' }, { args: want }]);
    expect(fake.config.args).toEqual(want);
    // Blurring without a change saves nothing.
    command.dispatchEvent(new FocusEvent('blur'));
    args.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes()).toHaveLength(3);
  });

  it('Custom without a command asks for one instead of probing', async () => {
    await render(config({ preset: 'custom' }));
    await settle(400);
    expect(probes()).toEqual([]);
    expect(text()).toContain('Enter the command that starts the agent.');
  });

  it('offers the advertised models and reasoning levels as selects', async () => {
    const options: ConfigOption[] = [
      { id: 'model', name: 'Model', category: 'model', current: 'sonnet', values: [{ value: 'sonnet', name: 'Sonnet' }, { value: 'opus', name: 'Opus' }] },
      { id: 'effort', name: 'Thinking effort', category: 'thought_level', current: 'low', values: [{ value: 'low', name: 'Low' }, { value: 'high', name: 'High' }] },
    ];
    await render(config({ model: 'opus' }), options);
    const model = control<HTMLSelectElement>(/^Model/);
    expect(model.tagName).toBe('SELECT');
    expect([...model.options].map((o) => o.textContent)).toEqual(['Agent default', 'Sonnet', 'Opus']);
    expect(model.value).toBe('opus');
    pick(model, 'sonnet');
    await settle();
    const reasoning = control<HTMLSelectElement>(/^Reasoning/);
    expect([...reasoning.options].map((o) => o.value)).toEqual(['', 'low', 'high']);
    pick(reasoning, 'high');
    await settle();
    expect(writes()).toEqual([{ model: 'sonnet' }, { reasoning: 'high' }]);
  });

  it('takes a free-text model and hides reasoning when nothing is advertised; a probe can advertise them', async () => {
    fake.probe = () => ready({ options: [{ id: 'reasoning_effort', name: 'Reasoning effort', category: '', current: '', values: [{ value: 'max', name: 'Max' }] }] });
    await render(config({ model: 'gpt-5' }));
    const model = control<HTMLInputElement>(/^Model/);
    expect(model.tagName).toBe('INPUT');
    expect(model.value).toBe('gpt-5');
    expect(text()).not.toContain('Reasoning');
    model.value = ' gpt-5-mini ';
    model.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes()).toEqual([{ model: 'gpt-5-mini' }]);
    await settle(400);
    expect(control<HTMLSelectElement>(/^Reasoning/).tagName).toBe('SELECT');
  });

  it('warns about auto-accept and saves it', async () => {
    await render();
    const sw = control<HTMLInputElement>(/Auto-accept tool permissions \(Full access\)/);
    expect(sw.checked).toBe(false);
    const warning = document.getElementById(sw.getAttribute('aria-describedby')!)!;
    expect(warning.textContent!.trim()).toBe(
      'Agents will write files, start processes and drive the browser without asking. Every call is still audited.',
    );
    expect(warning.classList.contains('warn')).toBe(false);
    pick(sw);
    await settle();
    expect(writes()).toEqual([{ autoAccept: true }]);
    expect(control<HTMLInputElement>(/Auto-accept/).checked).toBe(true);
    expect(document.getElementById('agent-auto-accept-warning')!.classList.contains('warn')).toBe(true);
  });

  it('shows a failed save inline and puts the control back', async () => {
    await render();
    fake.broken = true;
    pick(radio('Gemini CLI'));
    await settle();
    expect(document.querySelector('[role="alert"]')?.textContent).toBe("Couldn't save: Disk full");
    expect(checkedPreset()).toBe('claude');
    pick(control<HTMLInputElement>(/Auto-accept/));
    await settle();
    expect(control<HTMLInputElement>(/Auto-accept/).checked).toBe(false);
    fake.broken = false;
    pick(radio('Gemini CLI'));
    await settle();
    expect(document.querySelector('[role="alert"]')).toBeNull();
    expect(checkedPreset()).toBe('gemini');
  });

  it('shows a load failure with Retry', async () => {
    const { call } = await import('../../bridge');
    vi.mocked(call).mockImplementationOnce(async () => ({ ok: false, error: { code: 'UNKNOWN_TOOL', message: 'agent_get_config' } }));
    app = mount(AgentSection, { target: document.body });
    await settle();
    expect(text()).toContain("Couldn't load the agent settings: This version of meith cannot do that.");
    fake.config = config();
    button('Retry').click();
    await settle();
    expect(checkedPreset()).toBe('claude');
  });
});

describe('args field', () => {
  it.each([
    ['', []],
    ['  -y   pkg  ', ['-y', 'pkg']],
    ['--name "two words"', ['--name', 'two words']],
    ["'single \"keeps\" \\ all'", ['single "keeps" \\ all']],
    ['"esc \\" and \\\\"', ['esc " and \\']],
    ['a\\ b c', ['a b', 'c']],
    ['pre"mid dle"post', ['premid dlepost']],
    ['"" x', ['', 'x']],
    ['"unclosed tail', ['unclosed tail']],
  ])('parses %j', (input, want) => {
    expect(parseArgs(input)).toEqual(want);
  });

  it('formats args so they parse back', () => {
    for (const args of [['-y', 'pkg'], ['two words', ''], ['it\'s "x"', 'back\\slash'], ["'", '"']]) {
      expect(parseArgs(formatArgs(args))).toEqual(args);
    }
    expect(commandLine('', ['a'])).toBe('a');
  });
});

describe('SettingsView', () => {
  it('has the Agent section between Git and About', async () => {
    fake.config = config();
    fake.options = [];
    const { appState } = await import('../../stores/appState.svelte');
    await appState.refresh();
    app = mount(SettingsView, { target: document.body });
    await settle();
    const nav = [...document.querySelectorAll('nav button')].map((b) => b.textContent?.trim());
    expect(nav.indexOf('Agent')).toBe(nav.indexOf('Git') + 1);
    expect(nav.indexOf('About')).toBeGreaterThan(nav.indexOf('Agent'));
    button('Agent').click();
    await settle();
    expect(document.querySelector('h2')?.textContent).toBe('Agent');
    expect(checkedPreset()).toBe('claude');
    expect(text()).not.toContain('arrive with agents');
  });
});
