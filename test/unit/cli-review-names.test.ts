import { describe, expect, it } from 'vitest';
import { reportDirName } from '../../bin/commands/review.js';

describe('reportDirName', () => {
  it('keeps a plain name, without its extension', () => {
    expect(reportDirName('/contracts/Supply_Agreement-2019.txt', new Set())).toBe('Supply_Agreement-2019');
  });

  it('gives no name that leaves the output folder', () => {
    for (const file of ['...txt', '..', '../../etc/passwd', '.hidden.pdf', '.....']) {
      const name = reportDirName(file, new Set());
      expect(name).not.toMatch(/^\./);
      expect(name).not.toContain('/');
      expect(name.length).toBeGreaterThan(0);
    }
    expect(reportDirName('...txt', new Set())).toBe('document');
  });

  it('replaces characters a folder name should not carry, and tells two documents of one name apart', () => {
    const used = new Set<string>();
    expect(reportDirName('a/Master Agreement (v2).docx', used)).toBe('Master_Agreement_v2_');
    expect(reportDirName('b/Master Agreement (v2).pdf', used)).toBe('Master_Agreement_v2_-2');
  });
});
