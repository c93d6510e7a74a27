import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { checkPattern } from './checks.js';
import type { TableSettings } from './topology.js';

/** Properties of {@link StateTable}. */
export interface StateTableProps {
  /** Name, keys, TTL attribute and indexes; take them from `topology().table`. */
  readonly settings: TableSettings;
  /**
   * What happens to the table (jobs, checkpoints, the call ledger) when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Refuse `DeleteTable` until this is switched off again.
   * @default true when the removal policy is RETAIN, else false
   */
  readonly deletionProtection?: boolean;
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/**
 * The single DynamoDB table holding jobs, chunk-stage checkpoints, the call ledger and DLQ
 * records. On-demand capacity (load is bursty: idle, then thousands of calls per job),
 * point-in-time recovery, encryption with the AWS-managed key, TTL on `expiresAt`.
 */
export class StateTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: StateTableProps) {
    super(scope, id);
    const { settings } = props;
    checkPattern(
      this,
      'StateTable name',
      settings.name,
      TABLE_NAME,
      "be 3-255 characters of A-Z, a-z, 0-9, '_', '-' and '.'",
    );
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const string = dynamodb.AttributeType.STRING;
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: settings.name,
      partitionKey: { name: settings.partitionKey, type: string },
      sortKey: { name: settings.sortKey, type: string },
      timeToLiveAttribute: settings.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection ?? removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    for (const index of settings.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: string },
        sortKey: { name: index.sortKey, type: string },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
  }
}

/**
 * The item-level actions the pipeline's handlers use (get, put, update, delete, query and the
 * transactional condition check), on the table itself only. Unlike `grantReadWriteData` it
 * leaves out Scan, streams and the indexes: the handlers query by key, and only the sweeper
 * and status listings, which get their own grant, read the byStatus index.
 */
export function grantItemAccess(table: dynamodb.ITable, grantee: iam.IGrantable): iam.Grant {
  return iam.Grant.addToPrincipal({
    grantee,
    actions: [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
    ],
    resourceArns: [table.tableArn],
  });
}
