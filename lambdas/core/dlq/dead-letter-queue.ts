import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** A message received from a DLQ, held invisible until deleted or released. */
export interface DeadLetter {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, MessageAttributeValue>>;
  /** When the message was first sent to its source queue (epoch ms). */
  readonly sentAt: number;
  readonly receiveCount: number;
  /** The message's MessageGroupId (a chunk message's owner, its tenant on a fair queue), if any. */
  readonly groupId?: string;
}

/** Message attribute counting redrives of messages that have no checkpoint (intake, finalize). */
export const REDRIVES_ATTRIBUTE = 'clause-review-redrives';

function toDeadLetter(m: Message): DeadLetter {
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: m.MessageAttributes ?? {},
    sentAt: Number(m.Attributes?.SentTimestamp ?? Date.now()),
    receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? '1'),
    ...(m.Attributes?.MessageGroupId ? { groupId: m.Attributes.MessageGroupId } : {}),
  };
}

/**
 * Receives up to `max` messages of a DLQ, each held invisible for `holdSeconds` so one pass
 * sees each message once. The caller deletes or releases every one.
 */
export async function receiveAll(
  sqs: SQSClient,
  queueUrl: string,
  options: { max?: number; holdSeconds?: number } = {},
): Promise<DeadLetter[]> {
  const max = options.max ?? 500;
  const out: DeadLetter[] = [];
  let empty = 0;
  // SQS short polls sample servers: an empty answer may hide messages, so two in a row end it.
  while (out.length < max && empty < 2) {
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, max - out.length),
        WaitTimeSeconds: empty === 0 ? 0 : 1,
        VisibilityTimeout: options.holdSeconds ?? 120,
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount', 'MessageGroupId'],
        MessageAttributeNames: ['All'],
      }),
    );
    const got = r.Messages ?? [];
    if (got.length === 0) empty++;
    else empty = 0;
    out.push(...got.map(toDeadLetter));
  }
  return out;
}

/** Makes a held message visible again at once. */
export async function release(sqs: SQSClient, queueUrl: string, m: DeadLetter): Promise<void> {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: m.receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
}

/** Deletes a held message. */
export async function remove(sqs: SQSClient, queueUrl: string, m: DeadLetter): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.receiptHandle }));
}

/**
 * Moves one message back to its source queue: the body is sent unchanged (it carries the job
 * identity the call ledger is keyed on), its attributes and MessageGroupId (its owner's tenant on
 * the lane's fair queue) are kept with the redrive count raised, and only then is the dead
 * letter deleted. A crash in between leaves a duplicate,
 * which claims make harmless, never a loss.
 */
export async function moveBack(
  sqs: SQSClient,
  dlqUrl: string,
  sourceUrl: string,
  m: DeadLetter,
): Promise<void> {
  const redrives = Number(m.attributes[REDRIVES_ATTRIBUTE]?.StringValue ?? '0') + 1;
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: sourceUrl,
      MessageBody: m.body,
      ...(m.groupId ? { MessageGroupId: m.groupId } : {}),
      MessageAttributes: {
        ...m.attributes,
        [REDRIVES_ATTRIBUTE]: { DataType: 'Number', StringValue: String(redrives) },
      },
    }),
  );
  await remove(sqs, dlqUrl, m);
}

/** Redrives recorded on a message by {@link moveBack}. */
export function redrivesOf(m: DeadLetter): number {
  return Number(m.attributes[REDRIVES_ATTRIBUTE]?.StringValue ?? '0');
}
