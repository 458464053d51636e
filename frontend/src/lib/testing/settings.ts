import type { AppSettings } from '../bridge';

/** The backend's default app settings (backend/state DefaultSettings), for test fixtures. */
export function defaultSettings(git: Partial<AppSettings['git']> = {}): AppSettings {
  return {
    autoRunOnOpen: false,
    confirmOnClose: true,
    stopServersOnClose: true,
    showOutputOnRun: true,
    defaultPackageManager: 'unknown',
    debugMode: false,
    stopOrphansOnStart: true,
    devServerOpenBrowser: 'offer',
    audit: { retentionDays: 90, maxMB: 200 },
    git: {
      refreshIntervalMs: 2500,
      showUntrackedFiles: true,
      confirmBeforeRestore: true,
      checkpointBeforeAgentRun: true,
      identityProfiles: [],
      activeIdentityProfileId: null,
      ...git,
    },
  };
}
