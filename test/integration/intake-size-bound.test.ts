/**
 * An object far over the document limit written straight into the intake bucket (as anyone
 * allowed to write there can): intake refuses it by its length, from the S3 event or from
 * GetObject's answer, without reading its body. Intake runs in this test's own process (the
 * local pipeline's intake handler), so this process's memory is intake's memory plus the
 * test's: its growth while intake takes the object is an upper bound of intake's.
 */
import { Readable } from 'node:stream';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { intakeObject, jobIdFor } from '../../lambdas/core/intake/intake.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { intakeDeps } from '../../lambdas/shared/runtime.js';
import { startHarness } from '../helpers/pipeline.js';

const MB = 1024 * 1024;
const SIZE = 100 * MB;
const h = await startHarness('sizebound');
const { s3 } = h.pipeline.clients;
const bucket = h.stack.resources.intakeBucket;

/** GetObject requests the pipeline's S3 client sends for a key, counted as they leave. */
const gets = new Map<string, number>();
s3.middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as { Key?: string };
    if (context.commandName === 'GetObjectCommand' && input.Key)
      gets.set(input.Key, (gets.get(input.Key) ?? 0) + 1);
    return next(args);
  },
  { step: 'initialize', name: 'countGetObject' },
);
afterAll(() => {
  s3.middlewareStack.remove('countGetObject');
});

/** 100 MB of zeros put as a stream of 1 MB chunks: the test never holds the object either. */
async function putLarge(key: string): Promise<string | undefined> {
  const body = Readable.from(
    (function* () {
      const chunk = Buffer.alloc(MB);
      for (let i = 0; i < SIZE / MB; i++) yield chunk;
    })(),
  );
  const put = await s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: SIZE }),
  );
  return put.VersionId;
}

/** This process's resident memory, sampled every 5 ms while `work` runs: its peak growth. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; peakMb: number; bound: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    // maxRSS (KiB) is the process's high-water mark: it misses nothing between samples.
    const bound = (process.resourceUsage().maxRSS * 1024 - before) / MB;
    return { result, peakMb: (peak - before) / MB, bound };
  } finally {
    clearInterval(sampler);
  }
}

describe('an object over the limit put straight into the intake bucket', () => {
  it('is refused by the length its S3 event gives, without a read, in little memory', async () => {
    const key = `${h.stack.resources.intakePrefix}huge-${Date.now()}.txt`;
    const {
      result: job,
      peakMb,
      bound,
    } = await peakGrowth(async () => {
      const versionId = await putLarge(key);
      const jobId = jobIdFor({ bucket, key, ...(versionId ? { versionId } : {}) });
      return h.waitForEnd(jobId, 60_000);
    });
    console.log(
      `100 MB upload refused by intake: this process grew by ${peakMb.toFixed(1)} MB at its sampled peak, ` +
        `${bound.toFixed(1)} MB at most by its high-water mark (upload and intake together)`,
    );
    expect(job.status).toBe('rejected');
    expect(job.rejection).toBe('too-large');
    expect(job.bytes).toBe(SIZE);
    expect(job.reason).toBe(
      'The file is 100 MB, which is over the 10 MB limit. Upload a smaller file, for example the contract without its attachments.',
    );
    expect(gets.get(key) ?? 0).toBe(0);
    expect(bound).toBeLessThan(200);
    // The object stays where it was uploaded.
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(SIZE);
  }, 120_000);

  it('is refused by the length GetObject answers when the event names none, its body unread', async () => {
    // Outside the notified prefix: intake takes it only as this test hands it over.
    const key = `direct/huge-${Date.now()}.txt`;
    const versionId = await putLarge(key);
    const deps = intakeDeps(loadConfig(h.pipeline.env), h.pipeline.clients);
    const ref = { bucket, key, ...(versionId ? { versionId } : {}) };
    const { result, peakMb } = await peakGrowth(() => intakeObject(ref, deps));
    console.log(
      `100 MB object refused from GetObject's length: this process grew by ${peakMb.toFixed(1)} MB`,
    );
    expect(result).toMatchObject({ outcome: 'rejected', jobId: jobIdFor(ref) });
    expect(gets.get(key)).toBe(1);
    expect(peakMb).toBeLessThan(200);
    // Reading the body would take all 100 MB of it.
    expect(peakMb).toBeLessThan(50);
    const job = await h.jobs.get(jobIdFor(ref));
    expect(job).toMatchObject({ status: 'rejected', rejection: 'too-large', bytes: SIZE });
  }, 120_000);
});
