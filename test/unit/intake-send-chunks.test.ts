import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { sendChunkMessages } from '../../lambdas/core/intake/stored-document.js';
import type { ChunkMessage } from '../../lambdas/core/worker/chunk-message.js';
import { inFlightPeak } from '../helpers/in-flight.js';

const sqs = mockClient(SQSClient);
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/realtime';

const messages = (n: number): ChunkMessage[] =>
  Array.from({ length: n }, (_, chunk) => ({ v: 1, jobId: 'j-1', chunk, lane: 'realtime', clauses: [] }));

const sent = () =>
  sqs.commandCalls(SendMessageBatchCommand).map((c) => (c.args[0].input.Entries ?? []).map((e) => e.Id));

beforeEach(() => sqs.reset());

describe('sendChunkMessages', () => {
  it('sends every chunk once, ten to a request, the requests together', async () => {
    const send = inFlightPeak(() => ({ Successful: [], Failed: [] }));
    sqs.on(SendMessageBatchCommand).callsFake(send.fake);
    await sendChunkMessages(new SQSClient({}), QUEUE, messages(25));
    expect(sent().map((ids) => ids.length)).toEqual([10, 10, 5]);
    expect(sent().flat()).toEqual(Array.from({ length: 25 }, (_, i) => String(i)));
    expect(send.peak()).toBe(3);
    const body = JSON.parse(
      sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries?.[3]?.MessageBody ?? '',
    );
    expect(body).toMatchObject({ jobId: 'j-1', chunk: 3, lane: 'realtime' });
  });

  it('sends again only the entries SQS reports as failed', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '4', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Successful: [], Failed: [] });
    await sendChunkMessages(new SQSClient({}), QUEUE, messages(6));
    expect(sent()).toEqual([['0', '1', '2', '3', '4', '5'], ['4']]);
  });

  it('gives up naming the chunks SQS kept refusing', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] });
    await expect(sendChunkMessages(new SQSClient({}), QUEUE, messages(2))).rejects.toThrow(
      'SendMessageBatch kept failing for chunks 1',
    );
    expect(sent()).toHaveLength(4);
  });
});
