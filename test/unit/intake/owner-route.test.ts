import { describe, expect, it } from 'vitest';
import { ROUTE_AFTER_WAIT_MS, routedObject, routesFirst } from '../../../lambdas/core/intake/owner-route.js';
import { ownerOfUpload } from '../../../lambdas/core/intake/submitter.js';

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

describe('ownerOfUpload', () => {
  const signed = { 'submitted-by': 'arn:aws:iam::1:user/alice' };
  const rule = { apiRoleId: 'AROAAPI', placeholderPrincipalId: 'PLACEHOLDER' };

  it('is the signed submitter of an upload the API role made, else the uploader', () => {
    expect(ownerOfUpload({ principalId: 'AWS:AROAAPI:api' }, signed, rule)).toBe('arn:aws:iam::1:user/alice');
    expect(ownerOfUpload({ principalId: 'AWS:AIDAMALLORY' }, signed, rule)).toBe('AWS:AIDAMALLORY');
  });

  it("is the uploader of an object deleted before it was read, and nobody for the ground's placeholder", () => {
    expect(ownerOfUpload({ principalId: 'AWS:AROAAPI:api' }, undefined, rule)).toBe('AWS:AROAAPI:api');
    expect(ownerOfUpload({ principalId: 'PLACEHOLDER' }, undefined, rule)).toBeUndefined();
    expect(ownerOfUpload({ principalId: 'PLACEHOLDER' }, signed, rule)).toBe('arn:aws:iam::1:user/alice');
  });
});

describe('routedObject', () => {
  const intakeObject = { bucket: 'b', key: 'in/a.txt', versionId: 'v1', size: 12 };

  it('reads the upload and the owner routing worked out, null for nobody', () => {
    expect(routedObject(JSON.stringify({ intakeObject, owner: 'arn:aws:iam::1:user/alice' }))).toEqual({
      ref: intakeObject,
      owner: 'arn:aws:iam::1:user/alice',
    });
    expect(routedObject(JSON.stringify({ intakeObject, owner: null }))).toEqual({
      ref: intakeObject,
      owner: null,
    });
  });

  it('leaves the owner out of a message routed before it was carried', () => {
    expect(routedObject(JSON.stringify({ intakeObject }))).toEqual({ ref: intakeObject });
  });

  it('is undefined for an S3 event or a body that is not JSON', () => {
    expect(routedObject(JSON.stringify({ Records: [] }))).toBeUndefined();
    expect(routedObject('not json')).toBeUndefined();
  });
});
