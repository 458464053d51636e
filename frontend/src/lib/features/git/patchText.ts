/**
 * Builds the patch of one hunk of a file's unified diff (as git_diff
 * returns it): the file header lines, then that hunk alone. git_stage and
 * git_unstage apply it to the index.
 */
export function hunkPatch(diff: string, index: number): string {
  const lines = diff.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const header: string[] = [];
  const hunks: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('@@')) hunks.push([line]);
    else if (hunks.length === 0) header.push(line);
    else hunks[hunks.length - 1].push(line);
  }
  const h = hunks[index];
  if (!h) return '';
  return [...header, ...h].join('\n') + '\n';
}
