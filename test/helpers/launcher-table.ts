/**
 * The worker's moto launcher (`motoEndpoint()`), with one bare pk/sk table of the file's own: for
 * the tests that pin what the launcher itself does, whichever ground the rest of the suite runs on
 * (on LocalStack's, the launcher beside it).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createKeyTable } from './key-table.js';
import { motoEndpoint } from './local-aws.js';

/**
 * Creates `table` (name it with `uniquePrefix`: the launcher is shared by the worker's files) on
 * the launcher before the file's tests.
 * @returns the document client, once the table is there (read it inside a test)
 */
export function launcherTable(table: string): { readonly documents: DynamoDBDocumentClient } {
  let documents: DynamoDBDocumentClient | undefined;
  beforeAll(async () => {
    documents = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: motoEndpoint(),
        region: 'us-east-1',
        credentials: EMULATOR_CREDENTIALS,
      }),
    );
    await createKeyTable(documents, table);
  }, 60_000);
  afterAll(() => {
    documents?.destroy();
  });
  return {
    get documents() {
      if (!documents) throw new Error('the launcher is not up yet: read documents inside a test');
      return documents;
    },
  };
}
