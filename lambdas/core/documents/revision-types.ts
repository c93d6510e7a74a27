/**
 * What a document says of the changes made to it: the tracked changes and comments a Word
 * document carries, and the differences found between a clean copy and the version it answers,
 * in one shape. Offsets index the normalised text, as the clauses' do.
 */
import type { RedlineEdit } from '../../text/redline-edits.js';

/**
 * What a change does to the text: adds it, takes it out, moves it (out of one place and into
 * another), or changes only its formatting (`w:rPrChange`, `w:pPrChange` and the table's).
 */
export type RevisionKind = 'insertion' | 'deletion' | 'move' | 'formatting';

/** Where a change was found: tracked in the upload, or a difference from the version it answers. */
export type RevisionSource = 'tracked' | 'compared';

/** One change, with who made it and where it is. */
export interface RevisionChange {
  /** `t1`, `t2`… for tracked changes, `v1`, `v2`… for differences from an earlier version, in text order. */
  readonly id: string;
  readonly source: RevisionSource;
  readonly kind: RevisionKind;
  /** The author as the document names them (`w:author`), or the name the comparison was given. */
  readonly author: string;
  /** When, as the document gives it (`w:date`, ISO 8601); absent when it gives none. */
  readonly date?: string;
  /**
   * The text inserted, deleted, moved or reformatted, normalised as the clauses' text is (for
   * text in the normalised text, exactly its slice). Cut at {@link MAX_CHANGE_TEXT} characters,
   * `textChars` then giving its whole length.
   */
  readonly text: string;
  readonly textChars?: number;
  /** The package part a tracked change is in (`word/document.xml`, `word/footnotes.xml`…). */
  readonly part?: string;
  /**
   * Where it is in the normalised text: the span of the text it concerns (an insertion, where a
   * move put its text, a formatting change), or, for a deletion, the point where the deleted
   * text stood (`start === end`). Absent for a part whose text is not the clauses' (headers,
   * footers, footnotes, endnotes).
   */
  readonly start?: number;
  readonly end?: number;
  /** For a move: the point in the normalised text where its text stood before it was moved. */
  readonly from?: number;
  /** The clauses it falls in, by id; a point between two clauses belongs to the one that follows it. */
  readonly clauseIds?: readonly string[];
  /** For an insertion made in the place of a deletion by the same author: that deletion's id. */
  readonly replaces?: string;
  /**
   * For deleted text another change had inserted (a `w:ins` inside a `w:del`, or the other way
   * round): who inserted it. Such text is neither in the text nor in what it read before.
   */
  readonly insertedBy?: { readonly author: string; readonly date?: string };
  /** For a formatting change: the properties changed, by their element names (`b`, `u`, `jc`…). */
  readonly properties?: readonly string[];
}

/** One comment of the document, with the range of text it is on. */
export interface RevisionComment {
  /** The comment's id in the document (`w:id`). */
  readonly id: string;
  readonly author: string;
  readonly initials?: string;
  readonly date?: string;
  /** Its paragraphs, one a line; cut at {@link MAX_CHANGE_TEXT} characters. */
  readonly text: string;
  /** The part its range is in; absent when no part marks one. */
  readonly part?: string;
  /** Its range in the normalised text (a point when it covers no text of it), as a change's. */
  readonly start?: number;
  readonly end?: number;
  readonly clauseIds?: readonly string[];
  /** The comment it answers (`w15:paraIdParent` in `commentsExtended.xml`), by id. */
  readonly parentId?: string;
  /** Marked done (resolved) in Word. */
  readonly done?: boolean;
}

/** Everything a document records of the changes made to it. */
export interface DocumentRevisions {
  /** In text order: the body's first, then those of other parts. */
  readonly changes: readonly RevisionChange[];
  readonly comments: readonly RevisionComment[];
  /**
   * Edits of the normalised text that give what the contract read before its tracked changes,
   * each one rejected: insertions and moved-to text out, deletions and moved-away text back
   * (`applyEdits(text, restore)`). Absent when that text would be longer than the document
   * limits let a text be, or when there is nothing to restore.
   */
  readonly restore?: readonly RedlineEdit[];
  /** How many changes and comments were past the bounds and not listed. */
  readonly omitted?: { readonly changes: number; readonly comments: number };
  /** Parts holding changes or comments that could not be read (not well-formed XML). */
  readonly unread?: readonly string[];
}

/** Changes listed at most; past it they are counted in `omitted`. */
export const MAX_CHANGES = 5_000;
/** Comments listed at most. */
export const MAX_COMMENTS = 2_000;
/** Characters of a change's or comment's text kept. */
export const MAX_CHANGE_TEXT = 10_000;
/** Edits of `restore` at most: past it, each new one is joined to the one before. */
export const MAX_RESTORE_EDITS = 20_000;

/** A text cut at {@link MAX_CHANGE_TEXT}, with its whole length when it was cut. */
export function boundedText(text: string): { text: string; textChars?: number } {
  return text.length > MAX_CHANGE_TEXT
    ? { text: `${text.slice(0, MAX_CHANGE_TEXT - 1)}…`, textChars: text.length }
    : { text };
}
