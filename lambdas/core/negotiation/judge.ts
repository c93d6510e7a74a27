/**
 * The other side's turn, judged and answered: their changes grouped as a reader sees them (an
 * insertion with the deletion it replaces is one change), each clause they changed weighed before
 * and after (`judge-clause.ts`), each change given the verdict of its clauses and our answer, and
 * each of their comments a reply drawn from the verdict of the change in its clause or, with none,
 * from the clause's findings.
 */
import type { RevisionChange, RevisionComment } from '../documents/index.js';
import type { Position } from '../playbooks/schema.js';
import type {
  ChangeVerdict,
  Negotiation,
  NegotiationChange,
  NegotiationComment,
} from '../records/negotiation.js';
import type { ReportClause } from '../report-types.js';
import { changesWords } from './before-clauses.js';
import { type ClauseVerdict, judgeClause } from './judge-clause.js';

/** What the other side's turn is judged from. */
export interface NegotiationInput {
  readonly changes: readonly RevisionChange[];
  readonly comments: readonly RevisionComment[];
  /** The report's clauses (as they read now), with their findings and positions. */
  readonly clauses: readonly ReportClause[];
  /** The clauses as they read before, judged as clauses of their own, by the contract's clause id. */
  readonly before: ReadonlyMap<string, ReportClause>;
  /** The playbook's positions judged for the contract, by topic; empty without a playbook. */
  readonly positions: ReadonlyMap<string, Position>;
  readonly against?: { readonly jobId?: string; readonly sha256?: string };
  readonly omitted?: number;
  /** Whether an author is us (an earlier report's changes and comments are not theirs). */
  readonly ours: (author: string) => boolean;
}

const SEVERITY: readonly ChangeVerdict[] = ['accept', 'not-judged', 'counter', 'reject'];

/** Their changes, in groups: an insertion with the deletion it replaces, every other change alone. */
function groupsOf(changes: readonly RevisionChange[], ours: (author: string) => boolean): RevisionChange[][] {
  const theirs = changes.filter((c) => !ours(c.author));
  const replaced = new Set(theirs.flatMap((c) => (c.replaces ? [c.replaces] : [])));
  const groups: RevisionChange[][] = [];
  for (const c of theirs) {
    if (replaced.has(c.id)) continue;
    const deleted = c.replaces ? theirs.find((d) => d.id === c.replaces) : undefined;
    groups.push(deleted ? [deleted, c] : [c]);
  }
  return groups;
}

/** Text in quotation marks, cut at `max`, ending a sentence (no second full stop after one inside). */
const quoted = (s: string, max = 160) => {
  const q = `“${s.length > max ? `${s.slice(0, max - 1)}…` : s}”`;
  return /[.!?…]”$/.test(q) ? q : `${q}.`;
};

/** Our answer to a change, as the reply comment says it. */
function answerOf(
  v: Pick<
    NegotiationChange,
    'verdict' | 'reason' | 'restore' | 'counter' | 'counterOn' | 'deleted' | 'inserted'
  >,
): string {
  switch (v.verdict) {
    case 'accept':
      return `Accept. ${v.reason}`;
    case 'reject': {
      // Their change undone: the words of ours they deleted stand, the words they inserted go.
      const ask = v.deleted
        ? `We ask that our words stand: ${quoted(v.deleted)}`
        : v.inserted
          ? `We ask that their insertion be struck: ${quoted(v.inserted)}`
          : 'We ask that our text stand.';
      return `Reject. ${v.reason} ${ask}`;
    }
    case 'counter':
      return v.counter
        ? `Counter. ${v.reason} We propose, as our tracked change: ${quoted(counterWindow(v.counter), 300)}`
        : `Counter. ${v.reason} Our proposal is on change ${v.counterOn}.`;
    default:
      return `Not judged. ${v.reason}`;
  }
}

/** The counter-proposal's text around its edits, as far as the sentence they are in (an ellipsis where cut). */
function counterWindow(counter: NonNullable<NegotiationChange['counter']>): string {
  const sorted = [...counter.edits].sort((a, b) => a.start - b.start);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (!first || !last) return counter.text;
  const shift = sorted.slice(0, -1).reduce((n, e) => n + e.insert.length - (e.end - e.start), 0);
  const [from, to] = [first.start, last.start + shift + last.insert.length];
  const dot = counter.text.lastIndexOf('. ', from);
  let start = Math.max(dot >= 0 ? dot + 2 : 0, from - 120, 0);
  // A window cut by length starts at a word.
  if (start > 0 && start !== dot + 2 && /\S/.test(counter.text[start - 1] ?? ''))
    start = counter.text.indexOf(' ', start) + 1 || start;
  const endStop = counter.text.indexOf('.', to);
  const end = Math.min(counter.text.length, endStop < 0 ? counter.text.length : endStop + 1, to + 120);
  return `${start > 0 ? '…' : ''}${counter.text.slice(start, end).trim()}${end < counter.text.length ? '…' : ''}`;
}

/** The span of a clause's text the changes in it cover, in the clause's offsets. */
function focusIn(clause: ReportClause | undefined, changes: readonly RevisionChange[]) {
  if (!clause) return { start: 0, end: 0 };
  const mine = changes.filter((c) => c.start !== undefined && c.clauseIds?.includes(clause.id));
  const at = (p: number) => Math.min(Math.max(p - clause.start, 0), clause.text.length);
  const start = Math.min(...mine.map((c) => at(c.start as number)));
  const end = Math.max(...mine.map((c) => at(c.end ?? (c.start as number))));
  return Number.isFinite(start)
    ? { start, end: Math.max(start, end) }
    : { start: 0, end: clause.text.length };
}

/** One group's change, before its verdict. */
function describe(group: readonly RevisionChange[], id: string) {
  const first = group[0] as RevisionChange;
  const inserted = group.find((c) => c.kind === 'insertion' || c.kind === 'move');
  const deleted = group.find((c) => c.kind === 'deletion');
  const kind: NegotiationChange['kind'] = inserted && deleted ? 'replacement' : first.kind;
  const spanned = inserted ?? first;
  return {
    id,
    revisions: group.map((c) => c.id),
    source: first.source,
    kind,
    author: (inserted ?? first).author,
    ...(first.date ? { date: first.date } : {}),
    ...(inserted ? { inserted: inserted.text } : {}),
    ...(deleted ? { deleted: deleted.text } : {}),
    ...(first.part && first.start === undefined ? { part: first.part } : {}),
    ...(spanned.start !== undefined ? { start: spanned.start, end: spanned.end ?? spanned.start } : {}),
    clauseIds: [...new Set(group.flatMap((c) => c.clauseIds ?? []))],
  };
}

/**
 * Judges and answers the other side's turn; undefined when it made no change and no comment.
 * @example judgeNegotiation({ changes: doc.revisions.changes, comments, clauses: report.clauses, before, positions })
 */
export function judgeNegotiation(input: NegotiationInput): Negotiation | undefined {
  const groups = groupsOf(input.changes, input.ours);
  const theirComments = input.comments.filter((c) => !input.ours(c.author));
  if (groups.length === 0 && theirComments.length === 0) return undefined;
  const byId = new Map(input.clauses.map((c) => [c.id, c]));
  const verdicts = new Map<string, ClauseVerdict>();
  const verdictOf = (clauseId: string) => {
    let v = verdicts.get(clauseId);
    if (!v) {
      const after = byId.get(clauseId);
      const before = input.before.get(clauseId);
      const existed = before !== undefined || !wholeInsertion(input.changes, clauseId, after);
      v = judgeClause({ after, before, existed, focus: focusIn(after, input.changes) }, input.positions);
      verdicts.set(clauseId, v);
    }
    return v;
  };
  const judged = groups.map((group, i) => {
    const described = describe(group, `n${i + 1}`);
    const clauseVerdicts = group.some(changesWords) ? described.clauseIds.map(verdictOf) : [];
    const worst = clauseVerdicts.reduce<ClauseVerdict | undefined>(
      (w, x) => (!w || SEVERITY.indexOf(x.verdict) > SEVERITY.indexOf(w.verdict) ? x : w),
      undefined,
    );
    return { described, v: worst ?? unjudged(group, described.part) };
  });
  const owners = counterOwners(judged, byId);
  const changes = judged.map(({ described, v }) => {
    const { counter, ...rest } = v;
    const owner = counter ? owners.get(counter.clauseId) : undefined;
    const change = {
      ...described,
      ...rest,
      ...(counter && owner === described.id
        ? { counter: { id: `${described.id}/counter`, ...counter } }
        : {}),
      ...(counter && owner !== described.id ? { counterOn: owner as string } : {}),
    };
    return { ...change, answer: answerOf(change) } as NegotiationChange;
  });
  const comments = theirComments.filter((c) => !c.parentId).map((c) => replyTo(c, changes, byId));
  const count = (v: ChangeVerdict) => changes.filter((c) => c.verdict === v).length;
  const sources = new Set(changes.map((c) => c.source));
  return {
    source: sources.size > 1 ? 'both' : sources.has('compared') ? 'compared' : 'tracked',
    ...(input.against ? { against: input.against } : {}),
    authors: [...new Set([...changes.map((c) => c.author), ...comments.map((c) => c.author)])],
    summary: {
      changes: changes.length,
      accept: count('accept'),
      reject: count('reject'),
      counter: count('counter'),
      notJudged: count('not-judged'),
      comments: comments.length,
    },
    changes,
    comments,
    clausesBefore: input.before.size,
    ...(input.omitted ? { omitted: input.omitted } : {}),
  };
}

/** The verdict of a change outside the clauses' words: formatting only, or another part. */
function unjudged(group: readonly RevisionChange[], part: string | undefined): ClauseVerdict {
  const formatting = group.every((c) => c.kind === 'formatting');
  return formatting
    ? { verdict: 'accept', reason: 'Formatting only: the words are unchanged.' }
    : {
        verdict: 'not-judged',
        reason: `It is in ${part ?? 'a part of the document'}, outside the clauses reviewed.`,
      };
}

/**
 * Which change carries each clause's counter-proposal: the one whose text its edits touch (the
 * renewal notice, not the renewal term, when the counter restates the notice), else the clause's first.
 */
function counterOwners(
  judged: readonly { described: { id: string; start?: number; end?: number }; v: ClauseVerdict }[],
  clauses: ReadonlyMap<string, ReportClause>,
): Map<string, string> {
  const owners = new Map<string, { id: string; touches: boolean }>();
  for (const { described, v } of judged) {
    const counter = v.counter;
    if (!counter || described.start === undefined) continue;
    const at = clauses.get(counter.clauseId)?.start ?? 0;
    const [start, end] = [described.start, described.end ?? described.start];
    const touches = counter.edits.some((e) => at + e.start <= end && at + e.end >= start);
    const current = owners.get(counter.clauseId);
    if (!current || (touches && !current.touches))
      owners.set(counter.clauseId, { id: described.id, touches });
  }
  return new Map([...owners].map(([clauseId, o]) => [clauseId, o.id]));
}

/** Whether the clause is all their insertion: nothing of it stood before. */
function wholeInsertion(
  changes: readonly RevisionChange[],
  clauseId: string,
  clause: ReportClause | undefined,
): boolean {
  if (!clause) return false;
  const inserted = changes
    .filter((c) => (c.kind === 'insertion' || c.kind === 'move') && c.clauseIds?.includes(clauseId))
    .reduce((n, c) => n + Math.min(c.end ?? 0, clause.end) - Math.max(c.start ?? 0, clause.start), 0);
  return inserted >= clause.text.trim().length;
}

/** A comment of theirs with the reply we propose. */
function replyTo(
  c: RevisionComment,
  changes: readonly NegotiationChange[],
  clauses: ReadonlyMap<string, ReportClause>,
): NegotiationComment {
  const clauseIds = c.clauseIds ?? [];
  const near = changes.filter((x) => x.clauseIds.some((id) => clauseIds.includes(id)));
  let reply: string;
  const first = near[0];
  if (first) reply = `On their change (${first.id}): ${first.answer}`;
  else {
    const clause = clauseIds.map((id) => clauses.get(id)).find((x) => x !== undefined);
    const worst = [...(clause?.findings ?? [])].sort((x, y) => (y.score ?? 0) - (x.score ?? 0))[0];
    reply =
      clause && worst && (worst.score ?? 0) >= 2
        ? `Noted. The clause is at ${clause.risk} risk for us: ${worst.rationale}`
        : clause
          ? 'Noted. We find no concern with this clause as it stands.'
          : 'Noted. The comment is outside the clauses reviewed.';
  }
  return {
    id: c.id,
    author: c.author,
    ...(c.date ? { date: c.date } : {}),
    text: c.text,
    clauseIds,
    changes: near.map((x) => x.id),
    reply,
  };
}
