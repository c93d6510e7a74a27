import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANALYSTS, buildConverseInput } from '../../../lambdas/core/analysts/index.js';
import { findDocumentContext } from '../../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';
import { jsonBytes } from '../../../lambdas/core/json-bytes.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';

const stringified = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
const long = (s: string) => s.repeat(Math.ceil(600 / s.length));

describe('jsonBytes', () => {
  it('is the UTF-8 length of JSON.stringify for JSON data of every kind', () => {
    const values: unknown[] = [
      'plain',
      'quotes " and \\ and \n newlines \t tabs \u0001 controls',
      'accents é, CJK 契約, emoji 📄, a lone surrogate \ud800',
      long('long é "quoted" text\n'),
      0,
      -0,
      1.5e300,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      null,
      [],
      {},
      [1, 'two', null, undefined, () => 3, Symbol('s'), { a: undefined }],
      { a: 1, b: undefined, c: () => 0, d: [undefined], 'ké"y': 'v', 2: 'numeric keys first' },
      Object.assign(Object.create(null), { bare: 'object' }),
      { when: new Date(0), nested: { deep: [[{ x: long('é') }]] } },
      { toJSON: () => ({ replaced: true }) },
      [{ toJSON: () => undefined }],
      { gone: { toJSON: () => undefined } },
      new Map([['a', 1]]),
    ];
    for (const value of values) expect(jsonBytes(value), JSON.stringify(value)).toBe(stringified(value));
    expect(jsonBytes(undefined)).toBe(0);
  });

  it('measures real Converse requests exactly, on both models, with and without a document context', async () => {
    const name = 'BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt';
    const bytes = readFileSync(join(import.meta.dirname, '../../fixtures/contracts', name));
    const doc = await parseDocument(bytes, {
      key: name,
      maxBytes: 10 * 1024 * 1024,
      chunk: { maxClauses: 8 },
    });
    const context = findDocumentContext(doc.text, doc.clauses);
    for (const clause of doc.clauses.slice(0, 20)) {
      for (const analyst of ANALYSTS) {
        for (const modelId of [PRIMARY_MODEL_ID, FALLBACK_MODEL_ID]) {
          for (const input of [
            buildConverseInput(analyst, clause, { modelId, context }),
            buildConverseInput(analyst, clause, {
              modelId,
              repair: { previousAnswer: '{"é":1}', error: 'bad' },
            }),
          ]) {
            const request = { s: input.system, m: input.messages, t: input.toolConfig };
            expect(jsonBytes(request)).toBe(stringified(request));
          }
        }
      }
    }
  });

  it('tells apart long strings and objects it has measured before', () => {
    const a = long('a');
    const b = long('bé');
    expect(jsonBytes(a)).toBe(stringified(a));
    expect(jsonBytes(b)).toBe(stringified(b));
    // Equal text in a new string gives the remembered size; a different one its own.
    expect(jsonBytes(`${a.slice(0, -1)}a`)).toBe(stringified(a));
    expect(jsonBytes(`${a.slice(0, -1)}"`)).toBe(stringified(a) + 1);
    const shared = { text: b };
    const one = { s: [shared], m: 'x' };
    const two = { s: [shared], m: 'longer text' };
    expect(jsonBytes(one)).toBe(stringified(one));
    expect(jsonBytes(two)).toBe(stringified(two));
    expect(jsonBytes(shared)).toBe(stringified(shared));
  });
});
