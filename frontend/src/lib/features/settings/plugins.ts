// Settings → Plugins: the shapes of the plugin tools (issue 19, from the
// generated types of backend/tools/plugintools) and the words the section
// uses for them.

import type * as Gen from '../../bridge/generated/tools';
import { humanizeResult, humanizeToolError, type ToolErrorLike } from '../../errors';

/** An installed plugin (state.Plugin), as list_plugins returns it. */
export type Plugin = Gen.Plugin;

/** What a plugin asks for or was approved: capabilities and API scopes. */
export type PluginGrants = Gen.PluginGrants;

/** A tool capability a plugin's calls may use. */
export type Capability = Gen.Capability;

/** A bridge namespace a plugin's page may use (approve_plugin_grants' apis). */
export type ApiScope = NonNullable<Gen.ApproveInput['apis']>[number];

/** Exactly one source of install_plugin. */
export type InstallSource = { directory: string } | { archive: string } | { devUrl: string };

/** Capabilities in plain words, in the order the section lists them. */
export const CAPABILITY_LABELS: Record<Capability, string> = {
  'read-only': 'Reads your spaces, tabs, files and settings',
  'writes-files': 'Changes files in your projects',
  'controls-browser': 'Controls the browser',
  'starts-process': 'Starts programs and terminals',
  'accesses-network': 'Reaches the network',
  destructive: 'Deletes or overwrites things that cannot be brought back',
};

/** API scopes in plain words, in the order the section lists them. */
export const API_LABELS: Record<ApiScope, string> = {
  tools: "Calls meith's tools (within the capabilities approved)",
  storage: 'Sees your open browser and workspace tabs',
  cdp: 'Drives browser pages through the DevTools protocol',
  ai: 'Asks the AI model for text',
};

const CAPABILITY_ORDER = Object.keys(CAPABILITY_LABELS) as Capability[];
const API_ORDER = Object.keys(API_LABELS) as ApiScope[];

/** A capability's words (its name when meith does not know it). */
export const capabilityLabel = (c: string): string => CAPABILITY_LABELS[c as Capability] ?? c;

/** An API scope's words (its name when meith does not know it). */
export const apiLabel = (a: string): string => API_LABELS[a as ApiScope] ?? a;

/** The requested capabilities in the section's order (unknown ones last). */
export function requestedCapabilities(p: Plugin): Capability[] {
  return byOrder(p.requestedGrants?.capabilities ?? [], CAPABILITY_ORDER) as Capability[];
}

/** The requested API scopes in the section's order (unknown ones last). */
export function requestedApis(p: Plugin): string[] {
  return byOrder(p.requestedGrants?.apis ?? [], API_ORDER);
}

function byOrder(values: readonly string[], order: readonly string[]): string[] {
  const rank = (v: string) => {
    const i = order.indexOf(v);
    return i < 0 ? order.length : i;
  };
  return [...new Set(values)].sort((a, b) => rank(a) - rank(b));
}

/** A selection of grants: what the checkboxes hold. */
export interface GrantSelection {
  capabilities: string[];
  apis: string[];
}

/** The approved grants as a selection. */
export function approvedSelection(p: Plugin): GrantSelection {
  return { capabilities: [...(p.approvedGrants?.capabilities ?? [])], apis: [...(p.approvedGrants?.apis ?? [])] };
}

/** A selection narrowed to what the plugin requested: approval never exceeds the request. */
export function withinRequest(p: Plugin, s: GrantSelection): GrantSelection {
  const caps = new Set(s.capabilities);
  const apis = new Set(s.apis);
  return { capabilities: requestedCapabilities(p).filter((c) => caps.has(c)), apis: requestedApis(p).filter((a) => apis.has(a)) };
}

/** A selection as a comparable key (order does not matter). */
export function selectionKey(s: GrantSelection | PluginGrants | null | undefined): string {
  const caps = [...(s?.capabilities ?? [])].sort().join(',');
  const apis = [...(s?.apis ?? [])].sort().join(',');
  return `${caps}|${apis}`;
}

/** The requested API scopes not approved: enabling is refused while there are any. */
export function unapprovedApis(p: Plugin): string[] {
  const approved = new Set(p.approvedGrants?.apis ?? []);
  return requestedApis(p).filter((a) => !approved.has(a));
}

/** Where a plugin came from, in words: "Folder /x", "Archive /x.tgz", "Dev server http://…". */
export function sourceText(p: Plugin): string {
  const s = p.source;
  switch (s?.kind) {
    case 'local-dir':
      return `Folder ${s.path ?? p.root}`;
    case 'archive':
      return `Archive ${s.path ?? ''}`.trim();
    case 'dev-url':
      return `Dev server ${s.url ?? ''}`.trim();
    default:
      return s?.kind ?? '';
  }
}

/** The file dialog's filter for plugin archives (install_plugin {archive} checks the file itself). */
export const ARCHIVE_FILTERS = [{ displayName: 'Plugin archives (.tgz, .tar.gz, .tar)', pattern: '*.tgz;*.tar.gz;*.tar' }];

/** The plugin tools' names, which their messages mention in parentheses for the CLI. */
const TOOL_HINT = /\s*\((?:list_plugins|install_plugin|approve_plugin_grants|set_plugin_enabled|uninstall_plugin|open_plugin_tab)\b[^)]*\)/g;

/**
 * A failed plugin tool call in words. The service's refusals are sentences
 * already ("Cannot enable x: unapproved API scopes [tools]"): they are shown
 * as they are, without the tool hints meant for the CLI.
 */
export function pluginErrorText(r: { error?: ToolErrorLike }, action = ''): string {
  const message = (r.error?.message ?? '').replace(TOOL_HINT, '');
  if (r.error?.code === 'PERMISSION_DENIED' && /^Cannot /.test(message)) return humanizeToolError({ message });
  return humanizeResult({ error: r.error ? { ...r.error, message } : undefined }, action);
}
