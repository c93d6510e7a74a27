/** PlaybookStore.forJob: a job's playbook read once per process by its hash, and checked against it. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { isPlaybookCorruptError } from '../../../lambdas/core/playbooks/errors.js';
import { shippedPlaybooks } from '../../../lambdas/core/playbooks/shipped.js';
import { PlaybookStore, type StoredPlaybook } from '../../../lambdas/core/playbooks/store.js';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const [shipped] = shippedPlaybooks();
if (!shipped) throw new Error('no shipped playbook');

/** A store whose reads answer `stored` (or fail), counted. */
function storeAnswering(stored: () => Promise<StoredPlaybook>) {
  const store = new PlaybookStore(db, 'state');
  const get = vi.spyOn(store, 'get').mockImplementation(stored);
  return { store, get };
}

const storedAs = (sha256: string): StoredPlaybook =>
  ({
    name: 'default',
    version: 1,
    sha256,
    title: 't',
    playbook: shipped.playbook,
  }) as unknown as StoredPlaybook;

describe('PlaybookStore.forJob', () => {
  it('reads a version once for every caller in the process, whichever store asks', async () => {
    const sha256 = 'a'.repeat(64);
    const first = storeAnswering(async () => storedAs(sha256));
    const second = storeAnswering(async () => storedAs(sha256));
    const ref = { name: 'default', version: 1, sha256 };
    const [a, b] = await Promise.all([first.store.forJob(ref), first.store.forJob(ref)]);
    expect(await second.store.forJob(ref)).toBe(a);
    expect(b).toBe(a);
    expect(a).toEqual(shipped.playbook);
    expect(first.get).toHaveBeenCalledTimes(1);
    expect(first.get).toHaveBeenCalledWith({ name: 'default', version: 1 });
    expect(second.get).not.toHaveBeenCalled();
  });

  it('refuses a stored version whose hash is not the one the job recorded', async () => {
    const { store } = storeAnswering(async () => storedAs('c'.repeat(64)));
    const error = await store
      .forJob({ name: 'default', version: 1, sha256: 'b'.repeat(64) })
      .catch((e: unknown) => e);
    expect(isPlaybookCorruptError(error)).toBe(true);
  });

  it('reads again after a failed read instead of keeping the failure', async () => {
    const sha256 = 'd'.repeat(64);
    let calls = 0;
    const { store, get } = storeAnswering(async () => {
      calls++;
      if (calls === 1) throw new Error('throttled');
      return storedAs(sha256);
    });
    const ref = { name: 'default', version: 1, sha256 };
    await expect(store.forJob(ref)).rejects.toThrow('throttled');
    await expect(store.forJob(ref)).resolves.toEqual(shipped.playbook);
    expect(get).toHaveBeenCalledTimes(2);
  });
});
