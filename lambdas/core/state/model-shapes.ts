/**
 * What the stack learned of each model's answer to the workers' request (model-shape.ts), kept
 * once per model and request shape (`MODEL#<model id>` / `SHAPE`): the first intake that finds no
 * record claims it, sends the request and records the answer; every later one reads it. A
 * claim that never recorded (its intake died) is taken over after a while.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { modelLimitPk } from './keys.js';
import { conditionHeld } from './transact.js';

/** Sort key of a model's recorded shape check. */
export const MODEL_SHAPE_SK = 'SHAPE';

/** One model's recorded check. */
export interface ShapeRecord {
  readonly modelId: string;
  /** The request shape it was checked with: a check of another shape is made again. */
  readonly shape: string;
  /** `checking` while a claim waits for its probe's answer. */
  readonly state: 'checking' | 'served' | 'refused' | 'unchecked';
  readonly checkedAt: string;
  readonly endpoint?: string;
  readonly error?: { readonly name: string; readonly message: string };
  /** For a refusal: what to do about it. */
  readonly fix?: string;
}

/** How long a claim, or an answer that said nothing either way, stands before the check is made again. */
const RECHECK_MS = 10 * 60_000;

/** The recorded checks: read one, claim one, record one. */
export class ModelShapes {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  private key(modelId: string) {
    return { pk: modelLimitPk(modelId), sk: MODEL_SHAPE_SK };
  }

  /** The model's record for this shape, when there is one. */
  async read(modelId: string, shape: string): Promise<ShapeRecord | undefined> {
    const r = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: this.key(modelId), ConsistentRead: true }),
    );
    const item = r.Item as ShapeRecord | undefined;
    return item?.shape === shape ? item : undefined;
  }

  /**
   * Claims the check of `modelId` for this shape: true when this caller is to send the request.
   * Refused while another's claim is fresh, or once an answer is recorded for the shape (unless
   * it said nothing either way and has grown old).
   */
  async claim(modelId: string, shape: string): Promise<boolean> {
    const now = this.now();
    return conditionHeld(() =>
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.key(modelId),
            modelId,
            shape,
            state: 'checking',
            checkedAt: new Date(now).toISOString(),
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR #shape <> :shape OR (#state IN (:checking, :unchecked) AND checkedAt < :stale)',
          ExpressionAttributeNames: { '#shape': 'shape', '#state': 'state' },
          ExpressionAttributeValues: {
            ':shape': shape,
            ':checking': 'checking',
            ':unchecked': 'unchecked',
            ':stale': new Date(now - RECHECK_MS).toISOString(),
          },
        }),
      ),
    );
  }

  /** Records the answer of a claimed check. */
  async record(record: Omit<ShapeRecord, 'checkedAt'>): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...this.key(record.modelId), ...record, checkedAt: new Date(this.now()).toISOString() },
      }),
    );
  }
}
