import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { messageGroupOf, UNOWNED_GROUP } from '../../../lambdas/core/intake/message-group.js';
import { sendChunkMessages } from '../../../lambdas/core/intake/stored-document.js';
import type { ChunkMessage } from '../../../lambdas/core/worker/chunk-message.js';
import { inFlightPeak } from '../../helpers/in-flight.js';

const sqs = mockClient(SQSClient);
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/realtime';

const messages = (n: number): ChunkMessage[] =>
  Array.from({ length: n }, (_, chunk) => ({ v: 1, jobId: 'j-1', chunk, lane: 'realtime', clauses: [] }));

const sent = () =>
  sqs.commandCalls(SendMessageBatchCommand).map((c) => (c.args[0].input.Entries ?? []).map((e) => e.Id));

beforeEach(() => sqs.reset());

describe('sendChunkMessages', () => {
  it('sends every chunk once, ten to a request: the first request alone, then the rest together', async () => {
    const order: string[] = [];
    const send = inFlightPeak((input: { Entries?: { Id?: string }[] }) => {
      order.push(`sent ${input.Entries?.[0]?.Id}`);
      return { Successful: [], Failed: [] };
    });
    sqs.on(SendMessageBatchCommand).callsFake(async (input) => {
      const answer = await send.fake(input);
      order.push(`answered ${input.Entries?.[0]?.Id}`);
      return answer;
    });
    await sendChunkMessages(new SQSClient({}), QUEUE, messages(35), 'arn:aws:iam::1:user/alice');
    expect(sent().map((ids) => ids.length)).toEqual([10, 10, 10, 5]);
    expect(sent().flat()).toEqual(Array.from({ length: 35 }, (_, i) => String(i)));
    // Workers can start on the first ten chunks before the rest are sent.
    expect(order.slice(0, 3)).toEqual(['sent 0', 'answered 0', 'sent 10']);
    expect(send.peak()).toBe(3);
    const body = JSON.parse(
      sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[3]?.MessageBody ?? '',
    );
    expect(body).toMatchObject({ jobId: 'j-1', chunk: 3, lane: 'realtime' });
    const groups = sqs.commandCalls(SendMessageBatchCommand).flatMap((c) => c.args[0].input.Entries ?? []);
    expect(groups.map((e) => e.MessageGroupId)).toEqual(Array(35).fill('arn:aws:iam::1:user/alice'));
  });

  it('sends again only the entries SQS reports as failed', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '4', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Successful: [], Failed: [] });
    await sendChunkMessages(new SQSClient({}), QUEUE, messages(6), undefined);
    expect(sent()).toEqual([['0', '1', '2', '3', '4', '5'], ['4']]);
  });

  it('gives up naming the chunks SQS kept refusing', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] });
    await expect(sendChunkMessages(new SQSClient({}), QUEUE, messages(2), undefined)).rejects.toThrow(
      'SendMessageBatch kept failing for chunks 1',
    );
    expect(sent()).toHaveLength(4);
  });
});

describe('messageGroupOf', () => {
  it('is the owner when SQS accepts it as a MessageGroupId (1-128 alphanumeric and punctuation)', () => {
    expect(messageGroupOf('arn:aws:iam::111122223333:user/alice')).toBe(
      'arn:aws:iam::111122223333:user/alice',
    );
    expect(messageGroupOf('AWS:AROAEXAMPLE:session-1')).toBe('AWS:AROAEXAMPLE:session-1');
    expect(messageGroupOf('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it("is a hash for an owner SQS would refuse, distinct per owner; 'unowned' for none", () => {
    const long = messageGroupOf('x'.repeat(129));
    expect(long).toMatch(/^owner-sha256:[0-9a-f]{64}$/);
    expect(long.length).toBeLessThanOrEqual(128);
    expect(messageGroupOf('x'.repeat(130))).not.toBe(long);
    expect(messageGroupOf('alice smith')).toMatch(/^owner-sha256:/); // a space is not accepted
    expect(messageGroupOf(undefined)).toBe(UNOWNED_GROUP);
    expect(messageGroupOf('')).toBe(UNOWNED_GROUP);
    // An owner spelt like the reserved names cannot share their group.
    expect(messageGroupOf(UNOWNED_GROUP)).not.toBe(UNOWNED_GROUP);
    expect(messageGroupOf(long)).not.toBe(long);
  });
});
