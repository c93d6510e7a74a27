import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  isDocumentRejectedError,
  REJECTION_REASONS,
  type RejectionReason,
} from '../../../lambdas/core/documents/errors.js';
import { JOB_REJECTIONS } from '../../../lambdas/core/state/job-rejections.js';

describe('rejection reasons', () => {
  it('come from one list: every reason, and only those, passes the shape check across copies', () => {
    const reasons = Object.keys(REJECTION_REASONS) as RejectionReason[];
    expect(reasons).toContain('no-clauses');
    for (const reason of reasons) {
      // An error from another copy of the module: the same shape, another prototype.
      const foreign = Object.assign(new Error('x'), { name: 'DocumentRejectedError', reason });
      expect(isDocumentRejectedError(foreign)).toBe(true);
      expect(isDocumentRejectedError(new DocumentRejectedError(reason, 'x'))).toBe(true);
    }
    const unknown = Object.assign(new Error('x'), { name: 'DocumentRejectedError', reason: 'too-blue' });
    expect(isDocumentRejectedError(unknown)).toBe(false);
  });

  it("say each what it means, and a job's own reasons never shadow a document's", () => {
    for (const text of [...Object.values(REJECTION_REASONS), ...Object.values(JOB_REJECTIONS)])
      expect(text.length).toBeGreaterThan(10);
    const shared = Object.keys(JOB_REJECTIONS).filter((k) => k in REJECTION_REASONS);
    expect(shared).toEqual([]);
  });
});
