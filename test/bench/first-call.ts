/**
 * The steps from an upload to its first model request, read from the requests the pipeline's own
 * SDK clients make: when the S3 event reached intake, when the upload was routed to its owner and
 * came back, when intake read it, stored the parsed document (the parse ends just before), wrote
 * the checkpoints and sent the chunk messages, when a worker received a chunk and won its claim,
 * wrote the chunk's intents, read the job's status (its first permit), and sent the first request.
 * Each step is the first request of its kind, timed from the upload.
 */

import type { RuntimeClients } from '../../lambdas/shared/runtime.js';
import type { ProvisionedResources } from '../../localstack/provision.js';

/** The steps, in the order they happen. */
export const FIRST_CALL_STEPS = [
  ['s3-event', 'S3 event received by intake'],
  ['routed', 'upload routed to its owner (SendMessage answered)'],
  ['routed-received', 'routed message received'],
  ['read', 'upload read (GetObject answered)'],
  ['job-recorded', 'job recorded'],
  ['parsed', 'parsed (document stored: PutObject sent)'],
  ['checkpoints', 'checkpoints written'],
  ['chunks-sent', 'chunk messages sent (first batch answered)'],
  ['chunk-received', 'first chunk message received'],
  ['claimed', 'first claim won'],
  ['intents', 'first intents written'],
  ['permit', "first permit's status read sent"],
  ['request', 'first model request sent'],
  ['answer', 'first model answer'],
] as const;

export type FirstCallStep = (typeof FIRST_CALL_STEPS)[number][0];

/** Milliseconds from the upload to each step seen. */
export type FirstCallTrace = Partial<Record<FirstCallStep, number>>;

type Input = Record<string, unknown>;

/** A key attribute as the document client or the low-level client holds it. */
function attribute(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const s = (value as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

function sortKey(input: Input): string | undefined {
  const key = (input.Key ?? input.Item) as { sk?: unknown } | undefined;
  return attribute(key?.sk);
}

function bodies(output: unknown): string[] {
  const messages = (output as { Messages?: { Body?: string }[] } | undefined)?.Messages ?? [];
  return messages.map((m) => m.Body ?? '');
}

/**
 * Watches the clients and records, from `start()`, the first moment of each step.
 *
 * @example
 * ```ts
 * const trace = watchFirstCall(pipeline.clients, stack.resources);
 * trace.start();
 * // … upload, wait for the job …
 * console.log(formatFirstCall(trace.steps()));
 * ```
 */
export function watchFirstCall(
  clients: Pick<RuntimeClients, 'db' | 'sqs' | 's3' | 'bedrock'>,
  resources: Pick<ProvisionedResources, 'queueUrls' | 'intakeBucket' | 'resultsBucket'>,
): { start(): void; steps(): FirstCallTrace } {
  let origin = Number.NaN;
  const seen: FirstCallTrace = {};
  const mark = (step: FirstCallStep) => {
    if (!Number.isNaN(origin) && seen[step] === undefined) seen[step] = performance.now() - origin;
  };
  const laneUrls = new Set<string>([resources.queueUrls.realtime, resources.queueUrls.batch]);
  const watch = (
    client: { middlewareStack: { add: (...args: never[]) => unknown } },
    name: string,
    before: (command: string, input: Input) => FirstCallStep | undefined,
    after: (command: string, input: Input, output: unknown) => FirstCallStep | undefined,
  ) => {
    const add = client.middlewareStack.add as unknown as (
      mw: (
        next: (args: { input: unknown }) => Promise<{ output: unknown }>,
        context: { commandName?: string },
      ) => (args: { input: unknown }) => Promise<{ output: unknown }>,
      options: { step: 'initialize'; name: string },
    ) => void;
    add(
      (next, context) => async (args) => {
        const command = String(context.commandName ?? '');
        const input = args.input as Input;
        const early = before(command, input);
        if (early) mark(early);
        const result = await next(args);
        const late = after(command, input, result.output);
        if (late) mark(late);
        return result;
      },
      { step: 'initialize', name },
    );
  };
  watch(
    clients.sqs,
    'benchFirstCallSqs',
    () => undefined,
    (command, input, output) => {
      const url = input.QueueUrl;
      if (command === 'ReceiveMessageCommand' && url === resources.queueUrls.intake) {
        const received = bodies(output);
        if (received.some((b) => b.includes('"intakeObject"'))) return 'routed-received';
        if (received.some((b) => b.includes('"Records"'))) return 's3-event';
      }
      if (command === 'SendMessageCommand' && url === resources.queueUrls.intake) return 'routed';
      if (command === 'SendMessageBatchCommand' && laneUrls.has(String(url))) return 'chunks-sent';
      if (command === 'ReceiveMessageCommand' && laneUrls.has(String(url)) && bodies(output).length > 0)
        return 'chunk-received';
      return undefined;
    },
  );
  watch(
    clients.s3,
    'benchFirstCallS3',
    (command, input) =>
      command === 'PutObjectCommand' && input.Bucket === resources.resultsBucket ? 'parsed' : undefined,
    (command, input) =>
      command === 'GetObjectCommand' && input.Bucket === resources.intakeBucket ? 'read' : undefined,
  );
  watch(
    clients.db,
    'benchFirstCallDb',
    (command, input) =>
      command === 'GetItemCommand' && sortKey(input) === 'JOB' && seen.intents !== undefined
        ? 'permit'
        : undefined,
    (command, input) => {
      const sk = sortKey(input);
      if (
        (command === 'PutItemCommand' || command === 'TransactWriteItemsCommand') &&
        seen.read !== undefined
      )
        return seen['job-recorded'] === undefined && (sk === 'JOB' || command === 'TransactWriteItemsCommand')
          ? 'job-recorded'
          : undefined;
      if (command === 'BatchWriteItemCommand') {
        const text = JSON.stringify(input.RequestItems ?? {});
        if (text.includes('CALL#')) return 'intents';
        if (text.includes('CHUNK#')) return 'checkpoints';
      }
      if (command === 'PutItemCommand' && sk?.startsWith('CHUNK#')) return 'checkpoints';
      if (command === 'UpdateItemCommand' && sk?.startsWith('CHUNK#') && seen['chunk-received'] !== undefined)
        return 'claimed';
      return undefined;
    },
  );
  watch(
    clients.bedrock,
    'benchFirstCallBedrock',
    (command) => (command === 'ConverseCommand' ? 'request' : undefined),
    (command) => (command === 'ConverseCommand' ? 'answer' : undefined),
  );
  return {
    start() {
      origin = performance.now();
    },
    steps: () => ({ ...seen }),
  };
}

/** The steps as lines: time from the upload and from the step before. */
export function formatFirstCall(trace: FirstCallTrace): string {
  let previous = 0;
  const lines: string[] = [];
  for (const [step, label] of FIRST_CALL_STEPS) {
    const at = trace[step];
    if (at === undefined) continue;
    lines.push(`    ${label.padEnd(52)} ${(at / 1000).toFixed(3)} s  (+${Math.round(at - previous)} ms)`);
    previous = at;
  }
  return lines.join('\n');
}
