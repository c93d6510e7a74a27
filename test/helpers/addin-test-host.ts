/**
 * The host a browser test gives the Word add-in's task pane in place of Office (the pane's one
 * seam, lambdas/app/addin/host.ts), bundled into the page by the test: the open
 * document is a .docx the test built and its paragraphs as Word would hold them; the sign-in
 * dialog answers with the message the real sign-in page sent; and comments are placed by the
 * add-in's own clause lookup (clause-text.ts) over those paragraphs, so a clause Word does not
 * hold is reported as the pane reports it in Word.
 */
import { DocumentText } from '../../lambdas/app/addin/clause-text.js';
import { commentedClause } from '../../lambdas/app/addin/finding-comments.js';
import type { AddinHost } from '../../lambdas/app/addin/host.js';
import type { CommentOutcome } from '../../lambdas/app/addin/word-document.js';

/** What the page's host is made from. */
export interface TestHostInput {
  readonly name: string;
  /** The .docx, base64. */
  readonly docx: string;
  readonly paragraphs: readonly string[];
  /** What the sign-in dialog sends back. */
  readonly message: string;
}

/** A comment the host's document received. */
export interface TestComment {
  readonly clauseId: string;
  readonly content: string;
  readonly anchored: string;
}

/** The host, and the comments its document holds. */
export function createTestHost(input: TestHostInput): AddinHost & { comments: TestComment[] } {
  const comments: TestComment[] = [];
  const doc = new DocumentText(input.paragraphs);
  const bytes = Uint8Array.from(atob(input.docx), (c) => c.charCodeAt(0));
  return {
    comments,
    documentName: () => input.name,
    readDocument: async () => bytes,
    openDialog: async () => input.message,
    word: {
      support: () => ({ ok: true }),
      commented: async (jobId) =>
        new Set(comments.filter((c) => commentedClause(c.content)?.jobId === jobId).map((c) => c.clauseId)),
      commentedJobs: async () => [...new Set(comments.map((c) => commentedClause(c.content)?.jobId ?? ''))],
      comment: async (jobId, clauses) =>
        clauses.map((clause): CommentOutcome => {
          const id = clause.clauseId;
          if (comments.some((c) => c.clauseId === id && commentedClause(c.content)?.jobId === jobId))
            return { clauseId: id, outcome: 'present' };
          const found = doc.locate(clause.text);
          if (found.kind === 'missing')
            return {
              clauseId: id,
              outcome: 'missing',
              detail: 'the document no longer holds this text: was it edited?',
            };
          if (found.kind !== 'placed') return { clauseId: id, outcome: 'repeated', detail: found.kind };
          const { from, to } = found.span;
          const anchored = input.paragraphs
            .slice(from.paragraph, to.paragraph + 1)
            .map((p, i, all) =>
              p.slice(i === 0 ? from.offset : 0, i === all.length - 1 ? to.offset : undefined),
            )
            .join('\r');
          comments.push({ clauseId: id, content: clause.comment, anchored });
          return { clauseId: id, outcome: 'added' };
        }),
      applyRedline: async (_text, redline) => ({
        id: redline.id,
        applied: false,
        why: 'the test host edits nothing',
      }),
      applyRedlines: async (redlines) =>
        redlines.map(({ redline }) => ({
          id: redline.id,
          applied: false,
          why: 'the test host edits nothing',
        })),
    },
    // The document's tracked changes are Word's: the test host decides none of them.
    changes: {
      support: () => ({ ok: false, why: 'the test host decides no tracked change' }),
      decide: async (change) => ({
        id: change.id,
        done: false,
        why: 'the test host decides no tracked change',
      }),
    },
  };
}
