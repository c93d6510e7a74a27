/**
 * Position findings, proposed redlines and missing required clauses on a report's clauses, in
 * the shapes report.json carries them (core/playbooks/review-types.ts), for tests of what the
 * review gate, the app and report.html make of a review against a playbook.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CategoryId } from '../../lambdas/core/analysts/categories.js';
import type { Clause } from '../../lambdas/core/clause.js';
import { shapeOf } from '../../lambdas/core/finalize/redline-vetting.js';
import { applyReview } from '../../lambdas/core/holds/apply.js';
import {
  approverGroupsOf,
  type EscalatedFinding,
  type HeldRedline,
  playbookHolds,
} from '../../lambdas/core/holds/playbook-holds.js';
import {
  type HeldFindings,
  heldCount,
  readHeldFindings,
  storeHeldFindings,
} from '../../lambdas/core/holds/review.js';
import { readStoredDocument } from '../../lambdas/core/intake/stored-document.js';
import {
  type Escalation,
  type PositionFinding,
  type ProposedRedline,
  positionFindingId,
  type RedlineSource,
  type RequiredClause,
  type RequiredClauseFinding,
  type Rung,
  redlineId,
  requiredClauseFindingId,
} from '../../lambdas/core/playbooks/index.js';
import type { PlaybookReview, Report, ReportClause } from '../../lambdas/core/report-types.js';
import { JOB_SK, jobPk } from '../../lambdas/core/state/keys.js';
import { applyEdits, type RedlineEdit } from '../../lambdas/text/redline-edits.js';

/** What a test says of one position a clause addresses. */
export interface PositionSpec {
  readonly topic: string;
  readonly category: CategoryId;
  readonly rung: Rung;
  readonly question?: string;
  /** The approver the rung calls for. */
  readonly escalation?: Escalation;
  /** The edits of the clause's text that bring it up, and the rung they reach. */
  readonly redline?: {
    readonly edits: readonly RedlineEdit[];
    readonly target: Rung;
    readonly language?: string;
    readonly source?: RedlineSource;
  };
  /** The quoted passage: the clause's first 40 characters unless given. */
  readonly quote?: string;
}

/** A clause's position finding as report.json carries it. */
export function positionOn(
  clause: Pick<ReportClause, 'id' | 'text' | 'start'>,
  spec: PositionSpec,
): PositionFinding {
  const quote = spec.quote ?? clause.text.slice(0, 40);
  const at = clause.text.indexOf(quote);
  const id = redlineId(clause.id, spec.topic);
  return {
    id: positionFindingId(clause.id, spec.topic),
    topic: spec.topic,
    category: spec.category,
    importance: 'high',
    question: spec.question ?? `Does the clause meet our ${spec.topic} position?`,
    ...spec.rung,
    quotes: [{ quote, start: clause.start + at, end: clause.start + at + quote.length }],
    reason: `The clause reaches ${spec.rung.rung}${spec.rung.fallback ? ` ${spec.rung.fallback}` : ''} on ${spec.topic}.`,
    ...(spec.redline
      ? {
          redline: {
            id,
            clauseId: clause.id,
            topic: spec.topic,
            edits: spec.redline.edits,
            target: spec.redline.target as ProposedRedline['target'],
            language: spec.redline.language ?? `Model language for ${spec.topic}.`,
            source: spec.redline.source ?? 'model',
            shape: shapeOf(spec.redline.edits),
            text: applyEdits(clause.text, spec.redline.edits),
            decision: { status: 'proposed' },
          },
        }
      : {}),
    ...(spec.escalation ? { escalation: spec.escalation } : {}),
    analysts: ['liability-counsel'],
  };
}

/** A required clause found in no clause, escalated to `group`; worded as `from` says, else by its topic. */
export function missingClause(
  topic: string,
  category: CategoryId,
  group: string,
  from?: Pick<RequiredClause, 'question' | 'language' | 'placement'>,
): RequiredClauseFinding {
  return {
    id: requiredClauseFindingId(topic),
    topic,
    category,
    importance: 'high',
    question: from?.question ?? `Does the contract have a ${topic} clause?`,
    language: from?.language ?? `Model language of the ${topic} clause.`,
    placement: { note: from?.placement.note ?? 'At the end of the terms.' },
    escalation: { group, reason: 'required-clause-missing' },
  };
}

/** report.json's `playbookReview` over clauses with positions and the required clauses missing. */
export function playbookReviewOf(
  clauses: readonly Pick<ReportClause, 'positions'>[],
  missing: readonly RequiredClauseFinding[] = [],
): PlaybookReview {
  const findings = clauses.flatMap((c) => c.positions ?? []);
  return {
    positions: [],
    missing,
    escalations: [
      ...findings.flatMap((f) => (f.escalation ? [{ findingId: f.id, ...f.escalation }] : [])),
      ...missing.map((m) => ({ findingId: m.id, ...m.escalation })),
    ],
  };
}

/** Where a job's review is kept: its state table item and its held findings beside its report. */
export interface SeedDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly resultsPrefix: string;
}

/** What a seed put in a job's review. */
export interface Seeded {
  readonly escalations: readonly EscalatedFinding[];
  readonly redlines: readonly HeldRedline[];
  /** The clauses the positions were put on, from the job's stored document. */
  readonly clauses: readonly Clause[];
}

/**
 * Puts a review against a playbook into a job a gate holds, where the review engine's report
 * would have put it: positions (with escalations and redlines) on some of the job's own clauses,
 * made into held items by the review gate's own `playbookHolds`, stored with the held findings,
 * and the job's count and approver groups set as finalize sets them. `specs` takes the clauses
 * of the stored document (their text is what the edits must fit) and says which positions go on
 * which clause.
 */
export async function seedPlaybookHolds(
  deps: SeedDeps,
  jobId: string,
  specs: (clauses: readonly Clause[]) => ReadonlyMap<string, readonly PositionSpec[]>,
  missing: readonly RequiredClauseFinding[] = [],
): Promise<Seeded> {
  const doc = await readStoredDocument(deps.s3, deps.resultsBucket, jobId);
  const all = doc.chunks.flatMap((c) => c.clauses);
  const chosen = specs(all);
  const clauses = all
    .filter((c) => chosen.has(c.id))
    .map((c) => ({ ...c, positions: (chosen.get(c.id) ?? []).map((s) => positionOn(c, s)) }));
  const { escalations, redlines } = playbookHolds({
    clauses: clauses as unknown as ReportClause[],
    playbookReview: playbookReviewOf(clauses, missing),
  });
  const held = await readHeldFindings(deps, jobId);
  const seeded: HeldFindings = { ...held, escalations, redlines };
  await storeHeldFindings(deps, jobId, seeded);
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: { pk: jobPk(jobId), sk: JOB_SK },
      UpdateExpression: 'SET gatedFindings = :n, approverGroups = :groups',
      ExpressionAttributeValues: { ':n': heldCount(seeded), ':groups': approverGroupsOf(escalations) },
    }),
  );
  return { escalations, redlines, clauses: all };
}

/** The first word of at least six letters in a clause's text, and where it is. */
export function wordOf(text: string): { at: number; word: string } {
  const m = /\b[A-Za-z]{6,}\b/.exec(text);
  if (!m) throw new Error(`no word of six letters in: ${text.slice(0, 80)}`);
  return { at: m.index, word: m[0] };
}

/**
 * The report with a review against a playbook on its first two clauses that have words: the
 * first not acceptable on liability (escalated to legal, approved by lee, its redline accepted
 * and then edited), the second at fallback 1 on termination (escalated to commercial, its
 * redline proposed and undecided), and a required governing-law clause found nowhere. `insert`
 * is what the redlines insert (a test of escaping gives markup).
 */
export function withPlaybookReview(report: Report, insert = 'reasonable'): Report {
  const worded = report.clauses.filter((c) => /\b[A-Za-z]{6,}\b/.test(c.text)).slice(0, 2);
  const [a, b] = worded;
  if (!a || !b) throw new Error('the report needs two clauses with words');
  const wa = wordOf(a.text);
  const wb = wordOf(b.text);
  const positions = new Map<string, PositionFinding[]>([
    [
      a.id,
      [
        positionOn(a, {
          topic: 'limitation-of-liability',
          category: 'liability',
          rung: { rung: 'not-acceptable' },
          escalation: { group: 'legal-approvers', reason: 'not-acceptable' },
          redline: {
            edits: [{ start: wa.at, end: wa.at + wa.word.length, insert }],
            target: { rung: 'fallback', fallback: 2 },
          },
        }),
      ],
    ],
    [
      b.id,
      [
        positionOn(b, {
          topic: 'termination-for-convenience',
          category: 'termination',
          rung: { rung: 'fallback', fallback: 1 },
          escalation: { group: 'commercial-approvers', reason: 'fallback-approver' },
          redline: {
            edits: [{ start: wb.at, end: wb.at + wb.word.length, insert }],
            target: { rung: 'standard' },
          },
        }),
      ],
    ],
  ]);
  const clauses = report.clauses.map((c) =>
    positions.has(c.id) ? { ...c, positions: positions.get(c.id) } : c,
  );
  const missing = [missingClause('governing-law', 'governing-law-disputes', 'legal-approvers')];
  const at = '2026-03-01T10:00:00.000Z';
  const by = 'cognito-identity:us-east-1:11111111-2222-3333-4444-555555555555';
  const aRedline = redlineId(a.id, 'limitation-of-liability');
  return applyReview(
    { ...report, clauses, playbookReview: playbookReviewOf(clauses, missing) },
    {
      gate: 'high',
      status: 'awaiting_review',
      reviewStartedAt: at,
      reviewDeadline: Date.parse(at) + 3_600_000,
      reviewCompletedAt: at,
    },
    { findings: [], ...playbookHolds({ clauses, playbookReview: playbookReviewOf(clauses, missing) }) },
    [
      {
        findingId: positionFindingId(a.id, 'limitation-of-liability'),
        verdict: 'approve',
        by,
        bySub: '9a8b7c6d-0000-4000-8000-000000000001',
        byName: 'lee@example.com',
        at,
        note: 'legal accepts the cap for this supplier',
      },
    ],
    [
      { redlineId: aRedline, status: 'accepted', by, at },
      {
        redlineId: aRedline,
        status: 'edited',
        edits: [{ start: wa.at, end: wa.at + wa.word.length, insert: `${insert} and mutual` }],
        by,
        bySub: '1f2e3d4c-0000-4000-8000-000000000002',
        byName: 'olga@example.com',
        at,
      },
    ],
  );
}
