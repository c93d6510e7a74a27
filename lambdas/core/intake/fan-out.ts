/**
 * Intake's last step for a read document: the document stored, the checkpoints and the plan
 * recorded, the owner's admission asked, and one message per chunk sent to the job's lane.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { DocumentScreen } from '../screen/index.js';
import type { CostQuote, Job, JobPlan } from '../state/job.js';
import { storesOf } from '../stores.js';
import { admitFromIntake } from './admission.js';
import type { IntakeResult, IntakeRun } from './intake-run.js';
import type { JobOptions } from './job-options.js';
import type { RoundDocument } from './negotiation-round.js';
import { chunkMessagesOf, documentKey, type StoredDocument, sendChunkMessages } from './stored-document.js';

/** What intake planned for a read document. */
export interface Plan {
  readonly context: StoredDocument['context'];
  readonly quote: CostQuote;
  /** Pairs of clause and analyst of the panel, and those the relevance screen leaves out. */
  readonly calls: { readonly planned: number; readonly screened: number };
  readonly screen?: DocumentScreen;
}

/** Stores the document, records the checkpoints and the plan, and sends one message per chunk. */
export async function fanOut(
  run: IntakeRun,
  options: JobOptions,
  parsed: RoundDocument,
  { context, quote, calls: { planned: calls }, screen }: Plan,
): Promise<IntakeResult> {
  const { jobId, jobs, deps } = run;
  const stored: StoredDocument = {
    jobId,
    format: parsed.format,
    sha256: parsed.sha256,
    text: parsed.text,
    chunks: parsed.chunks,
    ...(context ? { context } : {}),
    ...(screen && screen.calls > 0 ? { screened: screen.screened } : {}),
    ...(parsed.revisions ? { revisions: parsed.revisions } : {}),
  };
  // The document and the checkpoints go together, then the plan, which makes the job running
  // (a pause or resume from then on finds both), then the chunk messages. An intake that dies
  // before the fan-out is done is resumed and does each again.
  const [, , current] = await Promise.all([
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: documentKey(jobId),
        Body: JSON.stringify(stored),
        ContentType: 'application/json',
      }),
    ),
    storesOf(deps).claims.createAll(jobId, parsed.chunks.length),
    jobs.get(jobId),
  ]);
  // A job cancelled while it was read still records its plan: its report accounts for every
  // planned call as cancelled, once workers have ended its chunks.
  if (current.status === 'intake' || (current.status === 'cancelled' && current.chunkCount === 0)) {
    const plan = {
      chunkCount: parsed.chunks.length,
      clauseCount: parsed.contractClauses,
      callsPlanned: calls,
      sha256: parsed.sha256,
      bytes: parsed.bytes,
      format: parsed.format,
      quote,
    };
    const admitted = await admit(run, current, plan);
    if (admitted !== 'start') {
      const outcome = admitted === 'queued' ? 'queued' : 'started';
      return { outcome, jobId, chunks: parsed.chunks.length, calls };
    }
  } else if (current.status === 'queued') {
    // Another intake of the same upload queued it meanwhile: its chunks wait for a slot.
    return { outcome: 'queued', jobId, chunks: parsed.chunks.length, calls };
  }
  await sendChunkMessages(
    deps.sqs,
    deps.laneQueueUrls[options.lane],
    chunkMessagesOf(stored, options.lane),
    current.owner,
  );
  await jobs.markFannedOut(jobId);
  return { outcome: 'started', jobId, chunks: parsed.chunks.length, calls };
}

/**
 * Records the plan and lets the job start (`start`: its messages are to be sent), or records it
 * `queued` while its owner is at a cap (`admitFromIntake`). A job cancelled meanwhile records
 * its plan all the same; one another intake of the same upload queued meanwhile stays `queued`.
 */
async function admit(
  { jobs, deps, now }: IntakeRun,
  current: Job,
  plan: JobPlan,
): Promise<'start' | 'queued' | 'started'> {
  const admitted = await admitFromIntake(current, plan, deps, { ...deps, now });
  if (admitted !== 'unadmitted') return admitted;
  // Another intake of the same upload may have started or queued it meanwhile (a take that
  // found the job moved, a queueing refused): a queued job's chunks wait for a slot.
  return (await jobs.recordPlan(current.jobId, plan)) === 'queued' ? 'queued' : 'start';
}
