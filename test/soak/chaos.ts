/**
 * The faults the soak injects from outside the pipeline: worker processes killed, invocations
 * that die mid-chunk, chunk messages and S3 events delivered twice, and DLQ triage run as the
 * schedule would. Each draws from the run's seeded random source.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type DlqDeps, type TriageSummary, triageDeadLetters } from '../../lambdas/core/dlq/index.js';
import {
  chunkMessagesOf,
  readStoredDocument,
  sendChunkMessages,
} from '../../lambdas/core/intake/stored-document.js';
import type { Job } from '../../lambdas/core/state/jobs.js';
import { processChunk } from '../../lambdas/core/worker/process-chunk.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { workerDeps } from '../../lambdas/shared/runtime.js';
import type { ProvisionedResources } from '../../localstack/provision.js';
import type { LocalPipeline } from '../../localstack/runtime/local-pipeline.js';

/** What the chaos did, for the summary. */
export interface ChaosTally {
  workerKills: number;
  /** Batch workers that exited without being killed (each one a defect), with what they said last. */
  workerCrashes: string[];
  dyingInvocations: number;
  duplicateChunks: number;
  duplicateEvents: number;
  triageRuns: number;
  deadLetters: Record<string, number>;
}

export function emptyTally(): ChaosTally {
  return {
    workerKills: 0,
    workerCrashes: [],
    dyingInvocations: 0,
    duplicateChunks: 0,
    duplicateEvents: 0,
    triageRuns: 0,
    deadLetters: {},
  };
}

/** A work queue still holding messages (see Chaos.quiesce). */
interface QueueLeft {
  readonly queue: string;
  readonly url: string;
  readonly visible: number;
  readonly hidden: number;
  readonly delayed: number;
  readonly visibilityTimeoutSeconds: number;
}

/** The faults, bound to one run's pipeline. */
export class Chaos {
  readonly tally = emptyTally();
  private readonly dying = new Set<Promise<unknown>>();
  private readonly killed = new WeakSet<object>();
  private readonly crashed = new WeakSet<object>();

  constructor(
    private readonly pipeline: LocalPipeline,
    private readonly resources: ProvisionedResources,
    private readonly dlq: DlqDeps,
    private readonly random: () => number,
  ) {}

  /** SIGKILLs one batch worker process and starts another in its place, as ECS would. */
  killBatchWorker(): void {
    const alive = this.pipeline.batchWorkers.filter((c) => c.exitCode === null && c.signalCode === null);
    const victim = alive[Math.floor(this.random() * alive.length)];
    if (!victim) return;
    this.killed.add(victim);
    victim.kill('SIGKILL');
    this.tally.workerKills++;
    this.pipeline.addBatchWorker();
  }

  /**
   * Starts a worker in place of each one that exited on its own, as an ECS service keeps its
   * desired count, and records the exit: a worker process should only ever end when stopped.
   */
  replaceCrashedWorkers(): void {
    for (const child of this.pipeline.batchWorkers) {
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (!exited || this.killed.has(child) || this.crashed.has(child)) continue;
      this.crashed.add(child);
      this.tally.workerCrashes.push(`pid ${child.pid} exited with ${child.exitCode ?? child.signalCode}`);
      this.pipeline.addBatchWorker();
    }
  }

  /**
   * Runs one chunk of a running job in a worker that is shut down after a random moment, as a
   * Lambda invocation that times out: it competes with the pipeline's own delivery of the chunk.
   */
  dyingInvocation(job: Job): void {
    const run = (async () => {
      const doc = await readStoredDocument(this.pipeline.clients.s3, this.resources.resultsBucket, job.jobId);
      const chunk = Math.floor(this.random() * doc.chunks.length);
      const [message] = chunkMessagesOf(doc, job.lane, [chunk]);
      const shutdown = new AbortController();
      const deps = workerDeps(loadConfig(this.pipeline.env), this.pipeline.clients, {
        workerId: `dying-${this.tally.dyingInvocations}`,
        signal: shutdown.signal,
      });
      setTimeout(() => shutdown.abort(), 100 + Math.floor(this.random() * 1500)).unref();
      this.tally.dyingInvocations++;
      await processChunk(
        {
          messageId: `dying-${this.tally.dyingInvocations}`,
          receiptHandle: 'not-a-receipt',
          body: JSON.stringify(message),
          receiveCount: 1,
          queueUrl: this.resources.queueUrls[job.lane],
        },
        deps,
      );
    })().catch(() => {});
    this.dying.add(run);
    void run.finally(() => this.dying.delete(run));
  }

  /** Sends the message of a random chunk of a running job again: a duplicate delivery. */
  async duplicateChunk(job: Job): Promise<void> {
    const doc = await readStoredDocument(this.pipeline.clients.s3, this.resources.resultsBucket, job.jobId);
    const chunk = Math.floor(this.random() * doc.chunks.length);
    await sendChunkMessages(
      this.pipeline.clients.sqs,
      this.resources.queueUrls[job.lane],
      chunkMessagesOf(doc, job.lane, [chunk]),
      job.owner,
    );
    this.tally.duplicateChunks++;
  }

  /** Sends the S3 event of an upload to the intake queue again, as S3 may. */
  async duplicateEvent(upload: {
    key: string;
    versionId?: string;
    etag?: string;
    size: number;
  }): Promise<void> {
    const event = {
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: {
            bucket: { name: this.resources.intakeBucket },
            object: {
              key: upload.key,
              size: upload.size,
              ...(upload.etag ? { eTag: upload.etag } : {}),
              ...(upload.versionId ? { versionId: upload.versionId } : {}),
            },
          },
        },
      ],
    };
    await this.pipeline.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.resources.queueUrls.intake,
        MessageBody: JSON.stringify(event),
      }),
    );
    this.tally.duplicateEvents++;
  }

  /** One DLQ triage run, as the schedule runs it: classify, redrive or mark dead. */
  async triage(): Promise<TriageSummary> {
    const summary = await triageDeadLetters(this.dlq);
    this.tally.triageRuns++;
    for (const d of summary.decisions) {
      const key = `${d.errorClass} ${d.decision}`;
      this.tally.deadLetters[key] = (this.tally.deadLetters[key] ?? 0) + 1;
    }
    return summary;
  }

  /**
   * Waits until no work message is left in flight (visible, invisible or delayed) on any work
   * queue: a duplicate that met a held lease comes back until it is acked or dead-lettered, and
   * only then can the last triage see every dead letter. A message whose consumer died before
   * its first heartbeat (a worker killed in a long poll that had just taken it) is invisible for
   * its queue's whole visibility timeout, so the wait lasts up to the longest timeout among the
   * queues still holding messages, plus `graceMs`, and at least `minMs`. Returns what is still
   * there at the end (each queue's counts, and the bodies of up to 10 visible messages, read
   * once without hiding them: a read counts as a receive, so reading on every round would walk
   * a message to its DLQ), or undefined when nothing is.
   */
  async quiesce(minMs = 120_000, graceMs = 30_000): Promise<string | undefined> {
    const { sqs } = this.pipeline.clients;
    const started = Date.now();
    let left: QueueLeft[] = [];
    for (let until = started + minMs; Date.now() < until; ) {
      left = await this.leftOnQueues();
      if (left.length === 0) return undefined;
      for (const q of left) until = Math.max(until, started + q.visibilityTimeoutSeconds * 1000 + graceMs);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const described = await Promise.all(
      left.map(async (q) => {
        let bodies = '';
        if (q.visible) {
          const peek = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
          );
          bodies = `: ${(peek.Messages ?? []).map((m) => m.Body ?? '').join(' | ')}`;
        }
        return `${q.queue} visible ${q.visible}, in flight ${q.hidden}, delayed ${q.delayed}${bodies}`;
      }),
    );
    return described.join('; ');
  }

  /** The work queues holding messages, with their counts and visibility timeouts. */
  private async leftOnQueues(): Promise<QueueLeft[]> {
    const left: QueueLeft[] = [];
    for (const [queue, url] of Object.entries(this.resources.queueUrls)) {
      const r = await this.pipeline.clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
            'VisibilityTimeout',
          ],
        }),
      );
      const a = r.Attributes ?? {};
      const [visible, hidden, delayed, visibilityTimeoutSeconds] = [
        a.ApproximateNumberOfMessages,
        a.ApproximateNumberOfMessagesNotVisible,
        a.ApproximateNumberOfMessagesDelayed,
        a.VisibilityTimeout,
      ].map((v) => Number(v ?? 0)) as [number, number, number, number];
      if (visible || hidden || delayed)
        left.push({ queue, url, visible, hidden, delayed, visibilityTimeoutSeconds });
    }
    return left;
  }

  /** Waits for the dying invocations still running. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.dying]);
  }
}
