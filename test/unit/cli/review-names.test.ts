import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../../bin/commands/cli-error.js';
import { writeConfined } from '../../../bin/commands/confined-write.js';
import { documentLine, reportDirName } from '../../../bin/commands/review.js';
import { oneCallJob } from '../../helpers/one-call-job.js';

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
    expect(reportDirName('c/master agreement (V2).txt', used)).toBe('master_agreement_V2_-3');
  });
});

describe('writeConfined', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'clause-review-out-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes the files into one folder under the output folder', () => {
    const out = join(root, 'reports');
    const written = writeConfined(out, 'Lease', { 'report.json': '{}', 'report.html': '<p>' });
    expect(written).toEqual([join(out, 'Lease', 'report.json'), join(out, 'Lease', 'report.html')]);
    expect(readFileSync(join(out, 'Lease', 'report.html'), 'utf8')).toBe('<p>');
  });

  it('refuses a folder or file name that is not one plain segment, before writing anything', () => {
    const out = join(root, 'reports');
    for (const name of ['..', '.', '../x', 'a/b', 'a\\b', '']) {
      expect(() => writeConfined(out, name, { 'report.html': 'x' })).toThrow(CliError);
    }
    expect(() => writeConfined(out, 'ok', { '../report.html': 'x' })).toThrow(
      /one plain file or folder name/,
    );
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses a folder that is a symbolic link leading outside, and a file that is a symbolic link', () => {
    const out = join(root, 'reports');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(out);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, 'Lease'));
    expect(() => writeConfined(out, 'Lease', { 'report.html': 'x' })).toThrow(/resolves outside/);
    expect(readdirSync(elsewhere)).toEqual([]);

    mkdirSync(join(out, 'Deed'));
    symlinkSync(join(elsewhere, 'victim'), join(out, 'Deed', 'report.html'));
    expect(() => writeConfined(out, 'Deed', { 'report.html': 'x' })).toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, 'victim'))).toBe(false);
  });
});

describe('documentLine', () => {
  const calls = { planned: 0, done: 0, failed: 0, skipped: 0, cancelled: 0, screened: 3546 };

  it('says a job intake has not planned yet is being planned, not that 3546 of 0 calls are screened', () => {
    const line = documentLine(
      '/c/Verizon.txt',
      oneCallJob({ status: 'intake', chunkCount: 0, callsPlanned: 0 }),
      calls,
    );
    expect(line).toBe('Verizon.txt: intake · reading and planning the document');
  });

  it('counts the calls of a planned job, in intake or running', () => {
    const planned = { ...calls, planned: 8382, done: 12 };
    for (const status of ['intake', 'running'] as const)
      expect(documentLine('Verizon.txt', oneCallJob({ status, chunkCount: 96 }), planned)).toContain(
        `Verizon.txt: ${status} · chunks 0/96 · calls 12 done, 0 failed, 0 skipped, 0 cancelled, 3546 screened of 8382 · cost`,
      );
  });
});
