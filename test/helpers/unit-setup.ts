/**
 * Unit files share a worker's modules (isolate: false), so a `mockClient(SomeClient)` a file
 * leaves on the class's prototype would answer the next file's real calls. After every file,
 * each SDK client class the handlers use has its prototype's `send` put back.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll } from 'vitest';

const CLIENTS = [
  BedrockRuntimeClient,
  CloudWatchClient,
  CognitoIdentityProviderClient,
  DynamoDBClient,
  DynamoDBDocumentClient,
  S3Client,
  SNSClient,
  SQSClient,
];

/** Takes a sinon stub (what aws-sdk-client-mock puts on a class) off each client's `send`. */
export function restoreClientStubs(): void {
  for (const client of CLIENTS) (client.prototype.send as { restore?: () => void }).restore?.();
}

afterAll(restoreClientStubs);
