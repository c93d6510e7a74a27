/**
 * The stand-in's latency is the model's time from a request's arrival to its answer: what the
 * stand-in spends reading and checking the request (or the request spends waiting for it) is
 * inside it, not added to it, so `metrics.latencyMs` reports the configured latency, as Bedrock
 * reports its own. The clock is faked, so the test holds on any machine.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import {
  type CallChannel,
  StandInEngine,
  type WireResponse,
} from '../../../localstack/bedrock/stand-in-engine.js';

const open: CallChannel = { closed: false, onClose: () => () => {} };
const MODEL = 'amazon.nova-lite-v1:0';
const body = JSON.stringify({
  messages: [{ role: 'user', content: [{ text: 'The Supplier shall indemnify the Customer.' }] }],
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The answer to a request that arrived `agoMs` before the engine is handed it, as it comes. */
function converse(engine: StandInEngine, agoMs: number): { answer: () => WireResponse | undefined } {
  let answer: WireResponse | undefined;
  void engine.converse(MODEL, body, open, { arrivedAt: performance.now() - agoMs }).then((r) => {
    answer = r;
  });
  return { answer: () => answer };
}

it('answers the configured latency after the request arrived, whatever came before', async () => {
  const engine = new StandInEngine({ plan: { latency: { kind: 'fixed', ms: 200 } } });
  // The request came in 150 ms before the engine had it: 50 ms of the model's latency are left.
  const late = converse(engine, 150);
  await vi.advanceTimersByTimeAsync(49);
  expect(late.answer()).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  expect(late.answer()?.status).toBe(200);
  expect(JSON.parse(late.answer()?.body ?? '{}').metrics).toEqual({ latencyMs: 200 });

  // One handed over at once waits the whole latency.
  const prompt = converse(engine, 0);
  await vi.advanceTimersByTimeAsync(199);
  expect(prompt.answer()).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  expect(JSON.parse(prompt.answer()?.body ?? '{}').metrics).toEqual({ latencyMs: 200 });
});

it('answers at once, with the time it took, when the request arrived longer ago than the latency', async () => {
  const engine = new StandInEngine({ plan: { latency: { kind: 'fixed', ms: 100 } } });
  const behind = converse(engine, 130);
  await vi.advanceTimersByTimeAsync(0);
  expect(JSON.parse(behind.answer()?.body ?? '{}').metrics).toEqual({ latencyMs: 130 });
});
