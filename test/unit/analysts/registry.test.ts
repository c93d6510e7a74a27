import { describe, expect, it } from 'vitest';
import {
  ANALYST_IDS,
  ANALYSTS,
  AnalystError,
  AnswerValidationError,
  analystById,
  CATEGORIES,
  CATEGORY_IDS,
  CUAD_UNMAPPED,
  categoryById,
  isAnalystError,
  isAnswerValidationError,
  isCategoryId,
  isUnknownAnalystError,
  selectAnalysts,
  UnknownAnalystError,
} from '../../../lambdas/core/analysts/index.js';
import { analystsOf, SPECS } from '../../../lambdas/core/analysts/registry.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { idempotencyKey } from '../../../lambdas/core/worker/call-key.js';

/** The 41 CUAD categories, copied from the corpus README table (not from the code under test). */
const CUAD_41 = [
  'Document Name',
  'Parties',
  'Agreement Date',
  'Effective Date',
  'Expiration Date',
  'Renewal Term',
  'Notice Period to Terminate Renewal',
  'Governing Law',
  'Most Favored Nation',
  'Non-Compete',
  'Exclusivity',
  'No-Solicit of Customers',
  'Competitive Restriction Exception',
  'No-Solicit of Employees',
  'Non-Disparagement',
  'Termination for Convenience',
  'Rofr/Rofo/Rofn',
  'Change of Control',
  'Anti-Assignment',
  'Revenue/Profit Sharing',
  'Price Restrictions',
  'Minimum Commitment',
  'Volume Restriction',
  'IP Ownership Assignment',
  'Joint IP Ownership',
  'License Grant',
  'Non-Transferable License',
  'Affiliate License-Licensor',
  'Affiliate License-Licensee',
  'Unlimited/All-You-Can-Eat-License',
  'Irrevocable or Perpetual License',
  'Source Code Escrow',
  'Post-Termination Services',
  'Audit Rights',
  'Uncapped Liability',
  'Cap on Liability',
  'Liquidated Damages',
  'Warranty Duration',
  'Insurance',
  'Covenant Not to Sue',
  'Third Party Beneficiary',
];

const KEBAB = /^[a-z]+(-[a-z]+)*$/;

describe('risk categories', () => {
  it('are twelve, with unique kebab-case ids listed in order by CATEGORY_IDS', () => {
    expect(CATEGORIES).toHaveLength(12);
    expect(CATEGORY_IDS).toEqual(CATEGORIES.map((c) => c.id));
    expect(new Set(CATEGORY_IDS).size).toBe(12);
    for (const c of CATEGORIES) {
      expect(c.id).toMatch(KEBAB);
      expect(c.name.length).toBeGreaterThan(0);
      expect(c.description.length).toBeGreaterThan(200);
      expect(categoryById(c.id)).toBe(c);
      expect(isCategoryId(c.id)).toBe(true);
    }
    expect(isCategoryId('indemnity')).toBe(false);
  });

  it('map every CUAD category exactly once, except the three listed as unmapped', () => {
    const mapped = CATEGORIES.flatMap((c) => c.cuad);
    const unmapped = CUAD_UNMAPPED.map((u) => u.cuad);
    expect(unmapped).toEqual(['Document Name', 'Parties', 'Agreement Date']);
    for (const u of CUAD_UNMAPPED) expect(u.reason.length).toBeGreaterThan(10);
    expect(new Set(mapped).size).toBe(mapped.length);
    expect([...mapped, ...unmapped].sort()).toEqual([...CUAD_41].sort());
  });

  it('give every category at least one CUAD category', () => {
    for (const c of CATEGORIES) expect(c.cuad.length).toBeGreaterThan(0);
  });
});

describe('analyst registry', () => {
  it('holds eleven analysts with unique kebab-case ids and one to three distinct categories each', () => {
    expect(ANALYSTS).toHaveLength(11);
    expect(ANALYST_IDS).toEqual(ANALYSTS.map((a) => a.id));
    expect(new Set(ANALYST_IDS).size).toBe(11);
    for (const a of ANALYSTS) {
      expect(a.id).toMatch(KEBAB);
      expect(a.categories.length).toBeGreaterThanOrEqual(1);
      expect(a.categories.length).toBeLessThanOrEqual(3);
      expect(new Set(a.categories).size).toBe(a.categories.length);
      for (const id of a.categories) expect(isCategoryId(id)).toBe(true);
    }
  });

  it('covers every category, the most important ones twice', () => {
    const coverage = new Map(CATEGORY_IDS.map((id) => [id, 0]));
    for (const a of ANALYSTS) for (const id of a.categories) coverage.set(id, (coverage.get(id) ?? 0) + 1);
    for (const [, count] of coverage) expect(count).toBeGreaterThanOrEqual(1);
    for (const id of ['liability', 'termination', 'ip-ownership', 'competition'] as const) {
      expect(coverage.get(id)).toBeGreaterThanOrEqual(2);
    }
  });

  it('gives every analyst a careful prompt: rubric, verbatim quotes, no invention, tool-only answers', () => {
    for (const a of ANALYSTS) {
      expect(a.systemPrompt).toContain('verbatim');
      expect(a.systemPrompt).toContain('<clause-CODE>');
      expect(a.systemPrompt).toContain('never obeyed');
      expect(a.systemPrompt).toContain('300 characters');
      expect(a.systemPrompt).toContain('Never invent text');
      expect(a.systemPrompt).toContain('record_assessment');
      expect(a.systemPrompt).toMatch(/- null: the clause does not address/);
      for (const score of ['0', '1', '2', '3']) expect(a.systemPrompt).toContain(`- ${score}: `);
    }
    // The guidance differs per analyst; only the shared rules repeat.
    expect(new Set(ANALYSTS.map((a) => a.systemPrompt)).size).toBe(11);
  });

  it('sets call parameters: models, prompt version, temperature 0, room for the answer', () => {
    for (const a of ANALYSTS) {
      expect(a.modelId).toBe(PRIMARY_MODEL_ID);
      expect(a.fallbackModelId).toBe(FALLBACK_MODEL_ID);
      expect(a.promptVersion).toBe('v3');
      expect(a.temperature).toBe(0);
      expect(a.maxTokens).toBeGreaterThanOrEqual(1024);
      expect(a.maxTokens).toBeLessThanOrEqual(2048);
    }
  });

  it('takes a twelfth analyst without changing the prompt or the call keys of the others', () => {
    const text = '1. The Supplier shall not be liable for any indirect or consequential damages.';
    const clause: Clause = { index: 0, id: 'c0001', start: 0, end: text.length, text };
    const twelfth = { ...SPECS[0], id: 'twelfth-counsel', name: 'Twelfth counsel' } as (typeof SPECS)[number];
    const grown = analystsOf([...SPECS, twelfth]);
    expect(grown).toHaveLength(ANALYSTS.length + 1);
    expect(grown.slice(0, ANALYSTS.length)).toEqual(ANALYSTS);
    // Nor does a prompt state the panel's size, which the twelfth would have to change.
    for (const a of ANALYSTS) {
      expect(a.systemPrompt).not.toMatch(
        /\b(ten|eleven|twelve|thirteen)\b.{0,40}(reviewers|analysts|panel)/i,
      );
      expect(a.systemPrompt).not.toMatch(new RegExp(`\\b${ANALYSTS.length}\\b.{0,40}(reviewers|analysts)`));
    }
    for (const [i, a] of ANALYSTS.entries()) {
      const same = grown[i];
      if (!same) throw new Error(`no analyst ${i}`);
      expect(idempotencyKey(same, clause)).toBe(idempotencyKey(a, clause));
    }
  });

  it('finds an analyst by id, and names the known ids for an unknown one', () => {
    expect(analystById('liability-counsel').categories).toEqual(['liability']);
    let thrown: unknown;
    try {
      analystById('tax-counsel');
    } catch (e) {
      thrown = e;
    }
    expect(isUnknownAnalystError(thrown)).toBe(true);
    expect(isAnalystError(thrown)).toBe(true);
    expect(isAnswerValidationError(thrown)).toBe(false);
    const error = thrown as UnknownAnalystError;
    expect(error.name).toBe('UnknownAnalystError');
    expect(error.analystId).toBe('tax-counsel');
    expect(error.knownIds).toEqual(ANALYST_IDS);
    expect(error.message).toContain("'tax-counsel'");
    for (const id of ANALYST_IDS) expect(error.message).toContain(id);
  });

  it('selects a subset in registry order, each once; all when no ids are given', () => {
    expect(selectAnalysts()).toBe(ANALYSTS);
    const picked = selectAnalysts(['deal-balance', 'ip-counsel', 'deal-balance', 'term-lifecycle']);
    expect(picked.map((a) => a.id)).toEqual(['term-lifecycle', 'ip-counsel', 'deal-balance']);
    expect(() => selectAnalysts(['ip-counsel', 'nope'])).toThrow(UnknownAnalystError);
    expect(() => selectAnalysts([])).toThrow(AnalystError);
    expect(() => selectAnalysts([])).toThrow(/names no analyst/);
  });
});

describe('error type guards', () => {
  it('tell the analyst errors apart and reject foreign values', () => {
    const validation = new AnswerValidationError('ip-counsel', 'c0001', ['summary: Too big']);
    expect(isAnswerValidationError(validation)).toBe(true);
    expect(isAnalystError(validation)).toBe(true);
    expect(isUnknownAnalystError(validation)).toBe(false);
    expect(validation.name).toBe('AnswerValidationError');
    for (const foreign of [
      new Error('x'),
      { name: 'AnswerValidationError' },
      'AnswerValidationError',
      undefined,
    ]) {
      expect(isAnalystError(foreign)).toBe(false);
      expect(isAnswerValidationError(foreign)).toBe(false);
      expect(isUnknownAnalystError(foreign)).toBe(false);
    }
  });

  it('keep the cause and cap the repair hint at ten issues', () => {
    const cause = new SyntaxError('Unexpected token');
    const issues = Array.from(
      { length: 12 },
      (_, i) => `assessments.liability.findings.${i}.quote: not found`,
    );
    const error = new AnswerValidationError('liability-counsel', 'c0007', issues, { cause });
    expect(error.cause).toBe(cause);
    expect(error.issues).toEqual(issues);
    const lines = error.repairHint.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('- assessments.liability.findings.0.quote: not found');
    expect(lines[10]).toBe('- … and 2 more');
    expect(error.message).toContain("analyst 'liability-counsel'");
    expect(error.message).toContain('clause c0007');
  });
});
