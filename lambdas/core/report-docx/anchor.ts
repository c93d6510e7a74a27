/**
 * Puts nodes at points of the document's text: a comment's range markers and reference
 * (ECMA-376 Part 1, 17.13.4), and the markers that bound a tracked change until it is written.
 * Every point is a run boundary, made by splitting the run there (`runs.ts`). Points are
 * handled from the end of the document backwards, so a split never moves a point still to be
 * placed; the nodes that share a point go in the order their placements ask for.
 */
import { wElement } from './ooxml.js';
import { runBoundary } from './runs.js';
import type { Atom } from './text-map.js';

/** A point between characters: before character `pos` of an atom's `w:t` (pos may be its length). */
export interface TextPoint {
  readonly atom: Atom;
  readonly pos: number;
}

/** The point before an atom's character, and the point after it. */
export const before = (atom: Atom): TextPoint => ({ atom, pos: atom.offset });
export const after = (atom: Atom): TextPoint => ({ atom, pos: atom.offset + 1 });

/** Nodes to put at a point; `order` ranks the placements that share the point (lower first). */
export interface Placement {
  readonly at: TextPoint;
  readonly order: readonly number[];
  readonly nodes: readonly Node[];
}

const compareOrder = (x: readonly number[], y: readonly number[]): number => {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

/** Puts every placement's nodes into the document. */
export function place(placements: readonly Placement[]): void {
  const sorted = [...placements].sort(
    (x, y) =>
      y.at.atom.nodeOrdinal - x.at.atom.nodeOrdinal || y.at.pos - x.at.pos || compareOrder(x.order, y.order),
  );
  for (let i = 0; i < sorted.length; ) {
    const first = sorted[i] as Placement;
    const { parent, before: at } = runBoundary(first.at.atom.node, first.at.pos);
    for (; i < sorted.length; i++) {
      const p = sorted[i] as Placement;
      if (p.at.atom.nodeOrdinal !== first.at.atom.nodeOrdinal || p.at.pos !== first.at.pos) break;
      for (const node of p.nodes) parent.insertBefore(node, at);
    }
  }
}

/** What a comment's range starts with, and what ends it: the end marker and the reference run. */
export function commentMarks(doc: Document, id: number): { start: Node[]; end: Node[] } {
  const reference = wElement(doc, 'r');
  reference.appendChild(wElement(doc, 'commentReference', { id: String(id) }));
  return {
    start: [wElement(doc, 'commentRangeStart', { id: String(id) })],
    end: [wElement(doc, 'commentRangeEnd', { id: String(id) }), reference],
  };
}
