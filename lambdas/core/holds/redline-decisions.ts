/**
 * A reviewer's decisions on the proposed redlines a review holds: accept one as proposed,
 * reject it (report.docx leaves it out), or edit it (the reviewer's own edits of the clause,
 * checked as the analysts' are, replace the proposed ones). Recorded in the job's redline trail
 * like the findings' decisions: appended, the latest one on a redline in force.
 */
import type { RedlineEdit } from '../../text/redline-edits.js';
import { checkRedlineEdits } from '../../text/redline-text.js';
import type { RedlineDecisionRecord } from '../playbooks/index.js';
import type { Job } from '../state/job.js';
import { type DecidingPerson, deciderFields, MAX_NOTE_CHARS } from './decide.js';
import { DecisionError, NotYoursToDecideError } from './errors.js';
import type { DecisionRights } from './playbook-holds.js';
import { RedlineTrail } from './redline-trail.js';
import { checkOpen, closeIfDecided, type ReviewDeps, readHeldFindings } from './review.js';

/** What a reviewer does with a redline. */
export type RedlineVerb = 'accept' | 'reject' | 'edit';

const STATUS: Readonly<Record<RedlineVerb, RedlineDecisionRecord['status']>> = {
  accept: 'accepted',
  reject: 'rejected',
  edit: 'edited',
};

/** A request: one decision on named redlines, or on every one still undecided. */
export interface RedlineRequest {
  readonly redlines: readonly string[] | 'all-undecided';
  readonly decision: RedlineVerb;
  /** `edit` only: the reviewer's edits of the clause's text, which replace the proposed ones. */
  readonly edits?: readonly RedlineEdit[];
  readonly note?: string;
}

/** What a redline decision request did. */
export interface RedlineOutcome {
  readonly recorded: readonly RedlineDecisionRecord[];
  /** Held findings, escalations and redlines still without a decision. */
  readonly undecided: number;
  /** True when this request decided the last of them: the report is being written. */
  readonly reviewClosed: boolean;
}

/**
 * Records a reviewer's decision on held redlines, with the deciding principal, the person when
 * they signed in through the user pool, and the time. Redlines are the job's reviewer's to
 * decide (its owner, or an administrator). When nothing held waits any more, the review closes
 * and finalize is sent: report.json shows each redline's decision, and report.docx writes every
 * redline not rejected, an edited one with the reviewer's edits.
 * @throws HoldStateError when the job is not awaiting review, or its review has closed
 * @throws DecisionError for an unknown redline, or edits that do not fit the clause
 * @throws NotYoursToDecideError when the caller is not the job's reviewer
 */
export async function decideRedlines(
  job: Job,
  request: RedlineRequest,
  by: string,
  deps: ReviewDeps,
  person: DecidingPerson,
  rights: DecisionRights,
): Promise<RedlineOutcome> {
  checkOpen(job);
  const held = await readHeldFindings(deps, job.jobId);
  const redlines = held.redlines ?? [];
  const trail = new RedlineTrail(deps.db, deps.tableName);
  let ids: string[];
  if (request.redlines === 'all-undecided') {
    const decided = new Set((await trail.list(job.jobId)).map((r) => r.redlineId));
    ids = redlines.filter((r) => !decided.has(r.id)).map((r) => r.id);
  } else {
    const known = new Set(redlines.map((r) => r.id));
    const unknown = request.redlines.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      const sample = redlines
        .slice(0, 5)
        .map((r) => r.id)
        .join(', ');
      throw new DecisionError(
        `no proposed redline ${unknown.map((u) => `'${u}'`).join(', ')} on job ${job.jobId}; redlines look like ` +
          `<clause>/redline/<topic> (${sample || 'this job has none'}${redlines.length > 5 ? ', …' : ''}): ` +
          `'clause-review findings ${job.jobId} --gated' lists them`,
        job.jobId,
      );
    }
    ids = [...new Set(request.redlines)];
  }
  if (!rights.reviewer && ids.length > 0) {
    throw new NotYoursToDecideError(
      `no redline you may decide on job ${job.jobId}: redlines are for the job's reviewer (its owner or an administrator)`,
      job.jobId,
      ids,
    );
  }
  let edits: RedlineEdit[] | undefined;
  if (request.decision === 'edit') {
    const target = redlines.find((r) => r.id === ids[0]);
    const checked = checkRedlineEdits(target?.clause.text ?? '', request.edits ?? []);
    if (checked.problems)
      throw new DecisionError(
        `the edits of ${ids[0]} do not fit its clause: ${checked.problems.join('; ')}`,
        job.jobId,
      );
    edits = checked.edits;
  }
  const at = new Date((deps.now ?? Date.now)()).toISOString();
  const note = request.note?.slice(0, MAX_NOTE_CHARS);
  const recorded: RedlineDecisionRecord[] = ids.map((redlineId) => ({
    redlineId,
    status: STATUS[request.decision],
    ...(edits ? { edits } : {}),
    ...deciderFields(by, person),
    at,
    ...(note ? { note } : {}),
  }));
  await trail.append(job.jobId, recorded);
  return { recorded, ...(await closeIfDecided(job, held, deps)) };
}
