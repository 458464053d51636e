// Helpers of the Git section of Settings: commit identity profiles and the
// suggestions git_identity_detect returns.
import type { IdentityProfile } from '../../bridge';

/** Where git_identity_detect found an identity. */
export type IdentitySource = 'repo' | 'global' | 'github-cli' | 'gitlab-cli';

/** One suggestion of git_identity_detect. */
export interface IdentitySuggestion {
  source: IdentitySource;
  label: string;
  name: string;
  email: string;
  username?: string;
  host?: string;
  detail: string;
}

/** The content of git_identity_detect. */
export interface IdentityDetection {
  root: string;
  suggestions: IdentitySuggestion[];
}

/** The prefix every profile id carries (backend/state IdentityProfilePrefix + "_"). */
export const PROFILE_ID_PREFIX = 'gitacct_';

/** The refresh intervals the Git panel offers. */
export const REFRESH_INTERVALS: readonly { ms: number; label: string }[] = [
  { ms: 1000, label: '1 s' },
  { ms: 2500, label: '2.5 s' },
  { ms: 5000, label: '5 s' },
  { ms: 10000, label: '10 s' },
  { ms: 30000, label: '30 s' },
];

/** "2.5 s" for 2500. */
export function intervalLabel(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** A fresh profile id, "gitacct_" + 12 random hex digits, not in taken. */
export function newProfileId(taken: Iterable<string> = []): string {
  const used = new Set(taken);
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    const id = PROFILE_ID_PREFIX + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    if (!used.has(id)) return id;
  }
}

/** A plain copy of a profile (the store's profiles are reactive proxies). */
export function copyProfile(p: IdentityProfile): IdentityProfile {
  return { id: p.id, label: p.label, name: p.name, email: p.email };
}

/** The saved profile with the same name and email (email case-insensitive), if any. */
export function findIdentity(profiles: readonly IdentityProfile[], who: { name: string; email: string }): IdentityProfile | undefined {
  const name = who.name.trim();
  const email = who.email.trim().toLowerCase();
  return profiles.find((p) => p.name.trim() === name && p.email.trim().toLowerCase() === email);
}

/** Whether git_commit can use the profile (it needs a name and an email). */
export function isComplete(p: IdentityProfile): boolean {
  return p.name.trim() !== '' && p.email.trim() !== '';
}

/** How a suggestion's source reads in the list. */
export function sourceLabel(source: IdentitySource | string): string {
  switch (source) {
    case 'repo':
      return 'Repository config';
    case 'global':
      return 'Global config';
    case 'github-cli':
      return 'GitHub CLI';
    case 'gitlab-cli':
      return 'GitLab CLI';
    default:
      return source;
  }
}
