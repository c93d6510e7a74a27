import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../state/query-all.js';
import { conditionHeld } from '../state/transact.js';

/** What triage decided about a dead letter. */
export type TriageDecision = 'redriven' | 'dead' | 'discarded' | 'kept';

/** A DLQ record item: what triage saw and decided, for failure-rate queries by analyst and class. */
export interface DeadLetterRecord {
  readonly at: string;
  readonly queue: string;
  readonly messageId: string;
  readonly jobId?: string;
  readonly chunk?: number;
  readonly stage?: string;
  readonly clauseId?: string;
  readonly analystId?: string;
  readonly errorClass: string;
  readonly decision: TriageDecision;
  readonly reason: string;
  readonly lastError?: string;
  readonly attempts?: number;
  readonly redrives?: number;
  readonly receiveCount: number;
  readonly sentAt: string;
  readonly bodyPreview: string;
}

/** Partition of a day's DLQ records. */
export const dlqPk = (at: string) => `DLQ#${at.slice(0, 10)}`;
/** Sort key of a record: time first, so a Query on a time range finds the last hour. */
export const dlqSk = (r: Pick<DeadLetterRecord, 'at' | 'queue' | 'messageId'>) =>
  `${r.at}#${r.queue}#${r.messageId}`;
/** Sort key of the once-per-hour escalation marker. */
export const escalationSk = (at: string) => `ESCALATION#${at.slice(0, 13)}`;

/** How long DLQ records are kept (DynamoDB TTL). */
const RECORD_TTL_SECONDS = 90 * 86_400;

/** Writes DLQ records and answers "how many in the last hour". */
export class DeadLetterRecords {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: DeadLetterRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: dlqPk(record.at),
          sk: dlqSk(record),
          recordType: 'dead-letter',
          ...record,
          expiresAt: Math.floor(Date.parse(record.at) / 1000) + RECORD_TTL_SECONDS,
        },
      }),
    );
  }

  /** Records (not `discarded` duplicates) written between `from` and `to` (ISO). */
  async between(from: string, to: string): Promise<DeadLetterRecord[]> {
    const days = [...new Set([dlqPk(from), dlqPk(to)])];
    const out: DeadLetterRecord[] = [];
    for (const pk of days) {
      const records = await queryAll<DeadLetterRecord>(this.db, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: 'decision <> :discarded',
        ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': `${to}~`, ':discarded': 'discarded' },
        ConsistentRead: true,
      });
      out.push(...records);
    }
    return out;
  }

  /** Claims the escalation of the hour `at` falls in; true once per clock hour. */
  async claimEscalation(at: string, count: number): Promise<boolean> {
    return conditionHeld(() =>
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: dlqPk(at),
            sk: escalationSk(at),
            recordType: 'escalation',
            at,
            count,
            expiresAt: Math.floor(Date.parse(at) / 1000) + RECORD_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }
}
