import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { checkPattern } from './checks.js';

/** Properties of {@link AlertsTopic}. */
export interface AlertsTopicProps {
  /** Topic name; take it from `topology().alertsTopicName`. */
  readonly topicName: string;
  /**
   * Key that encrypts alerts at rest. Pass one to share a key across stacks.
   * @default a new customer-managed key with yearly rotation, usable by CloudWatch alarms
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * What happens to the key this construct creates when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The SNS topic operators subscribe to for pipeline alerts (dead letters, failed jobs).
 *
 * Encrypted with a customer-managed key rather than `alias/aws/sns`: the AWS-managed key's
 * policy cannot be changed, so CloudWatch alarms could not publish to the topic.
 */
export class AlertsTopic extends Construct {
  readonly topic: sns.Topic;
  readonly encryptionKey: kms.IKey;

  constructor(scope: Construct, id: string, props: AlertsTopicProps) {
    super(scope, id);
    checkPattern(
      this,
      'AlertsTopic topicName',
      props.topicName,
      TOPIC_NAME,
      "be 1-256 characters of A-Z, a-z, 0-9, '_' and '-'",
    );
    this.encryptionKey = props.encryptionKey ?? this.createKey(props.removalPolicy ?? RemovalPolicy.RETAIN);
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: 'clause-review alerts',
      masterKey: this.encryptionKey,
      enforceSSL: true,
    });
  }

  private createKey(removalPolicy: RemovalPolicy): kms.Key {
    const key = new kms.Key(this, 'Key', {
      description: 'Encrypts clause-review alert notifications at rest',
      enableKeyRotation: true,
      removalPolicy,
    });
    // CloudWatch alarms publish through the service principal, which needs the key to do so.
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublishEncryptedAlerts',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    return key;
  }
}
