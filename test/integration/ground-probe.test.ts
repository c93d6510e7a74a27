/**
 * The thousand bench's ground probe on the test ground: a process of its own times claim-shaped
 * checkpoint writes and empty receives until it is stopped, and the writes really land (the
 * probe's key holds a fence counted up once per write).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { startGroundProbe } from '../bench/ground-probe.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('ground-probe');

it('times writes and receives in a process of its own until stopped, and its writes land', async () => {
  const probe = startGroundProbe(stack.endpoint, stack.resources.tableName);
  await new Promise((r) => setTimeout(r, 6000));
  const samples = await probe.stop();
  expect(samples.checkpointWriteMs.length).toBeGreaterThan(2);
  expect(samples.emptyReceiveMs).toHaveLength(samples.checkpointWriteMs.length);
  expect(samples.checkpointWriteMs.every((ms) => ms > 0)).toBe(true);
  const { Items } = await stack.clients.documents.send(
    new ScanCommand({
      TableName: stack.resources.tableName,
      FilterExpression: 'begins_with(pk, :probe)',
      ExpressionAttributeValues: { ':probe': 'PROBE#' },
    }),
  );
  expect(Items?.map((i) => i.fence)).toEqual([samples.checkpointWriteMs.length]);
});
