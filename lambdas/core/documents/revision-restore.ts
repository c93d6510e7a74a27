/**
 * What the contract read before its tracked changes, as edits of the normalised text. The text
 * between two unchanged characters of the document (a stretch: spaces, paragraph breaks, and
 * whatever was inserted or deleted there) is read as it stood with every change rejected, and
 * normalised as the whole text is; a stretch that differs becomes one edit. The characters
 * either side stay where they are, so every unchanged part of the text reads exactly as the
 * clauses' text does, and only the changed stretches are written again.
 */
import { applyEdits, type RedlineEdit } from '../../text/redline-edits.js';
import { normaliseText } from './normalise.js';
import { MAX_RESTORE_EDITS } from './revision-types.js';

/**
 * A character that stands for the unchanged one either side of a stretch while it is
 * normalised: visible, and composing with no mark that may follow it (NFC).
 */
const EDGE = '\u4e00';

/** Collects the edits of one text, stretch by stretch, in document order. */
export class RestoreEdits {
  private readonly edits: RedlineEdit[] = [];
  /** Where the current stretch starts in the text (after the last unchanged character). */
  private start = 0;
  /** Whether an unchanged character has been seen: the stretch has one on its left. */
  private anchored = false;
  /** The stretch as it read before: characters not inserted, deleted ones, paragraph breaks. */
  private before = '';
  private changed = false;
  /** Characters the edits insert so far. */
  private inserted = 0;
  private overflow = false;

  /**
   * @param text the normalised text
   * @param maxChars the most characters the text before may hold (the document limit)
   */
  constructor(
    private readonly text: string,
    private readonly maxChars: number,
  ) {}

  /** Text of the stretch as it read before (unchanged spaces, deleted text, a paragraph break). */
  read(chars: string): void {
    if (this.overflow) return;
    this.before += chars;
    if (this.before.length > this.maxChars) this.overflow = true;
  }

  /** The stretch differs from the text now: something was inserted or deleted in it. */
  change(): void {
    this.changed = true;
  }

  /** An unchanged character at `pos` of the text: it ends the stretch. */
  anchor(pos: number): void {
    this.end(pos, true);
    this.start = pos + 1;
    this.anchored = true;
  }

  /** The edits, once the whole body has been read; undefined when the text before is too long. */
  finish(): RedlineEdit[] | undefined {
    this.end(this.text.length, false);
    return this.overflow ? undefined : this.edits;
  }

  private end(pos: number, anchoredRight: boolean): void {
    if (this.changed && !this.overflow) {
      const left = this.anchored ? EDGE : '';
      const right = anchoredRight ? EDGE : '';
      const folded = normaliseText(left + this.before + right);
      const insert = folded.slice(left.length, folded.length - right.length);
      if (insert !== this.text.slice(this.start, pos)) this.push({ start: this.start, end: pos, insert });
    }
    this.before = '';
    this.changed = false;
  }

  /** Adds an edit; past {@link MAX_RESTORE_EDITS}, joins it to the one before, which then spans both. */
  private push(edit: RedlineEdit): void {
    const last = this.edits[this.edits.length - 1];
    const joined =
      last && this.edits.length >= MAX_RESTORE_EDITS
        ? {
            start: last.start,
            end: edit.end,
            insert: last.insert + this.text.slice(last.end, edit.start) + edit.insert,
          }
        : undefined;
    const added = joined ? joined.insert.length - (last?.insert.length ?? 0) : edit.insert.length;
    this.inserted += added;
    if (this.inserted > this.maxChars) {
      this.overflow = true;
      return;
    }
    if (joined) this.edits[this.edits.length - 1] = joined;
    else this.edits.push(edit);
  }
}

/**
 * The text before the changes: the normalised text with the restore edits made.
 * @example textBefore('Pay within 90 days.', [{ start: 11, end: 13, insert: '30' }]) // 'Pay within 30 days.'
 */
export function textBefore(text: string, restore: readonly RedlineEdit[]): string {
  return applyEdits(text, restore);
}

/**
 * Where a span of the normalised text (a clause's) lies in the text before the changes. Edits
 * wholly before the span shift it; an edit at or across one of its ends (a restored stretch
 * between two unchanged characters) is shared at a paragraph break: what it restores before its
 * first break belongs to a span ending there, what it restores after its last break to a span
 * starting there, and a stretch with no break belongs to the span it lies in, or else to the one
 * that follows it (to the one before it at the end of the text).
 *
 * @param text the normalised text the span and the edits index
 * @example spanBefore('One.\n\nTwo.', [{ start: 4, end: 6, insert: ' gone.\n\n' }], 0, 4) // { start: 0, end: 10 }
 */
export function spanBefore(
  text: string,
  restore: readonly RedlineEdit[],
  start: number,
  end: number,
): { start: number; end: number } {
  return { start: mapPoint(text, restore, start, 'start'), end: mapPoint(text, restore, end, 'end') };
}

function mapPoint(text: string, restore: readonly RedlineEdit[], pos: number, side: 'start' | 'end'): number {
  let shift = 0;
  for (const e of restore) {
    if (e.end < pos) {
      shift += e.insert.length - (e.end - e.start);
      continue;
    }
    if (e.start > pos) break;
    const at = e.start + shift;
    if (side === 'start') {
      const nl = e.insert.lastIndexOf('\n');
      return at + (nl >= 0 ? nl + 1 : 0);
    }
    const nl = e.insert.indexOf('\n');
    if (nl >= 0) return at + nl;
    return e.start === pos && e.end < text.length ? at : at + e.insert.length;
  }
  return pos + shift;
}
