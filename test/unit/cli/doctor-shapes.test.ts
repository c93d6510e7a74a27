/**
 * `clause-review doctor --local`: per model, the request of exactly the workers' shape it sent
 * (forced tool, thinking setting, sampling, cache point) and the endpoint that served it; and,
 * when the stand-in is told to refuse that shape for a model (a plan's `catalogue.refuse`), the
 * refusal as Bedrock words it, the fix named (the fallback that served the same request, with
 * what it costs, and the flag), and exit status 1. The plan's new part is checked as every other.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../bin/commands/cli-error.js';
import { doctorCommand } from '../../../bin/commands/doctor.js';
import { describeShape, shapeProbeRequest } from '../../../lambdas/core/model-shape.js';
import {
  DEFAULT_FAULT_PLAN,
  mergeFaultPlan,
  parseFaultPlanPatch,
} from '../../../localstack/bedrock/index.js';

const dir = mkdtempSync(join(tmpdir(), 'clause-review-doctor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function doctor(...args: string[]): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const io: CliIo = { out: (l) => void lines.push(l), err: (l) => void lines.push(l), tty: false };
  const status = await doctorCommand(['--local', ...args], io);
  return { status, lines };
}

const HAIKU = 'us.anthropic.claude-haiku-5-5';
const SONNET = 'us.anthropic.claude-sonnet-4-6';

describe('the request the workers send, as doctor sends it', () => {
  it('is the workers’ own: a forced tool, thinking off where the model thinks by default, and a cache point', () => {
    const input = shapeProbeRequest(HAIKU);
    expect(input.toolConfig?.toolChoice).toEqual({ tool: { name: 'record_assessment' } });
    expect(input.additionalModelRequestFields).toEqual({ thinking: { type: 'disabled' } });
    expect(input.inferenceConfig?.temperature).toBeUndefined();
    expect(input.messages?.[0]?.content?.some((b) => b.cachePoint)).toBe(true);
    // Claude Haiku 4.5 caches from 4,096 tokens only: the probe's context is long enough for it too.
    const haiku45 = shapeProbeRequest('us.anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(haiku45.messages?.[0]?.content?.some((b) => b.cachePoint)).toBe(true);
    expect(describeShape(input)).toBe(
      'forced tool record_assessment, thinking disabled, no sampling parameters, a cache point after the document context',
    );
  });
});

describe('doctor --local', () => {
  it('reports, per model, the shape it sent and the endpoint that served it', async () => {
    const { status, lines } = await doctor();
    expect(status).toBe(0);
    const served = lines.filter((l) => / served by /.test(l));
    expect(served).toHaveLength(2);
    expect(served[0]).toMatch(
      new RegExp(
        `^ok {3}${HAIKU.replace(/\./g, '\\.')} \\(primary\\): sent forced tool record_assessment, thinking disabled, no sampling parameters, a cache point after the document context; served by http://127\\.0\\.0\\.1:\\d+/model/${HAIKU.replace(/\./g, '\\.')}/converse \\(stop reason tool_use\\)$`,
      ),
    );
    expect(served[1]).toContain(`${SONNET} (fallback): sent forced tool record_assessment`);
    expect(lines.at(-1)).toBe('every model checked served the request the workers send');
  });

  it('fails with the fix named when the stand-in refuses the shape for a model', async () => {
    const plan = join(dir, 'refuse.json');
    writeFileSync(
      plan,
      JSON.stringify({ catalogue: { refuse: { 'anthropic.claude-haiku-5-5': ['forced-tool'] } } }),
    );
    const { status, lines } = await doctor('--plan', plan);
    expect(status).toBe(1);
    const refused = lines.find((l) => l.startsWith('FAIL'));
    expect(refused).toContain(`${HAIKU} (primary): sent forced tool record_assessment, thinking disabled`);
    expect(refused).toContain(
      'refused: ValidationException: The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use. ',
    );
    expect(refused).toContain(
      `Fix: make '${SONNET}', which served the same request, the primary (its tokens cost 30× as much): -c models='{"primary":"${SONNET}"}' (locally MODEL_ID=${SONNET})`,
    );
    expect(lines.at(-1)).toMatch(
      /^1 model\(s\) refused the request the workers send: fix that before any job is accepted/,
    );
  });

  it('refuses a plan that is not one, naming the file', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ catalogue: { refuse: { 'anthropic.claude-haiku-5-5': ['temperature'] } } }),
    );
    await expect(doctor('--plan', bad)).rejects.toThrow(/--plan .*bad\.json is not a stand-in plan/);
    await expect(
      doctorCommand(['--plan', bad], { out: () => {}, err: () => {}, tty: false }),
    ).rejects.toThrow(/use it with --local/);
  });
});

describe("a plan's refused shapes", () => {
  it('replace a model’s earlier ones, and an empty list or null refuses none again', () => {
    const patch = (refuse: Record<string, string[] | null>) => parseFaultPlanPatch({ catalogue: { refuse } });
    const one = mergeFaultPlan(DEFAULT_FAULT_PLAN, patch({ m: ['forced-tool', 'forced-tool'] }));
    expect(one.catalogue.refuse).toEqual({ m: ['forced-tool'] });
    expect(mergeFaultPlan(one, patch({ m: ['cache-point'] })).catalogue.refuse).toEqual({
      m: ['cache-point'],
    });
    expect(mergeFaultPlan(one, patch({ m: [] })).catalogue.refuse).toEqual({});
    expect(mergeFaultPlan(one, patch({ m: null })).catalogue.refuse).toEqual({});
  });
});
