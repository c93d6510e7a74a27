import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  byLane,
  byRole,
  keyed,
  LANE_CONSUMERS,
  LANES,
  lanesConsumedBy,
  QUEUE_ROLES,
} from '../../../lambdas/core/lanes-and-limits.js';
import { ConfigError, loadConfig } from '../../../lambdas/shared/config.js';
import { keyedJson } from '../../../lambdas/shared/keyed-json.js';
import { loadOperationsConfig } from '../../../lambdas/shared/ops-config.js';
import { queueUrlsVariable } from '../../helpers/deployed-env.js';

const BASE = { TABLE_NAME: 't', INTAKE_BUCKET: 'i', RESULTS_BUCKET: 'r' };

describe('keyed JSON variables', () => {
  it('read one value per key of the list, checked by the value schema', () => {
    const schema = keyedJson(LANES, z.number().int());
    expect(schema.parse('{"realtime":1,"batch":2}')).toEqual({ realtime: 1, batch: 2 });
    expect(schema.safeParse('{"realtime":1,"batch":2.5}').success).toBe(false);
  });

  it('give every queue URL by role', () => {
    const config = loadConfig({ ...BASE, QUEUE_URLS: queueUrlsVariable('https://q') });
    expect(Object.keys(config.QUEUE_URLS)).toEqual([...QUEUE_ROLES]);
    expect(config.QUEUE_URLS.batch).toBe('https://q/batch');
  });

  it('name the key that is missing, unknown or not a URL, and say when the text is not JSON', () => {
    const urls = JSON.parse(queueUrlsVariable('https://q')) as Record<string, string>;
    const { batch: _left, ...missing } = urls;
    const attempt = (value: unknown) => () =>
      loadConfig({ ...BASE, QUEUE_URLS: typeof value === 'string' ? value : JSON.stringify(value) });
    expect(attempt(missing)).toThrow(ConfigError);
    expect(attempt(missing)).toThrow(/QUEUE_URLS\.batch/);
    expect(attempt({ ...urls, priority: 'https://q/p' })).toThrow(/priority/);
    expect(attempt({ ...urls, finalize: 'not a url' })).toThrow(/QUEUE_URLS\.finalize/);
    expect(attempt('https://q/realtime')).toThrow(
      /QUEUE_URLS: not JSON: expected an object with keys intake/,
    );
  });

  it('give the operations every DLQ by role and each lane its quiet period', () => {
    const byRole = (f: (role: string) => string) =>
      JSON.stringify(Object.fromEntries(QUEUE_ROLES.map((role) => [role, f(role)])));
    const config = loadOperationsConfig({
      ...BASE,
      QUEUE_URLS: queueUrlsVariable('https://q'),
      DLQ_URLS: byRole((role) => `https://q/${role}-dlq`),
      DLQ_ARNS: byRole((role) => `arn:aws:sqs:eu-west-1:1:${role}-dlq`),
      ALERTS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:alerts',
      SWEEP_QUIET_SECONDS: JSON.stringify({ realtime: 2160, batch: 660 }),
      SWEEP_FINALIZE_QUIET_SECONDS: '780',
    });
    expect(config.DLQ_ARNS.intake).toBe('arn:aws:sqs:eu-west-1:1:intake-dlq');
    expect(config.SWEEP_QUIET_SECONDS).toEqual({ realtime: 2160, batch: 660 });
  });
});

describe('lanes', () => {
  it('each have a consumer, and the two kinds of consumer split the lanes between them', () => {
    expect(Object.keys(LANE_CONSUMERS).sort()).toEqual([...LANES].sort());
    expect([...lanesConsumedBy('lambda'), ...lanesConsumedBy('poller')].sort()).toEqual([...LANES].sort());
    expect(lanesConsumedBy('lambda')).toEqual(['realtime']);
    expect(lanesConsumedBy('poller')).toEqual(['batch']);
  });

  it('key records built from the lists: one value per lane or role, in list order', () => {
    expect(keyed(['a', 'b'] as const, (k) => k.toUpperCase())).toEqual({ a: 'A', b: 'B' });
    expect(Object.entries(byLane((lane) => lane.length))).toEqual(LANES.map((l) => [l, l.length]));
    expect(Object.keys(byRole(() => 0))).toEqual([...QUEUE_ROLES]);
  });

  it('are queue roles between intake and finalize, in order', () => {
    expect(QUEUE_ROLES).toEqual(['intake', ...LANES, 'finalize']);
  });
});
