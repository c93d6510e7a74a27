/**
 * What the status API's function may do, and nothing more: job partitions, owners' counts,
 * playbooks and callers' budgets in the table, each by its partition keys; uploads under the
 * intake prefix; reports, held findings and stored documents in the results bucket; messages to
 * the lanes and to finalize; and two reads of the stack's user pool.
 */
import { Validations } from 'aws-cdk-lib';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  CALLER_RATE_PREFIX,
  LANES,
  OWNER_INDEX,
  OWNER_SLOTS_PREFIX,
  PLAYBOOK_KEY_PREFIX,
  STATUS_INDEX,
} from '../lambdas/stack-interface.js';
import { bucketLogicalId } from './bucket-logical-id.js';
import { WORK_PREFIX } from './pipeline-functions.js';
import type { QueueRole, Topology } from './topology.js';

/** What the grants name: the resources the status API reaches. */
export interface StatusApiResources {
  readonly topology: Topology;
  readonly table: dynamodb.ITable;
  readonly intakeBucket: s3.IBucket;
  readonly resultsBucket: s3.IBucket;
  readonly queues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /** @default none: no read of a user pool */
  readonly userPool?: cognito.IUserPool;
}

/**
 * What the API's role may do: job partitions only in the table; uploads under the intake
 * prefix and the listing that finds them; reports, held findings and (to resume) stored
 * documents in the results bucket; messages to the lanes and to finalize.
 */
export function grantStatusApiAccess(role: iam.Role, props: StatusApiResources): void {
  const t = props.topology;
  grantTableAccess(role, props);
  const intakePrefix = t.buckets.intake.prefix;
  const resultsPrefix = t.buckets.results.prefix;
  // A presigned upload (a POST policy) or URL carries the signer's permissions: PutObject lets
  // callers upload under the intake prefix only, GetObject lets them download reports only.
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['s3:PutObject'],
      resources: [props.intakeBucket.arnForObjects(`${intakePrefix}*`)],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [props.resultsBucket.arnForObjects(`${resultsPrefix}*`)],
    }),
  );
  // Resume rebuilds the chunk messages of a paused job from its stored document. The API
  // presigns report keys only, so no caller can reach these through a URL.
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [props.resultsBucket.arnForObjects(`${WORK_PREFIX}*`)],
    }),
  );
  for (const queue of [...LANES, 'finalize'] as const) props.queues[queue].grantSendMessages(role);
  // The decision trail names a person by the email their user pool holds: ListUsers (filtered
  // by the caller's `sub`) on the stack's own pool. An escalated finding is decided by the
  // members of its approver group: AdminListGroupsForUser of that person, kept a few seconds,
  // so a removal from a group counts within them (a token's `cognito:groups` would last until
  // it expires). Nothing else of the pool.
  if (props.userPool) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['cognito-idp:ListUsers', 'cognito-idp:AdminListGroupsForUser'],
        resources: [props.userPool.userPoolArn],
      }),
    );
  }
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucketVersions'],
      resources: [props.intakeBucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${intakePrefix}s-*`] } },
    }),
  );
  for (const [bucket, prefix, what] of [
    [props.intakeBucket, intakePrefix, 'presigns uploads'],
    [props.resultsBucket, resultsPrefix, 'presigns report downloads and reads held findings'],
    [props.resultsBucket, WORK_PREFIX, "reads a paused job's stored document to resume it"],
  ] as const) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/${prefix}*]`,
      reason:
        `The status API ${what}: object-level S3 actions need an object ARN pattern, and this one is confined ` +
        `to the '${prefix}' prefix of a bucket this stack owns; the keys (submission and job ids) exist only at run time.`,
    });
  }
}

/** What the API's role may do in the table: each kind of item by its partition keys, and two indexes. */
function grantTableAccess(role: iam.Role, props: StatusApiResources): void {
  // Job partitions only (partition keys JOB#…): GetItem for status; the conditional UpdateItems
  // of cancel, pause and resume; Query of a job's checkpoints (resume) and review trail;
  // PutItem of a reviewer's decision, appended to the trail.
  // BatchGetItem reads the assessments of consolidated chunks for GET /jobs/{id}/findings?after=.
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
      ],
      resources: [props.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#*'] } },
    }),
  );
  // GET /jobs: a Query of the jobs-by-owner index, and of no other index. The index holds job
  // items only; which owner's partition is read is the API's rule (the caller's own names).
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${props.table.tableArn}/index/${OWNER_INDEX}`],
    }),
  );
  // Admission control (docs/capacity.md): a cancel or pause of a job holding one of its owner's
  // slots gives the slot back on the owner's item in the same transaction, then starts the
  // owner's oldest queued job, found on the jobs-by-status index.
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [props.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${OWNER_SLOTS_PREFIX}*`] } },
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${props.table.tableArn}/index/${STATUS_INDEX}`],
    }),
  );
  // Playbooks (partition keys PLAYBOOK#<name> and PLAYBOOKS): GetItem and Query to list and read
  // them; PutItem for an administrator's put, a transaction of two conditional puts whose
  // permission is PutItem's (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
      resources: [props.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PLAYBOOK_KEY_PREFIX}*`] } },
    }),
  );
  // Each caller's budget of the costly routes: one conditional UpdateItem on the caller's own
  // items (partition keys RATE#…), and nothing else of them.
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [props.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CALLER_RATE_PREFIX}*`] } },
    }),
  );
}
