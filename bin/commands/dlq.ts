import { parseArgs } from 'node:util';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type DeadLetterRow,
  type DlqDeps,
  listDeadLetters,
  type RedriveFilter,
  redriveDeadLetters,
  triageDeadLetters,
} from '../../lambdas/core/dlq/index.js';
import type { ErrorClass } from '../../lambdas/core/state/claims.js';
import type { ProvisionedResources } from '../../localstack/provision.js';

/** The clients and resources `dlq` works with (the CLI's local stack, or a deployed stack's outputs). */
export interface DlqCommandContext {
  readonly clients: {
    readonly sqs: SQSClient;
    readonly sns: SNSClient;
    /** The document client, under either name the CLI's client sets use. */
    readonly db?: DynamoDBDocumentClient;
    readonly documents?: DynamoDBDocumentClient;
  };
  readonly resources: Pick<
    ProvisionedResources,
    'queueUrls' | 'dlqUrls' | 'dlqArns' | 'tableName' | 'alertsTopicArn'
  >;
  /** Where output goes. @default console.log */
  readonly print?: (line: string) => void;
}

const USAGE = `Usage:
  clause-review dlq ls                               list dead letters: job, chunk, class, last error, age
  clause-review dlq redrive [--class C] [--job ID]   move dead letters back to their source queues
  clause-review dlq triage                           classify, redrive or mark dead, record and alert`;

const CLASSES: readonly ErrorClass[] = ['transient', 'infrastructure', 'validation', 'logic'];

/** Dependencies of the DLQ core from a command context. */
export function dlqDepsOf(ctx: DlqCommandContext): DlqDeps {
  const db = ctx.clients.db ?? ctx.clients.documents;
  if (!db) throw new Error('dlq needs a DynamoDB document client (clients.db or clients.documents)');
  return {
    db,
    sqs: ctx.clients.sqs,
    sns: ctx.clients.sns,
    tableName: ctx.resources.tableName,
    alertsTopicArn: ctx.resources.alertsTopicArn,
    queueUrls: ctx.resources.queueUrls,
    dlqUrls: ctx.resources.dlqUrls,
    dlqArns: ctx.resources.dlqArns,
  };
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/** Renders rows as a fixed-width table. */
export function formatDeadLetters(rows: readonly DeadLetterRow[]): string {
  const header = ['QUEUE', 'JOB', 'CHUNK', 'CLASS', 'AGE', 'LAST ERROR'];
  const lines = rows.map((r) => [
    r.queue,
    r.jobId ?? '-',
    r.chunk === undefined ? '-' : String(r.chunk),
    r.errorClass,
    age(r.ageSeconds),
    (r.lastError ?? '-').replace(/\s+/g, ' ').slice(0, 80),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  return [header, ...lines]
    .map((cols) =>
      cols
        .map((c, i) => (i === cols.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * `clause-review dlq …`: list, redrive and triage dead letters. Returns the exit code
 * (0 success, 2 usage error).
 */
export async function dlqCommand(argv: string[], ctx: DlqCommandContext): Promise<number> {
  const print = ctx.print ?? ((line: string) => console.log(line));
  const [sub, ...rest] = argv;
  let values: { class?: string; job?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { class: { type: 'string' }, job: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
    }));
  } catch (error) {
    print(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help || !sub) {
    print(USAGE);
    return sub ? 0 : 2;
  }
  const deps = dlqDepsOf(ctx);
  switch (sub) {
    case 'ls':
    case 'list': {
      const rows = await listDeadLetters(deps);
      print(rows.length === 0 ? 'no dead letters' : formatDeadLetters(rows));
      return 0;
    }
    case 'redrive': {
      if (values.class !== undefined && !CLASSES.includes(values.class as ErrorClass)) {
        print(`error: --class must be one of ${CLASSES.join(', ')}; got '${values.class}'`);
        return 2;
      }
      const filter: RedriveFilter = {
        ...(values.class ? { errorClass: values.class as ErrorClass } : {}),
        ...(values.job ? { jobId: values.job } : {}),
      };
      const results = await redriveDeadLetters(deps, filter);
      for (const r of results) {
        print(
          `${r.queue}: ${r.method}${r.moved === undefined ? '' : `, ${r.moved} moved`}${r.taskHandle ? ` (task ${r.taskHandle})` : ''}`,
        );
      }
      return 0;
    }
    case 'triage': {
      const summary = await triageDeadLetters(deps);
      print(`${summary.seen} dead letter(s) seen${summary.escalated ? '; escalation alert sent' : ''}`);
      for (const d of summary.decisions) {
        print(
          `${d.queue} ${d.jobId ?? '-'} chunk ${d.chunk ?? '-'}: ${d.errorClass} → ${d.decision} (${d.reason})`,
        );
      }
      return 0;
    }
    default:
      print(`error: unknown dlq command '${sub}'\n${USAGE}`);
      return 2;
  }
}
