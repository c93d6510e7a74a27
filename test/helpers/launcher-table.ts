/**
 * A moto launcher of a test file's own, with one bare pk/sk table: for the tests that pin what the
 * launcher itself does, whichever ground the rest of the suite runs on.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { type MotoServer, startMotoServer } from '../../localstack/moto-server.js';
import { createKeyTable } from './key-table.js';

/**
 * Starts the launcher and creates `table` before the file's tests, stops it after them.
 * @returns the document client, once the launcher is up (read it inside a test)
 */
export function launcherTable(table: string): { readonly documents: DynamoDBDocumentClient } {
  let moto: MotoServer | undefined;
  let documents: DynamoDBDocumentClient | undefined;
  beforeAll(async () => {
    moto = await startMotoServer();
    documents = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: EMULATOR_CREDENTIALS }),
    );
    await createKeyTable(documents, table);
  }, 60_000);
  afterAll(async () => {
    documents?.destroy();
    await moto?.stop();
  });
  return {
    get documents() {
      if (!documents) throw new Error('the launcher is not up yet: read documents inside a test');
      return documents;
    },
  };
}
