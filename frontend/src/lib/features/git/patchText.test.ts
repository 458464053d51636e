import { describe, expect, it } from 'vitest';
import { hunkPatch } from './patchText';

const diff = `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+2
 three
@@ -10,2 +10,3 @@ ctx
 ten
+ten and a half
 eleven
\\ No newline at end of file
`;

describe('hunkPatch', () => {
  it('keeps the file header and one hunk', () => {
    expect(hunkPatch(diff, 1)).toBe(`diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -10,2 +10,3 @@ ctx
 ten
+ten and a half
 eleven
\\ No newline at end of file
`);
    expect(hunkPatch(diff, 0)).toContain('+2\n three\n');
    expect(hunkPatch(diff, 0)).not.toContain('ten');
    expect(hunkPatch(diff, 2)).toBe('');
  });
});
