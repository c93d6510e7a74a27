/**
 * A reviewer's decision on a job's held findings and escalations: who may decide which, the
 * verdict and score checked, recorded on the trail, and the review closed once nothing is left.
 */
import type { Score } from '../analysts/tool-schema.js';
import type { Job } from '../state/job.js';
import { type Decision, ReviewTrail, type Verdict } from './decisions.js';
import { DecisionError, NotYoursToDecideError, OwnEscalationError } from './errors.js';
import type { DecisionRights } from './playbook-holds.js';
import { checkOpen, closeIfDecided, type HeldFindings, type ReviewDeps, readHeldFindings } from './review.js';

/** A reviewer's request: one verdict on some findings, or on every gated finding still undecided. */
export interface DecisionRequest {
  readonly findings: readonly string[] | 'all-undecided';
  readonly verdict: Verdict;
  readonly score?: number;
  readonly note?: string;
}

/** What a decision request did. */
export interface DecisionOutcome {
  readonly recorded: readonly Decision[];
  /** Held findings, escalations and redlines still without a decision. */
  readonly undecided: number;
  /** True when this request decided the last of them: the report is being written. */
  readonly reviewClosed: boolean;
}

/** Longest reviewer note kept. */
export const MAX_NOTE_CHARS = 2000;

/** The person behind a decision, when they signed in through the user pool. */
export interface DecidingPerson {
  /** The user pool's permanent id of them. */
  readonly sub?: string;
  /** The name the pool vouches for (a verified email, or the user name). */
  readonly name?: string;
}

/** Who decided, as a trail record carries it: the principal, and the person when known. */
export function deciderFields(by: string, person: DecidingPerson) {
  return {
    by,
    ...(person.sub ? { bySub: person.sub } : {}),
    ...(person.name ? { byName: person.name } : {}),
  };
}

/**
 * Records decisions on a job awaiting review, appended to its trail with the deciding principal
 * (and the person's `sub` and vouched-for name, when they signed in through the user pool) and
 * the time. The findings at the gate's risk are the reviewer's to decide (the job's owner or an
 * administrator); an escalated finding its approver group's (a member, or an administrator),
 * approved or rejected, never overridden. `all-undecided` takes every undecided one the caller
 * may decide. When nothing held waits any more, the review closes (once, whoever gets there
 * first) and finalize is sent.
 * @throws HoldStateError when the job is not awaiting review, or its review has closed
 * @throws DecisionError for an unknown finding, or a score missing, out of 0–3, or not asked for
 * @throws NotYoursToDecideError for a finding the caller may not decide
 */
export async function decide(
  job: Job,
  request: DecisionRequest,
  by: string,
  deps: ReviewDeps,
  person: DecidingPerson,
  rights: DecisionRights,
): Promise<DecisionOutcome> {
  const now = deps.now ?? Date.now;
  checkOpen(job);
  const score = checkScore(job.jobId, request);
  const held = await readHeldFindings(deps, job.jobId);
  const trail = new ReviewTrail(deps.db, deps.tableName);
  const ids = targetIds(job.jobId, request, held, await trail.list(job.jobId), rights);
  const at = new Date(now()).toISOString();
  const note = request.note?.slice(0, MAX_NOTE_CHARS);
  const recorded: Decision[] = ids.map((findingId) => ({
    findingId,
    verdict: request.verdict,
    ...(score !== undefined ? { score } : {}),
    ...deciderFields(by, person),
    at,
    ...(note ? { note } : {}),
  }));
  await trail.append(job.jobId, recorded);
  return { recorded, ...(await closeIfDecided(job, held, deps)) };
}

function checkScore(jobId: string, request: DecisionRequest): Score | undefined {
  if (request.verdict !== 'override') {
    if (request.score !== undefined)
      throw new DecisionError(`a score goes with 'override' only; '${request.verdict}' takes none`, jobId);
    return undefined;
  }
  const s = request.score;
  if (s === undefined || !Number.isInteger(s) || s < 0 || s > 3) {
    throw new DecisionError(
      `'override' needs a score from 0 (standard) to 3 (severe); got ${s === undefined ? 'none' : s}`,
      jobId,
    );
  }
  return s as Score;
}

/** The held ids a request names, checked against what the caller may decide. */
function targetIds(
  jobId: string,
  request: DecisionRequest,
  held: HeldFindings,
  before: readonly Decision[],
  rights: DecisionRights,
): string[] {
  const escalations = held.escalations ?? [];
  const groupOf = new Map(escalations.map((e) => [e.id, e.escalation.group]));
  const mayDecide = (id: string) => {
    const group = groupOf.get(id);
    return group === undefined ? rights.reviewer : rights.approves(group);
  };
  const all = [...held.findings.map((f) => f.id), ...escalations.map((e) => e.id)];
  if (request.findings === 'all-undecided') {
    const decided = new Set(before.map((d) => d.findingId));
    // An override's score is a category's: escalated findings are approved or rejected.
    return all.filter(
      (id) => !decided.has(id) && mayDecide(id) && !(request.verdict === 'override' && groupOf.has(id)),
    );
  }
  const known = new Set(all);
  const unknown = request.findings.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const sample = all.slice(0, 5).join(', ');
    throw new DecisionError(
      `no held finding ${unknown.map((u) => `'${u}'`).join(', ')} on job ${jobId}; held findings look like ` +
        `<clause>/<category> or <clause>/playbook/<topic> (${sample}${all.length > 5 ? ', …' : ''}): ` +
        `'clause-review findings ${jobId} --gated' lists them`,
      jobId,
    );
  }
  if (request.findings.length === 0) throw new DecisionError('name at least one finding', jobId);
  const ids = [...new Set(request.findings)];
  const own = rights.ownJob ? ids.filter((id) => groupOf.has(id)) : [];
  if (own.length > 0) {
    const groups = [...new Set(own.map((id) => groupOf.get(id)))].join("', '");
    throw new OwnEscalationError(
      `you submitted job ${jobId}: its escalations (${own.join(', ')}) are for the '${groups}' group to decide, by a member or an administrator other than the job's owner`,
      jobId,
      own,
    );
  }
  const refused = ids.filter((id) => !mayDecide(id));
  if (refused.length > 0) {
    const why = refused.map((id) => {
      const group = groupOf.get(id);
      return group === undefined
        ? `'${id}' is for the job's reviewer (its owner or an administrator)`
        : `'${id}' is for the '${group}' group (its members or an administrator)`;
    });
    throw new NotYoursToDecideError(
      `no finding you may decide on job ${jobId}: ${why.join('; ')}`,
      jobId,
      refused,
    );
  }
  if (request.verdict === 'override') {
    const escalated = ids.filter((id) => groupOf.has(id));
    if (escalated.length > 0)
      throw new DecisionError(
        `an escalated finding is approved or rejected, never overridden with a score: ${escalated.join(', ')}`,
        jobId,
      );
  }
  return ids;
}
