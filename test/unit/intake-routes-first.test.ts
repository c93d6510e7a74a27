import { describe, expect, it } from 'vitest';
import { ROUTE_AFTER_WAIT_MS, routesFirst } from '../../lambdas/core/intake/owner-route.js';

const NOW = 1_800_000_000_000;

describe('routesFirst', () => {
  it('takes an S3 event received as soon as it was sent in at once', () => {
    expect(routesFirst(String(NOW - 40), NOW)).toBe(false);
    expect(routesFirst(String(NOW - ROUTE_AFTER_WAIT_MS + 1), NOW)).toBe(false);
  });

  it('routes an event that waited behind others on the queue', () => {
    expect(routesFirst(String(NOW - ROUTE_AFTER_WAIT_MS), NOW)).toBe(true);
    expect(routesFirst(String(NOW - 60_000), NOW)).toBe(true);
  });

  it('routes an event whose send time is unknown', () => {
    expect(routesFirst(undefined, NOW)).toBe(true);
    expect(routesFirst('', NOW)).toBe(true);
    expect(routesFirst('soon', NOW)).toBe(true);
  });
});
