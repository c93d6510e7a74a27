import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { restoreClientStubs } from '../../helpers/unit-setup.js';

describe("the unit files' shared workers", () => {
  it("get each client class's own send back after a file leaves a prototype stub on it", () => {
    const own = SQSClient.prototype.send;
    mockClient(SQSClient);
    expect(SQSClient.prototype.send).not.toBe(own);
    restoreClientStubs();
    expect(SQSClient.prototype.send).toBe(own);
  });
});
