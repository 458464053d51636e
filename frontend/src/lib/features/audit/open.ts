import { appState } from '../../stores/appState.svelte';
import { ui } from '../../stores/ui.svelte';

/**
 * Opens an agent session's chat (the Audit panel's click-through): in the
 * session's space when it is known, in the space's first agent tab (a new
 * one when it has none), which then selects the session.
 */
export async function openAgentSession(sessionId: string, spaceId = ''): Promise<boolean> {
  if (spaceId && spaceId !== appState.activeSpaceId && appState.spaces.some((s) => s.id === spaceId)) {
    if (!(await appState.switchSpace(spaceId))) return false;
  }
  ui.view = 'workspace';
  const existing = appState.tabs.find((t) => t.kind === 'agent');
  const tab = existing ? ((await appState.focusTab(existing.id)) ?? existing) : await appState.openTab('agent');
  if (!tab) return false;
  ui.agentSessionRequest = { tabId: tab.id, sessionId };
  return true;
}
