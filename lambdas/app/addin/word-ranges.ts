/// <reference types="office-js" />
/**
 * How a span of the report's text is reached in the open Word document: each end a paragraph's
 * edge or the edge of a search Word finds exactly once (WordApi 1.1, at most 255 characters),
 * the two joined with `Range.expandTo` (WordApi 1.3).
 */
import { DocumentText, type TextPoint } from './clause-text.js';

/** Longest search Word takes. */
const MAX_SEARCH = 255;
/** A search shorter than this is lengthened even when unique, so that it stays unique after small edits elsewhere. */
const MIN_SEARCH = 12;

/** A character as Word's search takes it (`^` starts a special code), or undefined when it cannot be searched for. */
export function searchable(c: string): string | undefined {
  if (c === '^') return '^^';
  if (c === '\t') return '^t';
  if (c === '\u000b') return '^l';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Word's fields, objects and cells.
  if (/[\u0000-\u001f]/.test(c)) return undefined;
  return c;
}

/** How to reach a point of the text: a paragraph's start or end, or the edge of a search's one result. */
export type PointPlan =
  | { readonly kind: 'start'; readonly paragraph: number }
  | { readonly kind: 'end'; readonly paragraph: number }
  | {
      readonly kind: 'search';
      readonly paragraph: number;
      readonly text: string;
      readonly edge: 'Start' | 'End';
    };

/**
 * How to reach a point: a paragraph's edge when the point is at it (give or take whitespace),
 * else a search of Word's own text from the point onward (or up to it) that occurs once in the
 * paragraph. Undefined when no such search exists.
 */
export function planPoint(doc: DocumentText, point: TextPoint): PointPlan | undefined {
  const text = doc.paragraphs[point.paragraph] ?? '';
  const { paragraph, offset } = point;
  if (text.slice(0, offset).trim() === '') return { kind: 'start', paragraph };
  if (text.slice(offset).trim() === '') return { kind: 'end', paragraph };
  const grow = (direction: 1 | -1): PointPlan | undefined => {
    let search = '';
    for (let k = 1; ; k++) {
      const at = direction === 1 ? offset + k - 1 : offset - k;
      const c = text[at];
      const s = c === undefined ? undefined : searchable(c);
      if (s === undefined || search.length + s.length > MAX_SEARCH) return undefined;
      search = direction === 1 ? search + s : s + search;
      const [from, to] = direction === 1 ? [offset, offset + k] : [offset - k, offset];
      const edgeChar = direction === 1 ? text[to - 1] : text[from];
      const long = k >= MIN_SEARCH || (direction === 1 ? to === text.length : from === 0);
      if (long && edgeChar?.trim() !== '' && doc.timesInParagraph(paragraph, from, to) === 1) {
        return { kind: 'search', paragraph, text: search, edge: direction === 1 ? 'Start' : 'End' };
      }
    }
  };
  return grow(1) ?? grow(-1);
}

/** A span to reach: from one point to another (the same point for an insertion). */
export interface SpanPlan {
  readonly from: PointPlan;
  readonly to: PointPlan;
}

/**
 * Resolves planned spans to Word ranges in two round trips: the searches, then the ranges
 * joined and their text. A span whose search does not find exactly one range is undefined.
 */
export async function rangesOf(
  context: Word.RequestContext,
  paragraphs: readonly Word.Paragraph[],
  plans: readonly SpanPlan[],
): Promise<(Word.Range | undefined)[]> {
  const searches = new Map<PointPlan, Word.RangeCollection>();
  for (const plan of plans) {
    for (const point of [plan.from, plan.to]) {
      if (point.kind !== 'search' || searches.has(point)) continue;
      const found = paragraphs[point.paragraph]?.search(point.text, { matchCase: false });
      if (!found) continue;
      found.load('items');
      searches.set(point, found);
    }
  }
  if (searches.size > 0) await context.sync();
  const pointRange = (point: PointPlan): Word.Range | undefined => {
    const paragraph = paragraphs[point.paragraph];
    if (!paragraph) return undefined;
    if (point.kind === 'start') return paragraph.getRange('Start');
    if (point.kind === 'end') return paragraph.getRange('Content').getRange('End');
    const items = searches.get(point)?.items ?? [];
    return items.length === 1 ? items[0]?.getRange(point.edge) : undefined;
  };
  const ranges = plans.map((plan) => {
    const from = pointRange(plan.from);
    const to = pointRange(plan.to);
    if (!from || !to) return undefined;
    const range = plan.from === plan.to ? from : from.expandTo(to);
    range.load('text');
    return range;
  });
  await context.sync();
  return ranges;
}

/** The body's paragraphs, loaded, and their text. */
export async function readParagraphs(
  context: Word.RequestContext,
): Promise<{ paragraphs: Word.Paragraph[]; doc: DocumentText }> {
  const collection = context.document.body.paragraphs;
  collection.load('items');
  await context.sync();
  const paragraphs = collection.items;
  return { paragraphs, doc: new DocumentText(paragraphs.map((p) => p.text)) };
}

/** A span of a placed clause as points to reach. */
export function spanPlan(doc: DocumentText, from: TextPoint, to: TextPoint): SpanPlan | undefined {
  const a = planPoint(doc, from);
  const b = from === to ? a : planPoint(doc, to);
  return a && b ? { from: a, to: b } : undefined;
}
