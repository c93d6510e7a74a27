/// <reference types="office-js" />
/**
 * What the add-in does to the open Word document, through the Word JavaScript API: comments on
 * clauses (WordApi 1.4: `Range.insertComment`, `Body.getComments`), redlines written as tracked
 * changes (`Document.changeTrackingMode`, WordApi 1.4), and the ranges both need, built from
 * paragraph searches (WordApi 1.1; a search is at most 255 characters) joined with
 * `Range.expandTo` (WordApi 1.3). A range is used only once the text Word gives for it is the
 * clause's (or the edit's) own: a clause Word does not hold once, or whose range reads
 * otherwise, is reported, never commented on or edited somewhere near.
 * https://learn.microsoft.com/javascript/api/requirement-sets/word/word-api-requirement-sets
 */
import type { RedlineEdit } from '../../text/redline-edits.js';
import { type Location, sameText } from './clause-text.js';
import { commentedClause } from './finding-comments.js';
import { rangesOf, readParagraphs, type SpanPlan, spanPlan } from './word-ranges.js';

/** `Word.run`: runs a batch against the document with a request context. */
export type WordRun = <T>(batch: (context: Word.RequestContext) => Promise<T>) => Promise<T>;

/** `Office.context.requirements`. */
export interface Requirements {
  isSetSupported(name: string, minVersion?: string): boolean;
}

/** The requirement set the add-in's comments and redlines need. */
export const COMMENTS_SET = { name: 'WordApi', version: '1.4' } as const;

/** Whether the add-in can put comments into this document, and if not why. */
export type CommentSupport = { readonly ok: true } | { readonly ok: false; readonly why: string };

/** A clause to comment on: its id, its text as the report has it, and the comment's text. */
export interface ClauseComment {
  readonly clauseId: string;
  readonly text: string;
  readonly comment: string;
}

/** What became of one clause's comment. */
export interface CommentOutcome {
  readonly clauseId: string;
  /**
   * `added`; `present`: the add-in's comment for this job and clause was already there;
   * `missing`: Word does not hold the clause's text (it was edited); `repeated`: Word holds it
   * more than once; `unplaced`: Word's range for it did not read as the clause; `refused`: Word
   * refused comments (see {@link WordDocument.support}).
   */
  readonly outcome: 'added' | 'present' | 'missing' | 'repeated' | 'unplaced' | 'refused';
  readonly detail?: string;
}

/** A redline to apply: edits of its clause's text, at offsets in that text. */
export interface RedlineToApply {
  readonly id: string;
  readonly edits: readonly RedlineEdit[];
}

/** What became of a redline: applied as tracked changes, or not at all, and why. */
export type RedlineOutcome =
  | { readonly id: string; readonly applied: true; readonly edits: number }
  | { readonly id: string; readonly applied: false; readonly why: string };

/** An error of the Word API as Office.js reports it (`OfficeExtension.Error`). */
interface OfficeError {
  readonly code?: string;
  readonly message?: string;
}

/**
 * Codes with which Word refuses a comment in a document that supports them: `NotAllowed` in
 * Word on the web in some tenants (https://github.com/OfficeDev/office-js/issues/6746) and
 * `AccessDenied` on some desktop builds (https://github.com/OfficeDev/office-js/issues/6907).
 */
const REFUSALS = new Set(['NotAllowed', 'AccessDenied']);

/** True for Word's refusal of a comment. */
export function isCommentRefusal(error: unknown): boolean {
  return REFUSALS.has(String((error as OfficeError | undefined)?.code));
}

/** What the locate outcomes mean for a person. */
function notPlaced(location: Exclude<Location, { kind: 'placed' }>): Omit<CommentOutcome, 'clauseId'> {
  switch (location.kind) {
    case 'missing':
      return { outcome: 'missing', detail: 'the document no longer holds this text: was it edited?' };
    case 'repeated':
      return { outcome: 'repeated', detail: `the document holds this text ${location.count} times` };
    case 'empty':
      return { outcome: 'missing', detail: 'the clause has no text to look for' };
  }
}

/**
 * The open document as the add-in works on it. Comments need WordApi 1.4; where it is missing,
 * or Word refuses a comment, {@link support} says why and the pane lists findings only.
 */
export class WordDocument {
  private refusal: string | undefined;

  constructor(
    private readonly run: WordRun,
    private readonly requirements: Requirements,
  ) {}

  /** Whether comments (and redlines) can be written here. */
  support(): CommentSupport {
    if (!this.requirements.isSetSupported(COMMENTS_SET.name, COMMENTS_SET.version)) {
      return {
        ok: false,
        why: `This Word does not offer add-ins comments or change tracking (the ${COMMENTS_SET.name} ${COMMENTS_SET.version} requirement set): findings are listed here only.`,
      };
    }
    return this.refusal ? { ok: false, why: this.refusal } : { ok: true };
  }

  /** The ids of the clauses that already have this job's comment. */
  async commented(jobId: string): Promise<Set<string>> {
    if (!this.support().ok) return new Set();
    return this.run(async (context) => this.commentedIn(context, jobId));
  }

  /** The jobs whose comments the document holds, in the order their first comments come. */
  async commentedJobs(): Promise<string[]> {
    if (!this.support().ok) return [];
    return this.run(async (context) => [...new Set((await this.addinComments(context)).map((c) => c.jobId))]);
  }

  /** The job and clause of each comment the add-in wrote. */
  private async addinComments(context: Word.RequestContext) {
    const comments = context.document.body.getComments();
    comments.load('items');
    await context.sync();
    return comments.items.flatMap((c) => {
      const mine = commentedClause(c.content);
      return mine ? [mine] : [];
    });
  }

  private async commentedIn(context: Word.RequestContext, jobId: string): Promise<Set<string>> {
    const mine = await this.addinComments(context);
    return new Set(mine.filter((c) => c.jobId === jobId).map((c) => c.clauseId));
  }

  /**
   * Comments on each clause anchored on its text, skipping clauses that already have this
   * job's comment; every clause gets an outcome.
   */
  async comment(jobId: string, clauses: readonly ClauseComment[]): Promise<CommentOutcome[]> {
    const support = this.support();
    if (!support.ok)
      return clauses.map((c) => ({ clauseId: c.clauseId, outcome: 'refused', detail: support.why }));
    return this.run(async (context) => {
      const present = await this.commentedIn(context, jobId);
      const { paragraphs, doc } = await readParagraphs(context);
      const outcomes = new Map<string, CommentOutcome>();
      const wanted: { clause: ClauseComment; plan: SpanPlan }[] = [];
      for (const clause of clauses) {
        if (present.has(clause.clauseId)) {
          outcomes.set(clause.clauseId, { clauseId: clause.clauseId, outcome: 'present' });
          continue;
        }
        const location = doc.locate(clause.text);
        if (location.kind !== 'placed') {
          outcomes.set(clause.clauseId, { clauseId: clause.clauseId, ...notPlaced(location) });
          continue;
        }
        const plan = spanPlan(doc, location.span.from, location.span.to);
        if (!plan) {
          outcomes.set(clause.clauseId, {
            clauseId: clause.clauseId,
            outcome: 'unplaced',
            detail: 'no search of 255 characters or fewer finds the clause’s edges once',
          });
        } else wanted.push({ clause, plan });
      }
      const ranges = await rangesOf(
        context,
        paragraphs,
        wanted.map((w) => w.plan),
      );
      const placing: ClauseComment[] = [];
      for (const [i, { clause }] of wanted.entries()) {
        const range = ranges[i];
        if (range && sameText(range.text, clause.text)) {
          range.insertComment(clause.comment);
          placing.push(clause);
        } else {
          outcomes.set(clause.clauseId, {
            clauseId: clause.clauseId,
            outcome: 'unplaced',
            detail: 'Word’s range for the clause does not read as the clause',
          });
        }
      }
      try {
        await context.sync();
        for (const c of placing) outcomes.set(c.clauseId, { clauseId: c.clauseId, outcome: 'added' });
      } catch (error) {
        if (!isCommentRefusal(error)) throw error;
        const code = (error as OfficeError).code;
        this.refusal = `Word refused to add comments (${code}), which some versions of Word do (Word on the web in some organisations): findings are listed here only.`;
        for (const c of placing)
          outcomes.set(c.clauseId, { clauseId: c.clauseId, outcome: 'refused', detail: this.refusal });
      }
      return clauses.map((c) => outcomes.get(c.clauseId) ?? { clauseId: c.clauseId, outcome: 'unplaced' });
    });
  }

  /**
   * Applies a redline of a clause as tracked changes: change tracking is set to track everyone's
   * changes before the edits and set back to what it was after, whatever happens. All of the
   * redline's edits are made or none: an edit whose text Word does not hold where the clause's
   * text puts it stops the redline before anything changes.
   */
  async applyRedline(clauseText: string, redline: RedlineToApply): Promise<RedlineOutcome> {
    const refused = (why: string): RedlineOutcome => ({ id: redline.id, applied: false, why });
    if (!this.requirements.isSetSupported(COMMENTS_SET.name, COMMENTS_SET.version)) {
      return refused(
        `this Word does not offer add-ins change tracking (the ${COMMENTS_SET.name} ${COMMENTS_SET.version} requirement set)`,
      );
    }
    const edits = [...redline.edits].sort((a, b) => a.start - b.start);
    for (const [i, e] of edits.entries()) {
      const bad =
        !Number.isInteger(e.start) ||
        !Number.isInteger(e.end) ||
        e.start < 0 ||
        e.end < e.start ||
        e.end > clauseText.length;
      if (bad) return refused(`edit ${i + 1}'s offsets ${e.start}–${e.end} are not within the clause's text`);
      const next = edits[i + 1];
      if (next && next.start < e.end) return refused(`edits ${i + 1} and ${i + 2} overlap`);
    }
    return this.run(async (context) => {
      const document = context.document;
      document.load('changeTrackingMode');
      const { paragraphs, doc } = await readParagraphs(context);
      const location = doc.locate(clauseText);
      if (location.kind !== 'placed') return refused(notPlaced(location).detail ?? location.kind);
      const plans: SpanPlan[] = [];
      for (const e of edits) {
        const span = e.end > e.start ? location.spanOf(e.start, e.end) : undefined;
        const point = location.spanOf(e.start, clauseText.length)?.from ?? location.span.to;
        const plan = span ? spanPlan(doc, span.from, span.to) : spanPlan(doc, point, point);
        if (!plan) return refused(`no search finds where the edit at ${e.start}–${e.end} goes`);
        plans.push(plan);
      }
      const ranges = await rangesOf(context, paragraphs, plans);
      for (const [i, e] of edits.entries()) {
        const range = ranges[i];
        const deleted = clauseText.slice(e.start, e.end);
        if (!range || (e.end > e.start && !sameText(range.text, deleted)))
          return refused(
            `the document does not hold “${deleted}” where the edit at ${e.start}–${e.end} goes`,
          );
      }
      const before = document.changeTrackingMode;
      document.changeTrackingMode = 'TrackAll';
      try {
        // Last first: each edit leaves the text before it as it was.
        for (let i = edits.length - 1; i >= 0; i--) {
          const e = edits[i] as RedlineEdit;
          const range = ranges[i] as Word.Range;
          if (e.end === e.start) range.insertText(e.insert, 'Start');
          else if (e.insert === '') range.delete();
          else range.insertText(e.insert, 'Replace');
        }
        await context.sync();
      } finally {
        document.changeTrackingMode = before;
        await context.sync();
      }
      return { id: redline.id, applied: true, edits: edits.length };
    });
  }

  /**
   * Applies every redline given, one after another, each whole or not at all as
   * {@link applyRedline} does: one that cannot be placed leaves the others to be applied.
   */
  async applyRedlines(
    redlines: readonly { readonly clauseText: string; readonly redline: RedlineToApply }[],
  ): Promise<RedlineOutcome[]> {
    const outcomes: RedlineOutcome[] = [];
    for (const { clauseText, redline } of redlines)
      outcomes.push(await this.applyRedline(clauseText, redline));
    return outcomes;
  }
}
