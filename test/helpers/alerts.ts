import { type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DlqDeps } from '../../lambdas/core/dlq/index.js';
import type { TestStack } from './local-aws.js';

/** An alert as published to the alerts topic: subject and the parsed JSON context. */
export interface Alert {
  readonly subject: string;
  readonly context: Record<string, unknown>;
}

/** Subscribes a fresh SQS queue to the stack's alerts topic, so a test can read what was published. */
export async function subscribeToAlerts(
  stack: TestStack,
  sqs: SQSClient,
  sns: SNSClient,
): Promise<{ take(): Promise<Alert[]> }> {
  const created = await sqs.send(
    new CreateQueueCommand({ QueueName: `${stack.resources.prefix}-alerts-tap` }),
  );
  const queueUrl = created.QueueUrl ?? '';
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  await sns.send(
    new SubscribeCommand({
      TopicArn: stack.resources.alertsTopicArn,
      Protocol: 'sqs',
      Endpoint: attrs.Attributes?.QueueArn ?? '',
    }),
  );
  return {
    /** Every alert delivered so far (removed from the tap queue). */
    async take() {
      const out: Alert[] = [];
      for (let empty = 0; empty < 2; ) {
        const r = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (!r.Messages?.length) {
          empty++;
          continue;
        }
        for (const m of r.Messages) {
          const envelope = JSON.parse(m.Body ?? '{}') as { Subject?: string; Message?: string };
          out.push({ subject: envelope.Subject ?? '', context: JSON.parse(envelope.Message ?? '{}') });
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
        }
      }
      return out;
    },
  };
}

/** DLQ core dependencies for a provisioned test stack. */
export function testDlqDeps(stack: TestStack, extra: Partial<DlqDeps> = {}): DlqDeps {
  return {
    db: stack.clients.documents,
    sqs: stack.clients.sqs,
    sns: stack.clients.sns,
    tableName: stack.resources.tableName,
    alertsTopicArn: stack.resources.alertsTopicArn,
    queueUrls: stack.resources.queueUrls,
    dlqUrls: stack.resources.dlqUrls,
    dlqArns: stack.resources.dlqArns,
    ...extra,
  };
}
