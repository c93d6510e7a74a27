import { describe, expect, it } from 'vitest';
import { ANALYSTS, buildConverseInput } from '../../../lambdas/core/analysts/index.js';
import { PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { prepareAnswer } from '../../../localstack/bedrock/converse-answer.js';
import { parseConverseRequest } from '../../../localstack/bedrock/converse-request.js';

const clause = {
  id: 'c0001',
  index: 0,
  start: 0,
  end: 37,
  text: 'This Agreement is written in English.',
};

function prepared(toolChoice?: unknown) {
  const analyst = ANALYSTS[0];
  if (!analyst) throw new Error('no analyst');
  const input = buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID });
  const body = { ...input, toolConfig: { ...input.toolConfig, toolChoice } };
  if (toolChoice === undefined) delete (body.toolConfig as { toolChoice?: unknown }).toolChoice;
  const r = parseConverseRequest(JSON.stringify(body));
  if (!r.ok) throw new Error(r.message);
  return prepareAnswer(r.request, 'tooluse_1');
}

describe('the stand-in answer of a forced tool call', () => {
  it('is the tool call alone, as Claude answers when toolChoice forces a tool', () => {
    for (const choice of [{ tool: { name: 'record_assessment' } }, { any: {} }]) {
      const blocks = JSON.parse(prepared(choice).contentJson) as Record<string, unknown>[];
      expect(blocks.map((b) => Object.keys(b)[0])).toEqual(['toolUse']);
    }
  });

  it('writes text before the tool call when the model may choose', () => {
    const blocks = JSON.parse(prepared({ auto: {} }).contentJson) as Record<string, unknown>[];
    expect(blocks.map((b) => Object.keys(b)[0])).toEqual(['text', 'toolUse']);
  });

  it('answers a clause that addresses nothing with the fewest tokens the schema allows', () => {
    const p = prepared({ tool: { name: 'record_assessment' } });
    const [block] = JSON.parse(p.contentJson) as { toolUse: { input: unknown } }[];
    expect(block?.toolUse.input).toEqual({ assessments: {} });
    expect(p.naturalOutputTokens).toBeLessThan(30);
  });
});
