/**
 * The learned offline analyst answering through the stand-in's wire and the real SDK client:
 * the default analyst of a stand-in, named in its header and its answers, and a panel answer
 * the pipeline's own validation accepts (scores with plain reasons, quotes at their offsets).
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analystById, buildConverseInput, parseAnswer } from '../../lambdas/core/analysts/index.js';
import type { Clause } from '../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LEARNED_LABEL, STAND_IN_LABEL } from '../../localstack/bedrock/heuristic-types.js';
import { type BedrockStandIn, startBedrockStandIn } from '../../localstack/bedrock/index.js';

const TEXT =
  '12.1 Limitation of Liability. In no event shall either party be liable for any indirect, incidental or ' +
  "consequential damages. Each party's aggregate liability under this Agreement shall not exceed the fees " +
  'paid in the twelve (12) months before the claim. This Agreement shall be governed by the laws of the State of New York.';
const CLAUSE: Clause = { index: 0, id: 'c0001', start: 0, end: TEXT.length, text: TEXT };

let learned: BedrockStandIn;
let heuristic: BedrockStandIn;
let client: BedrockRuntimeClient;

beforeAll(async () => {
  learned = await startBedrockStandIn({ seed: 5 });
  heuristic = await startBedrockStandIn({ seed: 5, analyst: 'heuristic' });
  client = new BedrockRuntimeClient({
    endpoint: learned.url,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await Promise.all([learned.close(), heuristic.close()]);
});

const input = (analystId: string): ConverseCommandInput =>
  buildConverseInput(analystById(analystId), CLAUSE, { modelId: PRIMARY_MODEL_ID });

describe('the learned analyst on the wire', () => {
  it('is the default, and the header and the answer say which analyst answered', async () => {
    for (const [standIn, header, label] of [
      [learned, 'offline-learned', LEARNED_LABEL],
      [heuristic, 'offline-heuristic', STAND_IN_LABEL],
    ] as const) {
      const response = await fetch(`${standIn.url}/model/${encodeURIComponent(PRIMARY_MODEL_ID)}/converse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input('liability-counsel')),
      });
      expect(response.headers.get('x-clause-review-stand-in')).toBe(header);
      const body = (await response.json()) as {
        output: { message: { content: { text?: string; toolUse?: { input: { summary?: string } } }[] } };
      };
      // A forced tool call is answered with the call alone; its summary names the analyst.
      const [call, ...rest] = body.output.message.content;
      expect(rest).toEqual([]);
      expect(call?.toolUse?.input.summary).toContain(label);
    }
  });

  it('gives a capped, mutual liability clause a low score with reasons naming what it says', async () => {
    const output = await client.send(new ConverseCommand(input('liability-counsel')));
    const answer = parseAnswer(analystById('liability-counsel'), CLAUSE, output);
    const liability = answer.assessments.liability;
    expect(liability?.score).not.toBeNull();
    expect(liability?.score).toBeLessThanOrEqual(1);
    for (const finding of liability?.findings ?? []) {
      expect(TEXT.slice(finding.start, finding.end)).toBe(finding.quote);
      expect(finding.rationale).toMatch(/^This passage /);
      expect(finding.rationale).not.toMatch(/offline heuristic|Mentions '/);
    }
    expect(liability?.findings.map((f) => f.rationale).join(' ')).toMatch(/limits liability/);
  });
});
