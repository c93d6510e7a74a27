import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll } from 'vitest';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';
import { type Job, Jobs } from '../../lambdas/core/state/jobs.js';
import { type BedrockStandIn, type FaultPlan, startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS, type LocalRunSettings } from '../../localstack/runtime/local-env.js';
import {
  type LocalPipeline,
  type LocalPipelineOptions,
  startLocalPipeline,
} from '../../localstack/runtime/local-pipeline.js';
import { provisionTestStack, type TestStack } from './local-aws.js';

/** A contract fixture's bytes. */
export function fixture(name: string): Buffer {
  return readFileSync(join(PROJECT_ROOT, 'test/fixtures/contracts', name));
}

export const SMALL = 'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt';
export const MEDIUM = 'KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt';
export const LARGE =
  'ParatekPharmaceuticalsInc_20170505_10-KA_EX-10_29_10323872_EX-10_29_Outsourcing_Agreement.txt';

/** A provisioned stack, a Bedrock stand-in and a running local pipeline, torn down after the file. */
export interface PipelineHarness {
  readonly stack: TestStack;
  readonly bedrock: BedrockStandIn;
  readonly pipeline: LocalPipeline;
  readonly jobs: Jobs;
  upload(name: string, body: Uint8Array | string, metadata?: Record<string, string>): Promise<string>;
  waitForEnd(jobId: string, timeoutMs?: number): Promise<Job>;
  report(job: Job): Promise<Report>;
}

/** Starts everything; call at the top level of a test file. */
export async function startHarness(
  label: string,
  options: {
    plan?: Partial<FaultPlan>;
    settings?: Partial<LocalRunSettings>;
    pipeline?: Partial<LocalPipelineOptions>;
  } = {},
): Promise<PipelineHarness> {
  const stack = await provisionTestStack(label);
  const bedrock = await startBedrockStandIn({ seed: 7, ...(options.plan ? { plan: options.plan } : {}) });
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.endpoint,
    bedrockEndpoint: bedrock.url,
    topology: stack.topology,
    resources: stack.resources,
    settings: { ...LOCAL_RUN_DEFAULTS, ...options.settings },
    batchWorkers: 0,
    log: (line) => console.error(line),
    ...options.pipeline,
  });
  afterAll(async () => {
    await pipeline.stop();
    await bedrock.close();
  });
  const jobs = new Jobs(pipeline.clients.db, stack.resources.tableName);
  return {
    stack,
    bedrock,
    pipeline,
    jobs,
    async upload(name, body, metadata = {}) {
      const key = `${stack.resources.intakePrefix}${name}`;
      const put = await pipeline.clients.s3.send(
        new PutObjectCommand({
          Bucket: stack.resources.intakeBucket,
          Key: key,
          Body: body,
          Metadata: metadata,
        }),
      );
      return jobIdFor({
        bucket: stack.resources.intakeBucket,
        key,
        ...(put.VersionId ? { versionId: put.VersionId } : {}),
        ...(put.ETag ? { etag: put.ETag } : {}),
      });
    },
    async waitForEnd(jobId, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await jobs.find(jobId);
        if (job && (job.finalizedAt || job.status === 'rejected')) return job;
        if (Date.now() > deadline)
          throw new Error(`job ${jobId} did not end within ${timeoutMs} ms: ${JSON.stringify(job)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async report(job) {
      const r = await pipeline.clients.s3.send(
        new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: job.reportKey ?? '' }),
      );
      return JSON.parse((await r.Body?.transformToString()) ?? '{}') as Report;
    },
  };
}
