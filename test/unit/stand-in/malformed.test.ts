import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { analyze } from '../../../localstack/bedrock/heuristic-analyst.js';
import {
  breakSchema,
  corruptQuotes,
  paraphrase,
  truncatedJson,
} from '../../../localstack/bedrock/malformed.js';
import { createRandom } from '../../../localstack/bedrock/random.js';

const CLAUSE =
  'The Licensee shall indemnify the Licensor against all claims; liability under this clause is unlimited. ' +
  'This license is perpetual and irrevocable.';

const Schema = z.strictObject({
  liability: z.strictObject({
    score: z.number().int().min(0).max(3).nullable(),
    findings: z.array(z.strictObject({ quote: z.string().min(1).max(300), rationale: z.string() })).max(5),
  }),
  audit: z.strictObject({
    score: z.number().int().min(0).max(3).nullable(),
    findings: z.array(z.strictObject({ quote: z.string().min(1).max(300), rationale: z.string() })).max(5),
  }),
  summary: z.string(),
});

const toolAnswer = () => {
  const answer = analyze({
    messages: [{ role: 'user', content: [{ text: `<clause>${CLAUSE}</clause>` }] }],
    toolConfig: { tools: [{ toolSpec: { name: 'record', inputSchema: { json: z.toJSONSchema(Schema) } } }] },
  });
  if (!answer.tool) throw new Error('no tool answer');
  return answer.tool;
};

describe('malformed answers', () => {
  it('truncated JSON never parses', () => {
    for (const value of [{ a: 1, b: [1, 2, 3] }, [{ x: 'y' }], 'text', null]) {
      expect(() => JSON.parse(truncatedJson(value))).toThrow();
    }
  });

  it('a schema violation breaks the schema, whichever break point the seed picks', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const tool = toolAnswer();
      expect(Schema.safeParse(tool.input).success).toBe(true);
      expect(breakSchema(tool, createRandom(seed))).toBe(true);
      expect(Schema.safeParse(tool.input).success).toBe(false);
    }
  });

  it('paraphrases quotes so they are no longer substrings, within maxLength', () => {
    const quote = 'The Licensee shall indemnify the Licensor against all claims;';
    const rewritten = paraphrase(quote, CLAUSE, quote.length);
    expect(CLAUSE).not.toContain(rewritten);
    expect(rewritten.length).toBeLessThanOrEqual(quote.length);
    expect(CLAUSE).not.toContain(paraphrase('unswappable words only', CLAUSE));
  });

  it('bad quotes keep the schema valid but leave no verbatim quote', () => {
    const tool = toolAnswer();
    expect(corruptQuotes(tool, CLAUSE)).toBe(true);
    const input = Schema.parse(tool.input);
    const quotes = input.liability.findings.map((f) => f.quote);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) expect(CLAUSE).not.toContain(quote);
  });

  it('adds a fabricated finding when the answer had none', () => {
    const answer = analyze({
      messages: [
        { role: 'user', content: [{ text: '<clause>Notices go to the addresses above.</clause>' }] },
      ],
      toolConfig: {
        tools: [{ toolSpec: { name: 'record', inputSchema: { json: z.toJSONSchema(Schema) } } }],
      },
    });
    const tool = answer.tool;
    if (!tool) throw new Error('no tool answer');
    expect(corruptQuotes(tool, answer.clause)).toBe(true);
    const input = Schema.parse(tool.input);
    const quotes = [...input.liability.findings, ...input.audit.findings].map((f) => f.quote);
    expect(quotes).toHaveLength(1);
    expect(answer.clause).not.toContain(quotes[0]);
  });
});
