import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE } from '../../../localstack/bedrock/catalogue-models.js';
import type { ConverseRequest } from '../../../localstack/bedrock/converse-request.js';
import { refuseRequest } from '../../../localstack/bedrock/model-rules.js';

const model = (id: string) => {
  const m = DEFAULT_CATALOGUE.find((c) => c.modelId === id);
  if (!m) throw new Error(`no ${id} in the catalogue`);
  return m;
};
const HAIKU_5_5 = model('anthropic.claude-haiku-5-5');
const HAIKU_4_5 = model('anthropic.claude-haiku-4-5-20251001-v1:0');

const request = (extra: Partial<ConverseRequest> = {}): ConverseRequest => ({
  messages: [{ role: 'user', content: [{ text: 'Assess the clause.' }] }],
  toolConfig: {
    tools: [{ toolSpec: { name: 'record_assessment', inputSchema: { json: { type: 'object' } } } }],
    toolChoice: { tool: { name: 'record_assessment' } },
  },
  additionalModelRequestFields: { thinking: { type: 'disabled' } },
  ...extra,
});

describe("the stand-in's per-model rules", () => {
  it('refuses temperature and topP for Claude Haiku 5.5 with Bedrock’s ValidationException', () => {
    expect(refuseRequest(HAIKU_5_5, request({ inferenceConfig: { temperature: 0 } }), false)).toEqual({
      name: 'ValidationException',
      message: 'The model returned the following errors: `temperature` is deprecated for this model.',
    });
    expect(refuseRequest(HAIKU_5_5, request({ inferenceConfig: { topP: 0.9 } }), false)?.message).toMatch(
      /`top_p` is deprecated for this model/,
    );
    expect(refuseRequest(HAIKU_4_5, request({ inferenceConfig: { temperature: 0 } }), false)).toBeUndefined();
  });

  it('refuses a forced tool call to Claude Haiku 5.5 unless its thinking is turned off', () => {
    const thinking = request({ additionalModelRequestFields: {} });
    expect(refuseRequest(HAIKU_5_5, thinking, false)).toEqual({
      name: 'ValidationException',
      message:
        'The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.',
    });
    const any = request({
      additionalModelRequestFields: { thinking: { type: 'adaptive' } },
      toolConfig: { tools: request().toolConfig?.tools ?? [], toolChoice: { any: {} } },
    });
    expect(refuseRequest(HAIKU_5_5, any, false)?.name).toBe('ValidationException');
    const auto = request({
      additionalModelRequestFields: {},
      toolConfig: { tools: request().toolConfig?.tools ?? [], toolChoice: { auto: {} } },
    });
    expect(refuseRequest(HAIKU_5_5, auto, false)).toBeUndefined();
    expect(refuseRequest(HAIKU_5_5, request(), true)).toBeUndefined();
    expect(refuseRequest(HAIKU_4_5, thinking, false)).toBeUndefined();
  });

  it('refuses the shapes a plan names for a model, with the messages Bedrock gives them, and nothing else', () => {
    // The workers' request: forced tool, thinking off, a cache point.
    const workers = request();
    expect(refuseRequest(HAIKU_5_5, workers, true)).toBeUndefined();
    expect(refuseRequest(HAIKU_5_5, workers, true, ['forced-tool'])).toEqual({
      name: 'ValidationException',
      message:
        'The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.',
    });
    expect(refuseRequest(HAIKU_5_5, workers, true, ['cache-point'])?.message).toMatch(
      /^You invoked an unsupported model or your request did not allow prompt caching/,
    );
    // A request without the refused part is served.
    expect(
      refuseRequest(HAIKU_5_5, request({ toolConfig: { tools: [] } }), false, ['forced-tool']),
    ).toBeUndefined();
    expect(refuseRequest(HAIKU_5_5, workers, false, ['cache-point'])).toBeUndefined();
  });

  it('counts Claude Haiku 5.5 tokens about 30 % higher than the Claude 4 generation', () => {
    expect(HAIKU_5_5.charsPerToken).toBeCloseTo(4 / 1.3);
    expect(HAIKU_4_5.charsPerToken ?? 4).toBe(4);
  });
});
