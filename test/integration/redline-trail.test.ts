/**
 * A job's redline trail in the state table (core/holds/redline-trail.ts) on the emulator: every
 * decision appended, none overwritten, read back in the order made beside the findings' trail
 * without mixing with it; the decision in force on each redline is the latest, which finalize
 * applies to report.json and report.docx.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type Decision, ReviewTrail } from '../../lambdas/core/holds/decisions.js';
import { latestRedlineDecisions, RedlineTrail } from '../../lambdas/core/holds/redline-trail.js';
import type { RedlineDecisionRecord } from '../../lambdas/core/playbooks/index.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { createKeyTable } from '../helpers/key-table.js';
import { awsEndpoint, uniquePrefix } from '../helpers/local-aws.js';

const clients = emulatorClients(awsEndpoint());
afterAll(() => clients.destroy());
const table = uniquePrefix('redlines');
await createKeyTable(clients.dynamodb, table);

const by = 'cognito-identity:us-east-1:11111111-2222-3333-4444-555555555555';
const record = (
  redlineId: string,
  status: RedlineDecisionRecord['status'],
  at: string,
  extra: Partial<RedlineDecisionRecord> = {},
): RedlineDecisionRecord => ({ redlineId, status, by, at, ...extra });

describe('the redline trail', () => {
  it('keeps every decision in the order made, apart from the findings’ trail, and the latest on each redline in force', async () => {
    const trail = new RedlineTrail(clients.documents, table);
    const job = 'j-00000000000000000035';
    const edits = [{ start: 4, end: 10, insert: 'thirty' }];
    await trail.append(job, [
      record('c0002/redline/payment-terms', 'accepted', '2026-03-01T10:00:00.000Z'),
      record('c0001/redline/limitation-of-liability', 'rejected', '2026-03-01T10:00:00.000Z'),
    ]);
    await trail.append(job, [
      record('c0002/redline/payment-terms', 'edited', '2026-03-01T10:05:00.000Z', {
        edits,
        bySub: '1f2e',
        byName: 'olga@example.com',
        note: 'sixty days',
      }),
    ]);
    // A finding's decision at the same moment goes to the other trail.
    const finding: Decision = {
      findingId: 'c0001/liability',
      verdict: 'approve',
      by,
      at: '2026-03-01T10:00:00.000Z',
    };
    await new ReviewTrail(clients.documents, table).append(job, [finding]);

    expect((await trail.list(job)).map((r) => [r.redlineId, r.status])).toEqual([
      ['c0002/redline/payment-terms', 'accepted'],
      ['c0001/redline/limitation-of-liability', 'rejected'],
      ['c0002/redline/payment-terms', 'edited'],
    ]);
    expect(await new ReviewTrail(clients.documents, table).list(job)).toEqual([finding]);
    const inForce = latestRedlineDecisions(await trail.list(job));
    expect(inForce.get('c0002/redline/payment-terms')).toEqual(
      record('c0002/redline/payment-terms', 'edited', '2026-03-01T10:05:00.000Z', {
        edits,
        bySub: '1f2e',
        byName: 'olga@example.com',
        note: 'sixty days',
      }),
    );
    expect(inForce.get('c0001/redline/limitation-of-liability')?.status).toBe('rejected');
    expect(await trail.list('j-00000000000000000036')).toEqual([]);
  });
});
