/**
 * Who report.docx says wrote its comments and tracked changes. Word shows a comment's and a
 * change's `w:author` in full (the comment's heading, the Review pane, the tooltip of a change,
 * the reviewers Word lets one show or hide), and `w:initials` only in the short mark of a
 * comment; so the job id goes in the author: `clause-review (j-…)`, one reviewer per job.
 *
 * An uploaded document may already hold comments or changes under that name: typed by someone,
 * or left by an earlier job's report.docx uploaded again. They are relabelled, never removed:
 * `clause-review (j-…) (in the original)`. Removing them would take the uploader's own text out
 * of their document and leave its range markers dangling; relabelled, they keep what they say
 * and where, and no longer read as this job's.
 */
import { W_NS } from './ooxml.js';

/** The name this tool writes under. */
export const COMMENT_AUTHOR = 'clause-review';
/** What a comment or change already under that name in the upload is marked with. */
export const IN_THE_ORIGINAL = ' (in the original)';

/** The author of a job's comments and tracked changes. */
export const authorOf = (jobId: string): string => `${COMMENT_AUTHOR} (${jobId})`;

/**
 * The author of a redline's tracked changes: nobody's name while nobody has decided it (Word's
 * Accept All must not read as a person's choice), the decider's once someone has.
 */
export const changeAuthorOf = (jobId: string, decidedBy: string | undefined): string =>
  decidedBy ?? `${COMMENT_AUTHOR} (${jobId}): proposed, undecided`;

/**
 * Whether an author name reads as this tool's: `clause-review` however spaced, hyphenated or
 * cased (`Clause Review`, `clause‑review (j-…)`), so a look-alike is relabelled too.
 */
export function claimsOurName(author: string): boolean {
  if (author.endsWith(IN_THE_ORIGINAL)) return false;
  const folded = author
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\u2010-\u2015_-]+/g, '');
  return folded.startsWith('clausereview');
}

/**
 * Relabels every element of a part whose `w:author` claims this tool's name (comments, and
 * tracked changes of any kind). Returns how many were relabelled.
 */
export function relabelOurName(doc: Document): number {
  let count = 0;
  const all = doc.getElementsByTagNameNS(W_NS, '*');
  for (let i = 0; i < all.length; i++) {
    const el = all.item(i) as Element;
    const author = el.getAttributeNS(W_NS, 'author');
    if (author && claimsOurName(author)) {
      el.setAttributeNS(
        W_NS,
        el.getAttributeNodeNS(W_NS, 'author')?.name ?? 'w:author',
        `${author}${IN_THE_ORIGINAL}`,
      );
      count++;
    }
  }
  return count;
}

/** A quick look at a part's XML: whether it has any author attribute to check. */
export const hasAuthors = (xml: string): boolean => /:author\s*=/.test(xml);
