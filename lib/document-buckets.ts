import { Duration, FeatureFlags, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { Construct, type IConstruct } from 'constructs';
import { checkPattern, checkRange } from './checks.js';
import { ValidationError } from './errors.js';
import type { BucketSettings, IntakeNotificationSettings } from './topology.js';

/** Properties of {@link DocumentBuckets}. */
export interface DocumentBucketsProps {
  /** Bucket names and prefixes; take them from `topology({ bucketSuffix }).buckets`. */
  readonly settings: BucketSettings;
  /**
   * Queue that receives the intake bucket's object-created events, filtered as `notification` says.
   * @default no notification
   */
  readonly intakeQueue?: sqs.IQueue;
  /**
   * Which events reach `intakeQueue`, under which key prefix; take it from `topology().intakeNotification`.
   * @default object-created events under the intake prefix
   */
  readonly notification?: IntakeNotificationSettings;
  /**
   * Days contracts (intake bucket), work files (`work/`) and reports (results bucket) are kept
   * after they were written; S3 lifecycle rules then expire them. On the versioned intake bucket
   * an expired upload becomes a noncurrent version and is deleted `noncurrentVersionDays` later.
   * @default 90
   */
  readonly retentionDays?: number;
  /**
   * Days a replaced, deleted or expired upload stays recoverable as a noncurrent version of the intake bucket.
   * @default 30
   */
  readonly noncurrentVersionDays?: number;
  /**
   * Days the server access logs are kept.
   * @default 90
   */
  readonly accessLogDays?: number;
  /**
   * What happens to the buckets when the stack is deleted (a bucket must be empty to be deleted).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** How long contracts, work files and reports are kept unless `retentionDays` says otherwise. */
export const DEFAULT_RETENTION_DAYS = 90;

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const EVENT_TYPES = new Set<string>(Object.values(s3.EventType));

function checkBucketName(scope: IConstruct, role: string, name: string): void {
  // Names holding tokens (account, region) are checked by S3 at deploy time.
  checkPattern(
    scope,
    `DocumentBuckets ${role} bucket name`,
    name,
    BUCKET_NAME,
    "be 3-63 characters of a-z, 0-9, '.' and '-'",
  );
}

function checkDays(scope: IConstruct, name: string, value: number): number {
  return checkRange(scope, `DocumentBuckets ${name}`, value, { min: 1, max: 3650 });
}

/**
 * The intake bucket users drop contracts into and the results bucket the pipeline writes to
 * (normalised documents under `work/`, reports under the results prefix), plus a bucket for
 * their server access logs. All block public access, require TLS and encrypt with S3-managed
 * keys; the intake bucket is versioned, so a job always names the exact upload it reviewed.
 */
export class DocumentBuckets extends Construct {
  readonly intakeBucket: s3.Bucket;
  readonly resultsBucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: DocumentBucketsProps) {
    super(scope, id);
    const { settings } = props;
    // Without the flag, S3 delivers access logs through the bucket ACL, which the buckets here
    // disable (object ownership BucketOwnerEnforced) so that only bucket policies grant access.
    if (!FeatureFlags.of(this).isEnabled(cxapi.S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY)) {
      throw new ValidationError(
        'MissingFeatureFlag',
        `DocumentBuckets needs the feature flag '${cxapi.S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY}' set to true ` +
          '(cdk.json context); got it unset or false',
        this,
      );
    }
    checkBucketName(this, 'intake', settings.intake.name);
    checkBucketName(this, 'results', settings.results.name);
    const noncurrentDays = checkDays(this, 'noncurrentVersionDays', props.noncurrentVersionDays ?? 30);
    const accessLogDays = checkDays(this, 'accessLogDays', props.accessLogDays ?? 90);
    const retention = Duration.days(
      checkDays(this, 'retentionDays', props.retentionDays ?? DEFAULT_RETENTION_DAYS),
    );
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const common = {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    } as const;
    const abortUploads = { abortIncompleteMultipartUploadAfter: Duration.days(7) };

    // The log destination logs nowhere itself (that would log every log delivery); cdk-nag
    // recognises a bucket other buckets log to and does not ask for its own access logs.
    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      ...common,
      lifecycleRules: [{ ...abortUploads, expiration: Duration.days(accessLogDays) }],
    });
    this.intakeBucket = new s3.Bucket(this, 'Intake', {
      ...common,
      bucketName: settings.intake.name,
      versioned: settings.intake.versioned,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'intake/',
      lifecycleRules: [
        {
          id: 'ExpireContracts',
          ...abortUploads,
          expiration: retention,
          noncurrentVersionExpiration: Duration.days(noncurrentDays),
        },
        // S3 takes an expired-delete-marker cleanup only in a rule without an expiration age.
        { id: 'RemoveExpiredDeleteMarkers', expiredObjectDeleteMarker: true },
      ],
    });
    this.resultsBucket = new s3.Bucket(this, 'Results', {
      ...common,
      bucketName: settings.results.name,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'results/',
      // Work files (`work/`) and reports alike; should the bucket ever be versioned, old
      // versions go a day after they stop being current.
      lifecycleRules: [
        {
          id: 'ExpireWorkFilesAndReports',
          ...abortUploads,
          expiration: retention,
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
    });

    if (props.intakeQueue) {
      const notification = props.notification ?? {
        events: [s3.EventType.OBJECT_CREATED],
        prefix: settings.intake.prefix,
      };
      if (notification.events.length === 0) {
        throw new ValidationError(
          'Empty',
          'DocumentBuckets notification.events must name at least one S3 event type; got none',
          this,
        );
      }
      const destination = new s3n.SqsDestination(props.intakeQueue);
      for (const event of notification.events) {
        if (!EVENT_TYPES.has(event)) {
          throw new ValidationError(
            'BadValue',
            `DocumentBuckets notification event must be an S3 event type such as 's3:ObjectCreated:*'; got '${event}'`,
            this,
          );
        }
        this.intakeBucket.addEventNotification(event as s3.EventType, destination, {
          prefix: notification.prefix,
        });
      }
    }
  }
}
