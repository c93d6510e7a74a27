/**
 * The changes of one part, gathered character by character as the part is read. A change runs
 * on while the characters carry the same change (same kind, author, date and move), across
 * spaces and paragraph breaks, and ends at an unchanged visible character or another change:
 * so an insertion Word wrote as three `w:ins` in three runs, or across two paragraphs, is one.
 * Formatting changes run on the same way over the characters whose formatting they change.
 */
import { normaliseText } from './normalise.js';
import { boundedText, MAX_CHANGE_TEXT } from './revision-types.js';

/** What a changed character carries: the change it is part of. */
export interface ChangeKey {
  readonly kind: 'insertion' | 'deletion' | 'move-to' | 'move-from';
  readonly author: string;
  readonly date?: string;
  /** The move's name (`w:name` of its range), pairing where text went with where it was. */
  readonly move?: string;
  /** For text in neither version (inserted, then deleted): who inserted it. */
  readonly insertedBy?: { readonly author: string; readonly date?: string };
}

/** What a character whose formatting was changed carries. */
export interface FormatKey {
  readonly author: string;
  readonly date?: string;
  readonly properties: readonly string[];
}

/** A change as read, before moves are paired and ids given. */
export interface LoggedChange {
  readonly seq: number;
  kind: ChangeKey['kind'] | 'formatting';
  readonly author: string;
  readonly date?: string;
  readonly move?: string;
  readonly insertedBy?: ChangeKey['insertedBy'];
  readonly properties?: readonly string[];
  /** Its span in the normalised text (a point for deleted text), once known. */
  start?: number;
  end?: number;
  /** The text as read, when it is not a span of the normalised text. */
  raw: string;
  /** Characters read in all (the raw text stops growing past a bound). */
  rawChars: number;
  /** The change it stands in place of (an insertion right after a deletion, or before one). */
  replaces?: number;
  /** For a move: where its text stood. */
  from?: number;
}

const sameKey = (a: ChangeKey, b: ChangeKey) =>
  a.kind === b.kind &&
  a.author === b.author &&
  a.date === b.date &&
  a.move === b.move &&
  a.insertedBy?.author === b.insertedBy?.author &&
  a.insertedBy?.date === b.insertedBy?.date;

const sameFormat = (a: FormatKey, b: FormatKey) =>
  a.author === b.author && a.date === b.date && a.properties.join() === b.properties.join();

/** Raw text kept of a change: enough to give its bounded text after normalisation. */
const RAW_KEPT = MAX_CHANGE_TEXT * 4;

interface Open {
  readonly change: LoggedChange;
  readonly key: ChangeKey;
  visible: boolean;
}

/** The log of one part's changes. */
export class ChangeLog {
  readonly changes: LoggedChange[] = [];
  private seq = 0;
  private open: Open | undefined;
  private format: { change: LoggedChange; key: FormatKey } | undefined;
  /** Spaces and breaks read since the open change's last character. */
  private spaces = '';
  /** Whether a paragraph break of the text now was read since the open change's last character. */
  private breakSince = false;
  /** Deleted text whose point waits for the next visible character, and whether a break came first. */
  private pending: { change: LoggedChange; breakAfter: boolean }[] = [];
  /** The position after the last visible character of the text read so far. */
  private lastEnd = 0;
  /** The change closed last, while nothing unchanged has come since. */
  private previous: LoggedChange | undefined;

  /** A character of a change; `pos` is its place in the normalised text when it is there. */
  changed(key: ChangeKey, ch: string, visible: boolean, pos: number | undefined): void {
    if (this.open && !sameKey(this.open.key, key)) this.close();
    if (!this.open) {
      this.open = { change: this.newChange(key), key, visible: false };
      this.spaces = '';
    }
    const change = this.open.change;
    append(change, this.spaces + ch);
    this.spaces = '';
    this.breakSince = false;
    if (visible) this.open.visible = true;
    if (pos !== undefined) {
      this.settle(pos);
      change.start ??= pos;
      change.end = pos + 1;
      this.lastEnd = pos + 1;
    }
  }

  /** An unchanged visible character, at `pos` of the normalised text when it is aligned there. */
  unchanged(pos: number | undefined): void {
    this.close();
    this.previous = undefined;
    this.spaces = '';
    this.breakSince = false;
    if (pos === undefined) return;
    this.settle(pos);
    this.lastEnd = pos + 1;
  }

  /** Unchanged spaces, or a paragraph break (`current`: one the text now has). */
  space(chars: string, current = false): void {
    this.spaces += chars;
    if (!current || !chars.includes('\n')) return;
    this.breakSince = true;
    for (const p of this.pending) p.breakAfter = true;
  }

  /** A character of the text now, and the formatting change it carries, if any. */
  formatted(key: FormatKey | undefined, ch: string, visible: boolean, pos: number | undefined): void {
    if (!key) {
      if (visible) this.closeFormat();
      return;
    }
    if (this.format && !sameFormat(this.format.key, key) && visible) this.closeFormat();
    if (!this.format) {
      if (!visible) return;
      this.format = {
        key,
        change: { seq: this.seq++, kind: 'formatting', ...key, raw: '', rawChars: 0 },
      };
    }
    append(this.format.change, ch);
    if (pos !== undefined) {
      this.format.change.start ??= pos;
      this.format.change.end = pos + 1;
    }
  }

  /** Where the text now stands: after its last visible character read. */
  position(): number {
    return this.lastEnd;
  }

  /** Ends the log: the open changes are closed, and deleted text at the end is placed there. */
  finish(aligned: boolean): LoggedChange[] {
    this.close();
    this.closeFormat();
    if (aligned) this.settle(this.lastEnd);
    return this.changes;
  }

  private newChange(key: ChangeKey): LoggedChange {
    return {
      seq: this.seq++,
      kind: key.kind,
      author: key.author,
      ...(key.date !== undefined ? { date: key.date } : {}),
      ...(key.move !== undefined ? { move: key.move } : {}),
      ...(key.insertedBy ? { insertedBy: key.insertedBy } : {}),
      raw: '',
      rawChars: 0,
    };
  }

  private close(): void {
    const open = this.open;
    this.open = undefined;
    if (!open?.visible) return;
    const change = open.change;
    this.changes.push(change);
    if (change.start === undefined) this.pending.push({ change, breakAfter: this.breakSince });
    const prev = this.previous;
    if (prev && prev.author === change.author && !prev.insertedBy && !change.insertedBy) {
      if (prev.kind === 'deletion' && change.kind === 'insertion') change.replaces = prev.seq;
      else if (prev.kind === 'insertion' && change.kind === 'deletion' && prev.replaces === undefined)
        prev.replaces = change.seq;
    }
    this.previous = change;
  }

  private closeFormat(): void {
    if (this.format) this.changes.push(this.format.change);
    this.format = undefined;
  }

  /** Places waiting deleted text: before the visible character at `pos`, or after the last one when a break came between. */
  private settle(pos: number): void {
    for (const { change, breakAfter } of this.pending) {
      const at = breakAfter ? this.lastEnd : pos;
      change.start = at;
      change.end = at;
    }
    this.pending = [];
  }
}

function append(change: LoggedChange, chars: string): void {
  change.rawChars += chars.length;
  if (change.raw.length < RAW_KEPT) change.raw += chars;
}

/** A logged change's text: its slice of the normalised text, or its raw text normalised; bounded. */
export function loggedText(
  change: LoggedChange,
  text: string | undefined,
): { text: string; textChars?: number } {
  const inText =
    text !== undefined &&
    change.start !== undefined &&
    change.end !== undefined &&
    change.end > change.start &&
    change.kind !== 'deletion' &&
    change.kind !== 'move-from';
  if (inText) return boundedText(text.slice(change.start, change.end));
  const bounded = boundedText(normaliseText(change.raw));
  return change.rawChars > change.raw.length ? { text: bounded.text, textChars: change.rawChars } : bounded;
}
