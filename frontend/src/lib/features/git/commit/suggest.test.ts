import { describe, expect, it } from 'vitest';
import { DEFAULT_WHY, MAX_SUBJECT, commitType, suggestCommitMessage, type SuggestFile } from './suggest';

const f = (path: string, status = 'modified', additions = 1, deletions = 0): SuggestFile => ({ path, status, additions, deletions });

describe('suggestCommitMessage', () => {
  const cases: [string, SuggestFile[], string][] = [
    // docs: docs/, README.md, .md, .mdx
    ['one markdown file', [f('notes/guide.md')], 'docs: update guide.md'],
    ['README at the root', [f('README.md')], 'docs: update README.md'],
    ['all docs across kinds', [f('docs/arch.png'), f('README.md'), f('site/page.mdx')], 'docs: update docs source control changes'],
    ['docs wins over added files', [f('docs/new.md', 'untracked')], 'docs: update new.md'],
    // test: __tests__/, .test.ts(x), .spec.ts(x)
    ['test files', [f('src/a.test.ts'), f('src/b.spec.tsx'), f('src/__tests__/c.ts')], 'test: update src source control changes'],
    ['one new test', [f('src/x.test.tsx', 'added')], 'test: update x.test.tsx'],
    // style: .css/.scss/.sass
    ['styles', [f('styles/app.css'), f('styles/x.scss'), f('styles/y.sass')], 'style: update styles source control changes'],
    // chore: any package.json or lockfile
    ['package.json among code', [f('src/a.ts'), f('package.json')], 'chore: update src source control changes'],
    ['lockfile alone', [f('pnpm-lock.yaml')], 'chore: update pnpm-lock.yaml'],
    ['chore beats feat', [f('src/new.ts', 'added'), f('frontend/package-lock.json')], 'chore: update src source control changes'],
    // feat: any added or untracked file
    ['added file', [f('src/a.ts'), f('src/b.ts', 'added')], 'feat: update src source control changes'],
    ['untracked file', [f('main.go', 'untracked')], 'feat: update main.go'],
    ['feat beats deleted', [f('a/x.ts', 'deleted'), f('a/y.ts', 'untracked')], 'feat: update a source control changes'],
    // chore: any deleted file
    ['deleted file', [f('src/old.ts', 'deleted', 0, 12), f('src/b.ts')], 'chore: update src source control changes'],
    // fix: otherwise
    ['modified code', [f('backend/git/status.go')], 'fix: update status.go'],
    ['mixed docs and code is not docs', [f('README.md'), f('src/a.ts')], 'fix: update README.md source control changes'],
    ['mixed tests and code is not test', [f('src/a.ts'), f('src/a.test.ts')], 'fix: update src source control changes'],
    // shapes: the first file's first folder, or its basename when top-level
    ['several in one folder', [f('web/a.ts'), f('web/b.ts')], 'fix: update web source control changes'],
    ['many across folders uses the first file', [f('api/a.go'), f('web/b.ts'), f('cli/c.go'), f('x.go')], 'fix: update api source control changes'],
    ['several with a top-level file first', [f('main.go'), f('web/b.ts')], 'fix: update main.go source control changes'],
    // our choice for the empty list
    ['no files', [], 'chore: update files'],
  ];

  it.each(cases)('%s', (_name, files, message) => {
    expect(suggestCommitMessage(files)).toEqual({ message, reason: DEFAULT_WHY });
  });

  it('uses the caller’s reason when given', () => {
    expect(suggestCommitMessage([f('a.ts')], 'Agent timed out.').reason).toBe('Agent timed out.');
    expect(DEFAULT_WHY).toBe('No agent is configured for suggestions; used the file-name heuristic.');
  });

  it('keeps subjects to 72 characters, on one line', () => {
    const long = 'a'.repeat(120) + '.ts';
    const { message } = suggestCommitMessage([f(`dir/${long}`)]);
    expect(message.length).toBe(MAX_SUBJECT);
    expect(message.startsWith('fix: update aaa')).toBe(true);
    expect(message.endsWith('…')).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('accepts porcelain status letters and Windows separators', () => {
    expect(commitType([f('a.ts', 'A')])).toBe('feat');
    expect(commitType([f('a.ts', '??')])).toBe('feat');
    expect(commitType([f('a.ts', 'D')])).toBe('chore');
    expect(suggestCommitMessage([f('docs\\x.txt'), f('docs\\y.txt')]).message).toBe('docs: update docs source control changes');
  });

  it('is deterministic and does not mutate its input', () => {
    const files = [f('b/x.ts'), f('a/y.ts', 'added')];
    const copy = structuredClone(files);
    expect(suggestCommitMessage(files)).toEqual(suggestCommitMessage(files));
    expect(files).toEqual(copy);
  });
});
