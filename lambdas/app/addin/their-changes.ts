/// <reference types="office-js" />
/**
 * The other side's tracked changes in the open document, accepted or rejected one change at a
 * time from the pane (WordApi 1.6: `Body.getTrackedChanges`, `TrackedChange.accept` and
 * `reject`). A change of theirs is the tracked insertion and the deletion it replaces, each found
 * among Word's tracked changes by its author and its text (folded as clause text is); a piece
 * Word does not hold exactly once is reported, and nothing of the change is touched. Where the
 * requirement set is missing, the pane lists the changes with their verdicts only, and says why.
 * https://learn.microsoft.com/javascript/api/word/word.trackedchange
 */
import type { NegotiationChange } from '../../core/report-types.js';
import { sameText } from './clause-text.js';
import type { CommentSupport, Requirements, WordRun } from './word-document.js';

/** The requirement set of tracked changes an add-in may read and decide. */
export const TRACKED_CHANGES_SET = { name: 'WordApi', version: '1.6' } as const;

/** What a person does with a change of theirs. */
export type ChangeDecision = 'accept' | 'reject';

/** What became of a decision: made on every tracked piece of the change, or on none, and why. */
export type DecisionOutcome =
  | { readonly id: string; readonly done: true; readonly pieces: number }
  | { readonly id: string; readonly done: false; readonly why: string };

/** A change of theirs as a decision needs it. */
export type DecidedChange = Pick<
  NegotiationChange,
  'id' | 'author' | 'inserted' | 'deleted' | 'source' | 'kind'
>;

/** Word's tracked changes the decision of one change of theirs makes. */
export class TheirChangesInWord {
  constructor(
    private readonly run: WordRun,
    private readonly requirements: Requirements,
  ) {}

  /** Whether this Word lets an add-in accept or reject a tracked change, and if not why. */
  support(): CommentSupport {
    if (this.requirements.isSetSupported(TRACKED_CHANGES_SET.name, TRACKED_CHANGES_SET.version))
      return { ok: true };
    return {
      ok: false,
      why: `This Word does not let add-ins accept or reject tracked changes (the ${TRACKED_CHANGES_SET.name} ${TRACKED_CHANGES_SET.version} requirement set): accept or reject each in Word's Review tab.`,
    };
  }

  /** Accepts or rejects every tracked piece of one change of theirs, or none. */
  async decide(change: DecidedChange, decision: ChangeDecision): Promise<DecisionOutcome> {
    const refused = (why: string): DecisionOutcome => ({ id: change.id, done: false, why });
    const support = this.support();
    if (!support.ok) return refused(support.why);
    if (change.source !== 'tracked')
      return refused(
        'their change was found by comparing their copy with ours: it is not tracked in this document',
      );
    const pieces = [
      ...(change.inserted !== undefined ? [{ type: 'Added', text: change.inserted }] : []),
      ...(change.deleted !== undefined ? [{ type: 'Deleted', text: change.deleted }] : []),
    ];
    if (pieces.length === 0)
      return refused(`a ${change.kind} change has no text to find among Word's tracked changes`);
    return this.run(async (context) => {
      const tracked = context.document.body.getTrackedChanges();
      tracked.load('items');
      await context.sync();
      const found: Word.TrackedChange[] = [];
      for (const piece of pieces) {
        const matches = tracked.items.filter(
          (t) => t.author === change.author && t.type === piece.type && sameText(t.text, piece.text),
        );
        const what = `${piece.type === 'Added' ? 'an insertion' : 'a deletion'} of “${piece.text}” by ${change.author}`;
        if (matches.length !== 1)
          return refused(
            matches.length === 0
              ? `Word holds no tracked ${what}: was it decided already?`
              : `Word holds ${matches.length} tracked changes that are ${what}`,
          );
        found.push(matches[0] as Word.TrackedChange);
      }
      for (const t of found) decision === 'accept' ? t.accept() : t.reject();
      await context.sync();
      return { id: change.id, done: true, pieces: found.length };
    });
  }
}
