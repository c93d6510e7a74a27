/**
 * One part of a Word document read for its changes: every character in document order, with
 * the changes around it (ECMA-376 Part 1, 17.13.5): a run's `w:ins`, `w:del`, `w:moveTo` and
 * `w:moveFrom`, a table row's inserted or deleted mark (`w:trPr/w:ins`, `w:trPr/w:del`), a
 * paragraph mark's (`w:pPr/w:rPr/w:ins`, `w:del`), and formatting changes (`w:rPrChange`,
 * `w:pPrChange`, `w:tblPrChange`, `w:trPrChange`, `w:tcPrChange`). A character is in the text
 * now unless a deletion holds it (as mammoth reads it), and in the text before unless an
 * insertion holds it; one in both is unchanged. In the body, the text map gives each visible
 * character of the text now its place in the normalised text.
 */
import { positionless, W_NS, wAttr, wChild } from '../wordml/index.js';
import { type ChangeKey, ChangeLog, type FormatKey, type LoggedChange } from './revision-log.js';
import type { RestoreEdits } from './revision-restore.js';

/** Where the body's characters are in the normalised text. */
export interface Alignment {
  /** Each `w:t` the text map read, to the index of its first atom. */
  readonly firstAtom: ReadonlyMap<Element, number>;
  /** Each atom's position in the normalised text, or -1 where it is not aligned. */
  readonly posOfAtom: Int32Array;
}

/** A comment's range in a part: offsets where the part is the body. */
export interface CommentRange {
  start?: number;
  end?: number;
  /** The range has started, and waits for its first visible character. */
  waiting: boolean;
}

/** What one part holds: its changes as logged, and its comments' ranges by comment id. */
export interface PartRevisions {
  readonly changes: LoggedChange[];
  readonly ranges: Map<string, CommentRange>;
}

const MC_NS = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

/** A change around the characters being read. */
interface Around {
  readonly kind: ChangeKey['kind'];
  readonly author: string;
  readonly date?: string;
  readonly move?: string;
}

/** Properties elements and their formatting change, by the element they belong to. */
const FORMATTED: Readonly<Record<string, readonly [string, string]>> = {
  r: ['rPr', 'rPrChange'],
  p: ['pPr', 'pPrChange'],
  tbl: ['tblPr', 'tblPrChange'],
  tr: ['trPr', 'trPrChange'],
  tc: ['tcPr', 'tcPrChange'],
};

/** Elements whose content is not text (properties, field codes). */
const NOT_TEXT = new Set([
  'pPr',
  'rPr',
  'trPr',
  'tblPr',
  'tcPr',
  'sectPr',
  'tblGrid',
  'instrText',
  'delInstrText',
]);

/** Reads one part: the body (with its alignment and the restore edits to fill) or another part. */
export function readPart(
  root: Element,
  options: { readonly alignment?: Alignment; readonly restore?: RestoreEdits } = {},
): PartRevisions {
  const walker = new PartWalker(options.alignment, options.restore);
  walker.walk(root);
  return { changes: walker.log.finish(options.alignment !== undefined), ranges: walker.ranges };
}

class PartWalker {
  readonly log = new ChangeLog();
  readonly ranges = new Map<string, CommentRange>();
  private readonly ins: Around[] = [];
  private readonly del: Around[] = [];
  private readonly format: FormatKey[] = [];
  private readonly moveFrom = new Map<string, string>();
  private readonly moveTo = new Map<string, string>();
  /** Ranges started that wait for their first visible character. */
  private waiting: CommentRange[] = [];

  constructor(
    private readonly alignment: Alignment | undefined,
    private readonly restore: RestoreEdits | undefined,
  ) {}

  walk(el: Element): void {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const child = n as Element;
      if (child.namespaceURI === W_NS) this.element(child);
      // mammoth reads an alternative's fallback, the text map its choice first: one of the two.
      else if (!(child.namespaceURI === MC_NS && child.localName === 'Fallback')) this.walk(child);
    }
  }

  private element(el: Element): void {
    const local = el.localName ?? '';
    if (local === 't') this.text(el, this.del.length === 0);
    else if (local === 'delText') this.text(el, false);
    else if (local === 'tab') {
      if (el.parentNode && (el.parentNode as Element).localName === 'r')
        this.char('\t', this.del.length === 0, false, undefined);
    } else if (local === 'ins' || local === 'moveTo') this.within(this.ins, this.around(el), el);
    else if (local === 'del' || local === 'moveFrom') this.within(this.del, this.around(el), el);
    else if (local === 'commentRangeStart' || local === 'commentRangeEnd' || local === 'commentReference')
      this.comment(local, wAttr(el, 'id') ?? '');
    else if (local.endsWith('RangeStart') && local.startsWith('move'))
      (local === 'moveFromRangeStart' ? this.moveFrom : this.moveTo).set(
        wAttr(el, 'id') ?? '',
        wAttr(el, 'name') ?? '',
      );
    else if (local.endsWith('RangeEnd') && local.startsWith('move'))
      (local === 'moveFromRangeEnd' ? this.moveFrom : this.moveTo).delete(wAttr(el, 'id') ?? '');
    else if (!NOT_TEXT.has(local)) this.container(el, local);
  }

  /** A paragraph, run, table, row or cell (with its own changes), or any other element. */
  private container(el: Element, local: string): void {
    const formatting = this.formattingOf(el, local);
    if (formatting) this.format.push(formatting);
    const row = local === 'tr' ? this.rowChange(el) : undefined;
    if (row) (row.kind === 'insertion' ? this.ins : this.del).push(row);
    this.walk(el);
    if (local === 'p') this.paragraphEnd(el);
    if (row) (row.kind === 'insertion' ? this.ins : this.del).pop();
    if (formatting) this.format.pop();
  }

  private within(stack: Around[], around: Around, el: Element): void {
    stack.push(around);
    this.walk(el);
    stack.pop();
  }

  /** The change an `w:ins`, `w:del`, `w:moveTo` or `w:moveFrom` makes; a move outside a named range is an insertion or deletion. */
  private around(el: Element): Around {
    const local = el.localName;
    const ranges = local === 'moveFrom' ? this.moveFrom : local === 'moveTo' ? this.moveTo : undefined;
    const move = ranges ? [...ranges.values()].pop() : undefined;
    const inserted = local === 'ins' || local === 'moveTo';
    const kind = move ? (inserted ? 'move-to' : 'move-from') : inserted ? 'insertion' : 'deletion';
    const date = wAttr(el, 'date');
    return {
      kind,
      author: wAttr(el, 'author') ?? '',
      ...(date !== undefined ? { date } : {}),
      ...(move ? { move } : {}),
    };
  }

  /** A table row inserted or deleted as a whole (`w:trPr/w:ins`, `w:trPr/w:del`). */
  private rowChange(tr: Element): Around | undefined {
    const trPr = wChild(tr, 'trPr');
    const mark = trPr && (wChild(trPr, 'ins') ?? wChild(trPr, 'del'));
    if (!mark) return undefined;
    const date = wAttr(mark, 'date');
    return {
      kind: mark.localName === 'ins' ? 'insertion' : 'deletion',
      author: wAttr(mark, 'author') ?? '',
      ...(date !== undefined ? { date } : {}),
    };
  }

  private formattingOf(el: Element, local: string): FormatKey | undefined {
    const names = FORMATTED[local];
    const props = names && wChild(el, names[0]);
    const change = props && names && wChild(props, names[1]);
    if (!props || !change) return undefined;
    const date = wAttr(change, 'date');
    return {
      author: wAttr(change, 'author') ?? '',
      ...(date !== undefined ? { date } : {}),
      properties: changedProperties(props, change),
    };
  }

  private text(t: Element, current: boolean): void {
    const value = t.textContent ?? '';
    let atom = current ? this.alignment?.firstAtom.get(t) : undefined;
    for (let i = 0; i < value.length; i++) {
      const ch = value[i] ?? '';
      const visible = !positionless(ch);
      let pos: number | undefined;
      if (visible && atom !== undefined) {
        const p = this.alignment?.posOfAtom[atom++] ?? -1;
        pos = p >= 0 ? p : undefined;
      }
      this.char(ch, current, visible, pos);
    }
  }

  /** One character: in the text now (`current`), in the text before unless an insertion holds it. */
  private char(ch: string, current: boolean, visible: boolean, pos: number | undefined): void {
    const before = this.ins.length === 0;
    const format = current ? this.format[this.format.length - 1] : undefined;
    if (current && before) {
      if (visible) {
        this.log.unchanged(pos);
        if (pos !== undefined) this.restore?.anchor(pos);
      } else {
        this.log.space(ch);
        this.restore?.read(ch);
      }
    } else {
      this.log.changed(this.keyOf(current), ch, visible, pos);
      if (before) this.restore?.read(ch);
      if (current !== before) this.restore?.change();
    }
    if (current) this.log.formatted(format, ch, visible, pos);
    if (pos !== undefined) this.startRanges(pos);
  }

  private keyOf(current: boolean): ChangeKey {
    const ins = this.ins[this.ins.length - 1];
    if (current && ins) return ins;
    const del = this.del[this.del.length - 1] ?? { kind: 'deletion', author: '' };
    if (!ins) return del;
    const insertedBy = { author: ins.author, ...(ins.date !== undefined ? { date: ins.date } : {}) };
    const { move: _move, ...rest } = del;
    return { ...rest, kind: 'deletion', insertedBy };
  }

  /** A paragraph's end: a break in the text now unless its mark is deleted, before unless it is inserted. */
  private paragraphEnd(p: Element): void {
    const pPr = wChild(p, 'pPr');
    const rPr = pPr && wChild(pPr, 'rPr');
    // mammoth joins a paragraph whose mark is deleted to the next (and only then).
    const current = this.del.length === 0 && !(rPr && wChild(rPr, 'del'));
    const before = this.ins.length === 0 && !(rPr && (wChild(rPr, 'ins') ?? wChild(rPr, 'moveTo')));
    if (current || before) this.log.space('\n\n', current);
    if (before) this.restore?.read('\n\n');
    if (current !== before) this.restore?.change();
  }

  private comment(local: string, id: string): void {
    const at = this.alignment ? this.log.position() : undefined;
    const range = this.ranges.get(id);
    if (local === 'commentRangeStart') {
      const started: CommentRange = { waiting: true };
      this.ranges.set(id, started);
      this.waiting.push(started);
    } else if (local === 'commentRangeEnd' && range) {
      if (range.waiting && at !== undefined) range.start = at;
      range.waiting = false;
      if (at !== undefined) range.end = Math.max(at, range.start ?? at);
    } else if (!range) {
      // A reference with no range marks a point, or a range that ended before it started.
      this.ranges.set(id, { waiting: false, ...(at !== undefined ? { start: at, end: at } : {}) });
    }
  }

  private startRanges(pos: number): void {
    if (this.waiting.length === 0) return;
    for (const range of this.waiting) {
      if (!range.waiting) continue;
      range.start = pos;
      range.waiting = false;
    }
    this.waiting = [];
  }
}

/** The names of the properties a formatting change changed: those whose element differs before and after. */
function changedProperties(props: Element, change: Element): string[] {
  let old: Element | undefined;
  for (let n = change.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) old = n as Element;
  const now = signatures(
    props,
    new Set([change.localName ?? '', 'ins', 'del', 'moveFrom', 'moveTo', 'rPr', 'sectPr']),
  );
  const was = old ? signatures(old, new Set()) : new Map<string, string>();
  const names = new Set([...now.keys(), ...was.keys()]);
  return [...names].filter((n) => now.get(n) !== was.get(n)).sort();
}

/** Each property element of a properties element, by local name, to a string of its attributes and children. */
function signatures(props: Element, skip: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (let n = props.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 1 || skip.has((n as Element).localName ?? '')) continue;
    out.set((n as Element).localName ?? '', signature(n as Element));
  }
  return out;
}

function signature(el: Element): string {
  const attrs: string[] = [];
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i);
    if (a) attrs.push(`${a.localName}=${a.value}`);
  }
  const children: string[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1) children.push(signature(n as Element));
  return `${attrs.sort().join(' ')}[${children.join(',')}]`;
}
