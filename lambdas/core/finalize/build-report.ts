import {
  analystById,
  CATEGORIES,
  type ClauseAssessment,
  clauseFindings,
  type PositionVerdict,
} from '../analysts/index.js';
import type { StoredDocument } from '../intake/intake.js';
import { isBeforeClause } from '../negotiation/index.js';
import type { Playbook, PositionFinding } from '../playbooks/index.js';
import type { Report, ReportClause, ReportFailedCall, ReportNotAsked, Risk } from '../report-types.js';
import type { CallOutcome } from '../state/call-ledger.js';
import type { Checkpoint } from '../state/claims.js';
import type { Job } from '../state/job.js';
import { STAGES } from '../state/keys.js';
import { classifyCalls } from './classify-calls.js';
import { negotiationOf } from './negotiation-report.js';
import { judgedTopics, playbookReviewOf, positionFindings } from './playbook-review.js';
import { contractTermsOf, inContractTerms, vetRedlines } from './redline-vetting.js';
import { screenedCalls, screenedPairs } from './screened-calls.js';

export { classifyCalls } from './classify-calls.js';

/** A clause's position findings from its panel verdicts. */
type ToFindings = (
  clause: { id: string; text: string },
  verdicts: readonly PositionVerdict[],
) => PositionFinding[];

const RISKS: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];

/** The status a job ends with, from what its chunks and calls did. */
export function finalStatus(
  job: Job,
  unfinished: number | readonly { chunk: number; status?: string; detail?: string }[],
  failedCalls: readonly ReportFailedCall[],
  skippedForBudget = 0,
): { status: Report['job']['status']; reason?: string } {
  if (job.status === 'cancelled') return { status: 'cancelled', reason: job.reason ?? 'cancelled' };
  const budget = skippedForBudget;
  if (budget > 0 || job.budgetExceededAt) {
    return {
      status: 'budget_exceeded',
      reason: `${budget} call(s) were not started because the cost ceiling of $${(job.ceilingMicros / 1e6).toFixed(4)} would have been exceeded`,
    };
  }
  const failed = failedCalls;
  const count = typeof unfinished === 'number' ? unfinished : unfinished.length;
  if (count > 0 || failed.length > 0) {
    const parts = [];
    // Name each chunk (up to 20) with why it stopped, so the job record alone says what is missing.
    const named =
      typeof unfinished === 'number'
        ? ''
        : `: ${unfinished
            .slice(0, 20)
            .map(
              (u) =>
                `chunk ${u.chunk}${u.status ? ` ${u.status}` : ''}${u.detail ? ` (${u.detail.slice(0, 160)})` : ''}`,
            )
            .join('; ')}${unfinished.length > 20 ? '; …' : ''}`;
    if (count > 0) parts.push(`${count} chunk(s) did not finish${named}`);
    if (failed.length > 0) {
      const named = failed
        .slice(0, 10)
        .map((c) => `${c.clauseId}/${c.analystId} (${c.failureKind}: ${c.lastError.slice(0, 80)})`);
      parts.push(`${failed.length} call(s) failed: ${named.join('; ')}${failed.length > 10 ? '; …' : ''}`);
    }
    return { status: 'incomplete', reason: parts.join('; ') };
  }
  return { status: 'completed' };
}

type ByChunk = ReadonlyMap<number, ReadonlyMap<string, Checkpoint>>;
type Unfinished = Report['coverage']['unfinishedChunks'][number];

/**
 * Builds report.json from the job item, its checkpoints and call ledger, and the stored
 * document. Every planned clause appears, analysed or not, so the report accounts for all.
 * With the job's playbook, each clause carries its positions and each redline is `proposed`:
 * the decisions people make at the review gate are applied after, by `applyReview`.
 */
export function buildReport(
  job: Job,
  doc: StoredDocument,
  checkpoints: readonly Checkpoint[],
  ledger: readonly CallOutcome[],
  finalizedAt: string,
  notice?: string,
  playbook?: Playbook,
): Report {
  const byChunk = new Map<number, Map<string, Checkpoint>>();
  for (const cp of checkpoints) {
    const stages = byChunk.get(cp.chunk) ?? new Map<string, Checkpoint>();
    stages.set(cp.stage, cp);
    byChunk.set(cp.chunk, stages);
  }
  const calls = classifyCalls(doc, job.analysts, checkpoints, ledger);
  const against = job.playbook ? playbook : undefined;
  let toFindings: ToFindings | undefined;
  if (against) {
    const topics = judgedTopics(against, job.contractType?.type);
    toFindings = (clause, verdicts) => positionFindings(clause, verdicts, topics);
  }
  const read = reportClauses(doc, byChunk, toFindings);
  const { before, unfinishedChunks } = read;
  const vetted = against
    ? vetRedlines(read.clauses, against, contractTermsOf(job, against, doc.text), job.contractType)
    : undefined;
  const clauses = vetted?.clauses ?? read.clauses;
  const { status, reason } = finalStatus(job, unfinishedChunks, calls.failed, calls.skipped);
  return {
    schemaVersion: 1,
    job: {
      jobId: job.jobId,
      status,
      ...(reason ? { reason } : {}),
      lane: job.lane,
      analysts: job.analysts,
      document: {
        bucket: job.bucket,
        key: job.key,
        ...(job.versionId ? { versionId: job.versionId } : {}),
        ...(job.sha256 ? { sha256: job.sha256 } : {}),
        ...(job.bytes !== undefined ? { bytes: job.bytes } : {}),
        ...(job.format ? { format: job.format } : {}),
      },
      ...(job.playbook ? { playbook: job.playbook } : {}),
      ...(job.parties ? { parties: job.parties } : {}),
    },
    categories: CATEGORIES.map((c) => ({ id: c.id, name: c.name })),
    analystPanel: job.analysts.map((id) => {
      const a = analystById(id);
      return { id: a.id, name: a.name, categories: [...a.categories] };
    }),
    summary: summaryOf(clauses),
    clauses,
    chunks: reportChunks(doc, byChunk),
    coverage: coverageOf(job, checkpoints, ledger, calls, unfinishedChunks, {
      // The clauses judged as they read before their changes are asked as any clause is.
      clauses: clauses.length + before.length,
      screened: doc.screened,
    }),
    cost: {
      ceilingMicros: job.ceilingMicros,
      spentMicros: job.costSpent,
      reservedMicros: job.costReserved,
      committedMicros: job.costCommitted,
      ...tokenTotals(ledger),
      ...(job.quote ? { quote: job.quote } : {}),
    },
    timings: {
      createdAt: job.createdAt,
      ...(job.cancelledAt ? { cancelledAt: job.cancelledAt } : {}),
      finalizedAt,
      durationMs: Date.parse(finalizedAt) - Date.parse(job.createdAt),
    },
    ...(against
      ? {
          playbookReview: inContractTerms(
            playbookReviewOf(against, job.contractType, clauses, (category) => {
              return new Set(
                job.analysts.filter((id) => analystById(id).categories.some((c) => c === category)),
              );
            }),
            contractTermsOf(job, against, doc.text),
            vetted?.withheld ?? [],
          ),
        }
      : {}),
    ...negotiationOf(doc, clauses, before, against, job.contractType?.type),
    ...(notice ? { notice } : {}),
  };
}

/**
 * Every clause in document order with what the panel found, the clauses the other side changed
 * as they read before (judged as clauses of their own, not the contract's), and the chunks that
 * did not finish.
 */
function reportClauses(
  doc: StoredDocument,
  byChunk: ByChunk,
  toFindings?: ToFindings,
): { clauses: ReportClause[]; before: ReportClause[]; unfinishedChunks: Unfinished[] } {
  const clauses: ReportClause[] = [];
  const before: ReportClause[] = [];
  const unfinishedChunks: Unfinished[] = [];
  const lastStage = STAGES[STAGES.length - 1] ?? 'consolidate';
  for (const chunk of doc.chunks) {
    const stages = byChunk.get(chunk.index);
    const final = stages?.get(lastStage);
    const assessments: ClauseAssessment[] =
      final?.status === 'done' && final.result ? (JSON.parse(final.result) as ClauseAssessment[]) : [];
    if (final?.status !== 'done') {
      const stopped = STAGES.map((s) => stages?.get(s)).find((c) => c && c.status !== 'done');
      unfinishedChunks.push({
        chunk: chunk.index,
        stage: stopped?.stage ?? 'analyze',
        status: stopped?.status ?? 'missing',
        ...(stopped?.stoppedAt || stopped?.lastError
          ? { detail: stopped.stoppedAt ?? stopped.lastError }
          : {}),
      });
    }
    for (const clause of chunk.clauses) {
      const found = assessments.find((x) => x.clauseId === clause.id);
      (isBeforeClause(clause.id) ? before : clauses).push(
        reportClause(clause, chunk.index, found, doc.screened, toFindings),
      );
    }
  }
  return { clauses, before, unfinishedChunks };
}

/**
 * A clause as the report shows it, from its chunk's assessment (undefined: not analysed yet) and
 * the analysts the relevance screen did not ask about it; report.json and the findings handed out
 * while the job runs are both made here.
 */
export function reportClause(
  clause: StoredDocument['chunks'][number]['clauses'][number],
  chunk: number,
  a: ClauseAssessment | undefined,
  screened: StoredDocument['screened'],
  toFindings?: ToFindings,
): ReportClause {
  const left = screenedPairs(screened, clause.id);
  const scores: Record<string, number | null> = {};
  for (const c of CATEGORIES) scores[c.id] = a?.categories[c.id]?.score ?? null;
  return {
    id: clause.id,
    index: clause.index,
    chunk,
    ...(clause.label ? { label: clause.label } : {}),
    ...(clause.heading ? { heading: clause.heading } : {}),
    start: clause.start,
    end: clause.end,
    text: clause.text,
    status: !a ? 'not-analysed' : a.coverage.analystsFailed.length > 0 ? 'partial' : 'analysed',
    risk: a?.risk ?? null,
    maxScore: a?.maxScore ?? null,
    scores,
    findings: a
      ? clauseFindings(a).map((f) => ({
          category: f.category,
          score: f.score,
          quote: f.quote,
          start: f.start,
          end: f.end,
          rationale: f.rationale,
          analysts: f.analysts,
        }))
      : [],
    analystsAnswered: a?.coverage.analystsAnswered ?? [],
    analystsFailed: a?.coverage.analystsFailed ?? [],
    ...(left.length > 0 ? { screened: left } : {}),
    ...(toFindings && a ? { positions: toFindings(clause, a.positions ?? []) } : {}),
  };
}

/** Risk and category counts over the clauses. */
function summaryOf(clauses: readonly ReportClause[]): Report['summary'] {
  const riskCounts = Object.fromEntries(RISKS.map((r) => [r, 0])) as Record<Risk, number>;
  const categoriesFlagged: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c.id, 0]));
  for (const c of clauses) {
    if (c.risk) riskCounts[c.risk]++;
    for (const [cat, score] of Object.entries(c.scores))
      if ((score ?? 0) >= 2) categoriesFlagged[cat] = (categoriesFlagged[cat] ?? 0) + 1;
  }
  return {
    clauses: clauses.length,
    clausesAnalysed: clauses.filter((c) => c.status !== 'not-analysed').length,
    riskCounts,
    categoriesFlagged,
  };
}

/** Every chunk with where each of its stages ended. */
function reportChunks(doc: StoredDocument, byChunk: ByChunk): Report['chunks'] {
  return doc.chunks.map((chunk) => ({
    chunk: chunk.index,
    clauseIds: chunk.clauses.map((c) => c.id),
    stages: Object.fromEntries(
      STAGES.map((s) => {
        const cp = byChunk.get(chunk.index)?.get(s);
        return [
          s,
          {
            status: cp?.status ?? 'missing',
            attempts: cp?.attempts ?? 0,
            ...(cp?.startedAt ? { startedAt: cp.startedAt } : {}),
            ...(cp?.finishedAt ? { finishedAt: cp.finishedAt } : {}),
            ...(cp?.lastError ? { lastError: cp.lastError } : {}),
            ...(cp?.errorClass ? { errorClass: cp.errorClass } : {}),
            ...(cp?.stoppedAt ? { stoppedAt: cp.stoppedAt } : {}),
          },
        ];
      }),
    ),
  }));
}

/** Where every planned call ended, and what work the job took. */
function coverageOf(
  job: Job,
  checkpoints: readonly Checkpoint[],
  ledger: readonly CallOutcome[],
  calls: ReturnType<typeof classifyCalls>,
  unfinishedChunks: readonly Unfinished[],
  document: { clauses: number; screened: StoredDocument['screened'] },
): Report['coverage'] {
  const analyzeStats = checkpoints.filter((c) => c.stage === 'analyze' && c.calls);
  const { done, skipped, cancelled } = calls;
  const { callsScreened, screened } = screenedCalls(document.screened, document.clauses);
  // Calls that never ended (`not-finished`) are listed but counted as not run, not as failed.
  const failed = calls.failed.filter((f) => f.failureKind !== 'not-finished').length;
  return {
    callsPlanned: job.callsPlanned,
    callsDone: done,
    callsReused: analyzeStats.reduce((n, c) => n + (c.calls?.reused ?? 0), 0),
    callsFailed: failed,
    callsSkippedBudget: skipped,
    callsCancelled: cancelled,
    callsScreened,
    callsNotRun: Math.max(0, job.callsPlanned - done - failed - skipped - cancelled - callsScreened),
    ...(screened ? { screened } : {}),
    modelAttempts: ledger.reduce((n, e) => n + (e.attempts ?? 0), 0),
    tier1Retries: analyzeStats.reduce((n, c) => n + (c.calls?.retries ?? 0), 0),
    redeliveries: checkpoints
      .filter((c) => c.stage === 'analyze')
      .reduce((n, c) => n + Math.max(0, (c.attempts ?? 0) - 1), 0),
    ...notAskedOf(job, document.clauses),
    failedCalls: calls.failed,
    unfinishedChunks: [...unfinishedChunks],
  };
}

/** The calls a playbook left out, per analyst: one per clause. */
function notAskedOf(
  job: Pick<Job, 'notAsked'>,
  clauses: number,
): { callsNotAsked?: number; notAsked?: ReportNotAsked[] } {
  const left = job.notAsked ?? [];
  if (left.length === 0) return {};
  const notAsked = left.map((n) => ({
    analystId: n.analystId,
    reason: n.reason,
    calls: clauses,
    detail: n.detail,
  }));
  return { callsNotAsked: clauses * left.length, notAsked };
}

/** Tokens billed over the job's calls. */
function tokenTotals(ledger: readonly CallOutcome[]) {
  const sum = (f: (e: CallOutcome) => number | undefined) => ledger.reduce((n, e) => n + (f(e) ?? 0), 0);
  return {
    inputTokens: sum((e) => e.inputTokens),
    outputTokens: sum((e) => e.outputTokens),
    cacheReadInputTokens: sum((e) => e.cacheReadInputTokens),
    cacheWriteInputTokens: sum((e) => e.cacheWriteInputTokens),
  };
}
