import { describe, expect, it } from 'vitest';
import { findFileRefs } from './fileLinks';

const refs = (s: string) => findFileRefs(s).map((r) => [s.slice(r.start, r.end), r.path, r.line, r.column]);

describe('file references in terminal output', () => {
  it.each([
    ['src/app.ts:12', [['src/app.ts:12', 'src/app.ts', 12, undefined]]],
    ['./main.go:3:7: undefined: x', [['./main.go:3:7', './main.go', 3, 7]]],
    ['  at /abs/dir/x.py:40 in f', [['/abs/dir/x.py:40', '/abs/dir/x.py', 40, undefined]]],
    ['FAIL README.md:1 and ../lib/a.rs:2:3', [['README.md:1', 'README.md', 1, undefined], ['../lib/a.rs:2:3', '../lib/a.rs', 2, 3]]],
    ['Makefile.d/rules:9', [['Makefile.d/rules:9', 'Makefile.d/rules', 9, undefined]]],
  ])('%s', (line, want) => {
    expect(refs(line)).toEqual(want);
  });

  it.each([
    'http://localhost:3000/path',
    'listening on 127.0.0.1:8080',
    'at 12:30:01 the build ended',
    'version 1.2.3:4',
    'word:12',
  ])('leaves %s alone', (line) => {
    expect(refs(line)).toEqual([]);
  });
});
