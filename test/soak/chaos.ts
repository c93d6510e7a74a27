/**
 * The faults the soak injects from outside the pipeline: worker processes killed, invocations
 * that die mid-chunk, chunk messages, S3 events, owner-routed intake messages and finalize
 * messages delivered twice, intakes, finalizes, cancels, pauses and resumes that die on their
 * way through admission control, and DLQ triage run as the schedule would. Each draws from the
 * run's seeded random source.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type DlqDeps, type TriageSummary, triageDeadLetters } from '../../lambdas/core/dlq/index.js';
import { finalizeJob } from '../../lambdas/core/finalize/finalize.js';
import { sendFinalize } from '../../lambdas/core/finalize-queue.js';
import { isHoldStateError } from '../../lambdas/core/holds/errors.js';
import { cancelJob, type HoldDeps, pauseJob, resumeJob } from '../../lambdas/core/holds/pause.js';
import { intakeObject } from '../../lambdas/core/intake/intake.js';
import { routeToOwner } from '../../lambdas/core/intake/owner-route.js';
import type { S3ObjectRef } from '../../lambdas/core/intake/s3-event.js';
import {
  chunkMessagesOf,
  readStoredDocument,
  sendChunkMessages,
} from '../../lambdas/core/intake/stored-document.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { processChunk } from '../../lambdas/core/worker/process-chunk.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { finalizeDeps, intakeDeps, type RuntimeClients, workerDeps } from '../../lambdas/shared/runtime.js';
import type { ProvisionedResources } from '../../localstack/provision.js';
import type { LocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { type DeathPoint, isInvocationDied, mortalClients } from './mortal.js';

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
  /** Owner-routed intake messages sent a second time (the routing made again). */
  reroutes: number;
  /** Finalize messages sent a second time. */
  duplicateFinalizes: number;
  /**
   * Invocations run to die, by what they were: how many ran, and how many died (a death at a
   * landmark never comes when the invocation does not take its path).
   */
  dying: Record<DyingKind, { runs: number; died: number }>;
  /** What dying invocations threw other than their death (the first 20), for reading after a run. */
  dyingErrors: string[];
}

/** The invocations the soak runs to die. */
export type DyingKind = 'route' | 'intake' | 'finalize' | 'cancel' | 'pause' | 'resume';

export function emptyTally(): ChaosTally {
  return {
    workerKills: 0,
    workerCrashes: [],
    dyingInvocations: 0,
    duplicateChunks: 0,
    duplicateEvents: 0,
    triageRuns: 0,
    deadLetters: {},
    reroutes: 0,
    duplicateFinalizes: 0,
    dying: {
      route: { runs: 0, died: 0 },
      intake: { runs: 0, died: 0 },
      finalize: { runs: 0, died: 0 },
      cancel: { runs: 0, died: 0 },
      pause: { runs: 0, died: 0 },
      resume: { runs: 0, died: 0 },
    },
    dyingErrors: [],
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
    private readonly holds: HoldDeps,
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

  /**
   * The routing step made again for an upload: its owner's message reaches intake twice, or,
   * when the owner had a slot free, the upload is taken in twice.
   */
  async reroute(ref: S3ObjectRef): Promise<void> {
    await this.route(ref, this.pipeline.clients);
    this.tally.reroutes++;
  }

  /**
   * A routing of an upload that dies at `point` (after its HeadObject, its owner's slot read or
   * its SendMessage, or inside the intake of an owner with a slot free), and the event delivered
   * again, as SQS does once the dead invocation's visibility timeout runs out.
   */
  async dyingRoute(ref: S3ObjectRef, point: DeathPoint): Promise<void> {
    await this.runToDie('route', point, (clients) => this.route(ref, clients));
    await this.duplicateEvent({ ...ref, size: ref.size ?? 0 });
  }

  /**
   * An intake of an upload that dies at `point`: it may record the job, take a slot of its
   * owner or queue it, and send some of its chunk messages, and leave the rest to the
   * pipeline's own delivery of the same upload.
   */
  async dyingIntake(ref: S3ObjectRef, point: DeathPoint): Promise<void> {
    await this.runToDie('intake', point, (clients) =>
      intakeObject(ref, intakeDeps(loadConfig(this.pipeline.env), clients)),
    );
  }

  /**
   * A finalize of a job whose finalize is due, beside the pipeline's own (a finalize message
   * delivered twice), that dies at `point`: after it gave back the job's slot, or inside the
   * start of the owner's next queued job.
   */
  async dyingFinalize(jobId: string, point: DeathPoint): Promise<void> {
    await this.runToDie('finalize', point, (clients) =>
      finalizeJob(jobId, finalizeDeps(loadConfig(this.pipeline.env), clients)),
    );
  }

  /** A cancel, pause or resume that dies at `point` (the API's invocation died under the person). */
  async dyingHold(kind: 'cancel' | 'pause' | 'resume', jobId: string, point: DeathPoint): Promise<void> {
    await this.runToDie(kind, point, (clients) => {
      const deps = { ...this.holds, db: clients.db, s3: clients.s3, sqs: clients.sqs };
      if (kind === 'cancel') return cancelJob(jobId, 'cancelled by the soak', deps);
      if (kind === 'pause') return pauseJob(jobId, 'soak', deps);
      return resumeJob(jobId, deps);
    });
  }

  /** Sends a job's finalize message again: a duplicate delivery at the job's end. */
  async duplicateFinalize(jobId: string): Promise<void> {
    await sendFinalize(
      { sqs: this.pipeline.clients.sqs, finalizeQueueUrl: this.resources.queueUrls.finalize },
      jobId,
    );
    this.tally.duplicateFinalizes++;
  }

  /** What the intake handler does with an S3 event that waited: routes it, or takes it in now. */
  private async route(ref: S3ObjectRef, clients: RuntimeClients): Promise<void> {
    const deps = intakeDeps(loadConfig(this.pipeline.env), clients);
    const routing = await routeToOwner(ref, { ...deps, intakeQueueUrl: this.resources.queueUrls.intake });
    if (!routing.routed) await intakeObject(routing.upload, deps);
  }

  /** Runs `run` on clients that die at `point`, and counts what came of it. */
  private async runToDie(
    kind: DyingKind,
    point: DeathPoint,
    run: (clients: RuntimeClients) => Promise<unknown>,
  ): Promise<void> {
    const { clients, life } = mortalClients(this.pipeline.clients, point);
    const tally = this.tally.dying[kind];
    tally.runs++;
    try {
      await run(clients);
    } catch (error) {
      // A pause or resume the job's state refuses is the person's answer, not a fault.
      const expected = isInvocationDied(error) || isHoldStateError(error);
      if (!expected && this.tally.dyingErrors.length < 20)
        this.tally.dyingErrors.push(`${kind}: ${String(error)}`);
    }
    if (life.died) tally.died++;
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
