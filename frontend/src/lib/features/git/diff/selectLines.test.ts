import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lineRef, parseFileDiff, selectedLinesPatch, wholeHunk } from './diffModel';

// The oracle is the git CLI: the patch built from a selection must apply
// with git apply --cached and stage exactly the selected lines.
const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const dirs: string[] = [];
function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', '-c', 'init.defaultBranch=main', ...args], {
    cwd: dir, env, input, encoding: 'utf8',
  });
}
function repo(before: string, after: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'meith-lines-'));
  dirs.push(dir);
  git(dir, ['init', '-q']);
  writeFileSync(join(dir, 'f.txt'), before);
  git(dir, ['add', 'f.txt']);
  git(dir, ['commit', '-q', '-m', 'base']);
  writeFileSync(join(dir, 'f.txt'), after);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('selectedLinesPatch', () => {
  it('stages only the selected added and deleted lines (checked with git apply --cached)', () => {
    const dir = repo('a\nb\nc\nd\n', 'a\nB\nc\nnew 1\nnew 2\n');
    const model = parseFileDiff(git(dir, ['diff', 'f.txt']));
    // Pick the deletion of "b" and the addition of "new 1" only.
    const picked = new Set<string>();
    model.hunks.forEach((h, hi) =>
      h.lines.forEach((l, li) => {
        if ((l.kind === 'del' && l.text === 'b') || (l.kind === 'add' && l.text === 'new 1')) picked.add(lineRef(hi, li));
      }),
    );
    const patch = selectedLinesPatch(model, picked, false);
    git(dir, ['apply', '--cached', '-'], patch);
    expect(git(dir, ['show', ':f.txt'])).toBe('a\nc\nd\nnew 1\n');
  });

  it('unstages selected lines of a staged diff (reverse)', () => {
    const dir = repo('one\ntwo\nthree\n', 'one\n2\nthree\nfour\n');
    git(dir, ['add', 'f.txt']);
    const model = parseFileDiff(git(dir, ['diff', '--cached', 'f.txt']));
    const picked = new Set<string>();
    model.hunks.forEach((h, hi) => h.lines.forEach((l, li) => l.text === 'four' && picked.add(lineRef(hi, li))));
    const patch = selectedLinesPatch(model, picked, true);
    git(dir, ['apply', '--cached', '-R', '-'], patch);
    expect(git(dir, ['show', ':f.txt'])).toBe('one\n2\nthree\n');
  });

  it('stages a whole later hunk, and unstages it again', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const before = lines.join('\n') + '\n';
    lines.splice(1, 1, 'two', 'extra');
    lines[27] = 'changed';
    const dir = repo(before, lines.join('\n') + '\n');
    const model = parseFileDiff(git(dir, ['diff', 'f.txt']));
    expect(model.hunks).toHaveLength(2);
    git(dir, ['apply', '--cached', '-'], selectedLinesPatch(model, wholeHunk(model, 1), false));
    const staged = git(dir, ['diff', '--cached']);
    expect(staged).toContain('+changed');
    expect(staged).not.toContain('+extra');
    const stagedModel = parseFileDiff(git(dir, ['diff', '--cached', 'f.txt']));
    git(dir, ['apply', '--cached', '-R', '-'], selectedLinesPatch(stagedModel, wholeHunk(stagedModel, 0), true));
    expect(git(dir, ['diff', '--cached'])).toBe('');
  });

  it('gives nothing for an empty selection', () => {
    const model = parseFileDiff('diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n');
    expect(selectedLinesPatch(model, new Set(), false)).toBe('');
  });
});
