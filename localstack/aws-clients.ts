import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientConfig, EMULATOR_CREDENTIALS } from '../lambdas/shared/aws-clients.js';

/** SDK clients pointed at one emulator endpoint. */
export interface EmulatorClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sns: SNSClient;
  readonly cloudwatch: CloudWatchClient;
  /** Closes the clients' sockets. */
  destroy(): void;
}

/** The region every local run uses. */
export const LOCAL_REGION = 'us-east-1';

/** Creates SDK clients for an emulator endpoint (moto or LocalStack). */
export function emulatorClients(endpoint: string): EmulatorClients {
  const config = { ...clientConfig({ endpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS }) };
  const { forcePathStyle, ...common } = config;
  const dynamodb = new DynamoDBClient(common);
  const clients = {
    sqs: new SQSClient(common),
    dynamodb,
    documents: DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } }),
    s3: new S3Client({ ...common, forcePathStyle: forcePathStyle ?? true }),
    sns: new SNSClient(common),
    cloudwatch: new CloudWatchClient(common),
  };
  return {
    ...clients,
    destroy() {
      for (const c of [clients.sqs, clients.dynamodb, clients.s3, clients.sns, clients.cloudwatch])
        c.destroy();
    },
  };
}
