import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentKey, type StoredDocument } from '../intake/intake.js';
import { CallLedger } from '../state/call-ledger.js';
import { Claims } from '../state/claims.js';
import { Jobs } from '../state/jobs.js';
import { buildReport } from './build-report.js';
import { renderReportHtml } from './report-html.js';
import type { Report } from './report-types.js';

/** What finalize needs. */
export interface FinalizeDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly resultsPrefix: string;
  /** Shown at the top of the report (the local runtime says its answers are heuristic). */
  readonly notice?: string;
  readonly now?: () => number;
}

/** Where a job's reports go. */
export function reportKeys(prefix: string, jobId: string): { json: string; html: string } {
  return { json: `${prefix}${jobId}/report.json`, html: `${prefix}${jobId}/report.html` };
}

/**
 * Writes report.json and report.html and moves the job to its terminal status. Idempotent:
 * a finalized job is left alone, and the report is rewritten identically if a previous
 * attempt died between writing it and recording the status.
 */
export async function finalizeJob(
  jobId: string,
  deps: FinalizeDeps,
): Promise<{ finalized: boolean; report?: Report; keys?: { json: string; html: string } }> {
  const now = deps.now ?? Date.now;
  const jobs = new Jobs(deps.db, deps.tableName, now);
  const job = await jobs.get(jobId);
  if (job.finalizedAt) return { finalized: false };
  const stored = await deps.s3.send(
    new GetObjectCommand({ Bucket: deps.resultsBucket, Key: documentKey(jobId) }),
  );
  const doc = JSON.parse((await stored.Body?.transformToString()) ?? '{}') as StoredDocument;
  const [checkpoints, ledger] = await Promise.all([
    new Claims(deps.db, deps.tableName, now).list(jobId),
    new CallLedger(deps.db, deps.tableName, now).forJob(jobId),
  ]);
  const finalizedAt = new Date(now()).toISOString();
  const report = buildReport(job, doc, checkpoints, ledger, finalizedAt, deps.notice);
  const keys = reportKeys(deps.resultsPrefix, jobId);
  await Promise.all([
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: keys.json,
        Body: JSON.stringify(report, null, 1),
        ContentType: 'application/json',
      }),
    ),
    deps.s3.send(
      new PutObjectCommand({
        Bucket: deps.resultsBucket,
        Key: keys.html,
        Body: renderReportHtml(report),
        ContentType: 'text/html; charset=utf-8',
      }),
    ),
  ]);
  const finished = await jobs.finish(
    jobId,
    report.job.status,
    {
      ...(report.job.reason ? { reason: report.job.reason } : {}),
      reportKey: keys.json,
      htmlReportKey: keys.html,
    },
    job.status === 'cancelled' ? ['cancelled'] : ['running'],
  );
  return { finalized: finished, report, keys };
}
