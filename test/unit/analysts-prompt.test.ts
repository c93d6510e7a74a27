import { describe, expect, it } from 'vitest';
import {
  ANALYSTS,
  analystById,
  buildConverseInput,
  categoryById,
  toolConfigFor,
} from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/model.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';

/**
 * Most of section 13.6 of the Airspan distributor agreement (CUAD), with a line break and a
 * run of spaces added, as PDF extraction often leaves them, so that any re-flowing would show.
 */
const TEXT =
  '13.6 Airspan shall not be liable to Distributor for damages of any kind, including incidental or ' +
  'consequential damages, on account of the termination of this agreement in accordance with this section ' +
  '13.  Airspan shall not be liable to Distributor on account of termination or expiration of this Agreement ' +
  'for reimbursement or damages for loss of goodwill, prospective profits, or anticipated orders,\n      or on ' +
  'account of any expenditures, investments, leases, or commitments made by either party.  ';

const clause: Clause = {
  index: 41,
  id: 'c0042',
  label: '13.6',
  heading: '13. TERM AND TERMINATION',
  start: 48_210,
  end: 48_210 + TEXT.length,
  text: TEXT,
};

const analyst = analystById('term-lifecycle');

function userText(input: ReturnType<typeof buildConverseInput>, message = 0): string {
  return input.messages?.[message]?.content?.[0]?.text ?? '';
}

describe('buildConverseInput', () => {
  it('is deterministic: the same inputs give deep-equal requests', () => {
    const options = { modelId: PRIMARY_MODEL_ID, documentTitle: 'Distributor Agreement' };
    const a = buildConverseInput(analyst, clause, options);
    const b = buildConverseInput(analyst, { ...clause }, { ...options });
    expect(b).toEqual(a);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    for (const other of ANALYSTS) {
      expect(JSON.stringify(buildConverseInput(other, clause, options))).toBe(
        JSON.stringify(buildConverseInput(other, clause, options)),
      );
    }
  });

  it('puts the clause text between <clause> and </clause> exactly as it is', () => {
    const text = userText(buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID }));
    expect(text.split('<clause>')).toHaveLength(2);
    const inside = text.slice(text.indexOf('<clause>') + '<clause>'.length, text.indexOf('</clause>'));
    expect(inside).toBe(TEXT);
    expect(text.endsWith(`<clause>${TEXT}</clause>`)).toBe(true);
  });

  it('gives title, clause id, number and heading as context outside the tags', () => {
    const text = userText(
      buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID, documentTitle: 'Airspan' }),
    );
    const outside = text.slice(0, text.indexOf('<clause>'));
    expect(outside).toContain('Document: Airspan');
    expect(outside).toContain('Clause id: c0042');
    expect(outside).toContain('Clause number: 13.6');
    expect(outside).toContain('Section heading: 13. TERM AND TERMINATION');
    expect(outside).toContain('term-renewal, termination');

    const plain: Clause = { index: 0, id: 'c0001', start: 0, end: 5, text: 'Hello' };
    const bare = userText(buildConverseInput(analyst, plain, { modelId: PRIMARY_MODEL_ID }));
    expect(bare).not.toContain('Document:');
    expect(bare).not.toContain('Clause number:');
    expect(bare).not.toContain('Section heading:');
  });

  it('sends the system prompt with the category list, the inference settings and the tool config', () => {
    const input = buildConverseInput(analyst, clause, { modelId: FALLBACK_MODEL_ID });
    expect(input.modelId).toBe(FALLBACK_MODEL_ID);
    expect(input.system?.[0]).toEqual({ text: analyst.systemPrompt });
    const categories = input.system?.[1]?.text ?? '';
    for (const id of analyst.categories) {
      expect(categories).toContain(`- ${id} (${categoryById(id).name}): ${categoryById(id).description}`);
    }
    expect(categories).not.toContain('- liability');
    expect(input.inferenceConfig).toEqual({ maxTokens: analyst.maxTokens, temperature: 0 });
    expect(input.toolConfig).toEqual(toolConfigFor(analyst));
    expect(input.messages).toHaveLength(1);
    expect(input.messages?.[0]?.role).toBe('user');
  });

  it('builds a repair retry as user, assistant (the rejected answer), user (the error)', () => {
    const previousAnswer = '{"assessments":{"term-renewal":{"score":1,"findings":[]}}}';
    const error = '- assessments.termination: Invalid input: expected object, received undefined';
    const first = buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID });
    const repair = buildConverseInput(analyst, clause, {
      modelId: PRIMARY_MODEL_ID,
      repair: { previousAnswer, error },
    });

    expect(repair.messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repair.messages?.[0]).toEqual(first.messages?.[0]);
    expect(repair.messages?.[1]?.content).toEqual([{ text: previousAnswer }]);
    const ask = userText(repair, 2);
    expect(ask).toContain(error);
    expect(ask).toContain('record_assessment');
    expect(repair.toolConfig).toEqual(first.toolConfig);
    expect(repair.system).toEqual(first.system);
  });

  it('never sends a blank assistant turn, which Bedrock rejects', () => {
    const repair = buildConverseInput(analyst, clause, {
      modelId: PRIMARY_MODEL_ID,
      repair: { previousAnswer: '  \n', error: '- no tool call' },
    });
    expect(repair.messages?.[1]?.content).toEqual([{ text: '(no answer)' }]);
  });
});
