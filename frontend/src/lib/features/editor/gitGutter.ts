// The gutter that marks the lines of the open file changed against HEAD:
// added (a bar), modified (a bar of another colour) and deleted (a wedge
// between the lines where lines went). The markers come from git_diff's
// patch of the file (scope "all": HEAD to the working tree), are placed on
// the file as it is on disk, and move with the buffer's edits until the next
// refresh (on save, on git_changed).
import { RangeSet, StateEffect, StateField, type ChangeDesc, type Extension, type Text } from '@codemirror/state';
import { GutterMarker, gutter } from '@codemirror/view';
import { parseFileDiff } from '../git/diff/diffModel';

export type LineChange = 'added' | 'modified' | 'deleted';

/** A changed line of the new side (1-based); "deleted" marks the line after which lines went (0: before line 1). */
export interface LineMarker {
  line: number;
  kind: LineChange;
}

/**
 * The line markers of one file's unified patch (HEAD → working tree): a run
 * of added lines next to deleted ones is "modified", added alone "added",
 * deleted alone a "deleted" marker after the preceding line.
 */
export function markersFromPatch(patch: string): LineMarker[] {
  const model = parseFileDiff(patch);
  const out: LineMarker[] = [];
  for (const h of model.hunks) {
    let i = 0;
    // The new-side line number before the current position.
    let prevNew = h.newStart - 1;
    while (i < h.lines.length) {
      const l = h.lines[i];
      if (l.kind === 'context') {
        prevNew = l.newNo ?? prevNew + 1;
        i++;
        continue;
      }
      if (l.kind === 'nonewline') {
        i++;
        continue;
      }
      // A run of changes: dels and adds until the next context line.
      let dels = 0;
      const adds: number[] = [];
      while (i < h.lines.length && h.lines[i].kind !== 'context') {
        const r = h.lines[i];
        if (r.kind === 'del') dels++;
        else if (r.kind === 'add' && r.newNo !== undefined) adds.push(r.newNo);
        i++;
      }
      if (adds.length === 0) {
        if (dels > 0) out.push({ line: prevNew, kind: 'deleted' });
      } else {
        const kind: LineChange = dels > 0 ? 'modified' : 'added';
        for (const n of adds) out.push({ line: n, kind });
        prevNew = adds[adds.length - 1];
      }
    }
  }
  return out;
}

class ChangeMarker extends GutterMarker {
  override elementClass: string;
  constructor(readonly kind: LineChange) {
    super();
    this.elementClass = `cm-git-${kind}`;
  }
  override eq(other: GutterMarker): boolean {
    return other instanceof ChangeMarker && other.kind === this.kind;
  }
}

const MARKERS: Record<LineChange, ChangeMarker> = {
  added: new ChangeMarker('added'),
  modified: new ChangeMarker('modified'),
  deleted: new ChangeMarker('deleted'),
};

/** Replaces the markers; positions are offsets in the current document. */
export const setGitMarkers = StateEffect.define<{ pos: number; kind: LineChange }[]>();

const markerField = StateField.define<RangeSet<GutterMarker>>({
  create: () => RangeSet.empty,
  update(set, tr) {
    let next = set.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setGitMarkers)) continue;
      const sorted = [...e.value].sort((a, b) => a.pos - b.pos);
      next = RangeSet.of(sorted.map((m) => MARKERS[m.kind].range(m.pos)));
    }
    return next;
  },
});

/**
 * Places markers computed on `disk` (the file as saved) in the current
 * document: each marked line's start on disk, mapped through the edits made
 * since (`sinceSaved`). A deleted marker on line 0 sits on line 1.
 */
export function placeMarkers(markers: readonly LineMarker[], disk: Text, sinceSaved: ChangeDesc | null): { pos: number; kind: LineChange }[] {
  const out: { pos: number; kind: LineChange }[] = [];
  for (const m of markers) {
    const n = Math.min(Math.max(1, m.line), disk.lines);
    let pos = disk.line(n).from;
    if (sinceSaved) pos = sinceSaved.mapPos(pos, 1);
    out.push({ pos, kind: m.kind });
  }
  return out;
}

/** The gutter (its markers come through setGitMarkers). */
export function gitGutter(): Extension {
  return [
    markerField,
    gutter({
      class: 'cm-git-gutter',
      markers: (view) => view.state.field(markerField),
      initialSpacer: () => MARKERS.added,
    }),
  ];
}
