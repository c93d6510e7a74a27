/**
 * Accounting: what the stand-in would have billed, per model and outcome, plus a fingerprint of
 * every billed call so tests can prove the pipeline never paid twice for the same question.
 */
import { createHash } from 'node:crypto';
import type { BedrockErrorName } from './errors.js';
import type { MalformedKind } from './fault-plan.js';

/**
 * How a Converse call ended.
 * - `success`: answered with 200 and billed, including malformed answers (see
 *   {@link AccountingSnapshot.malformed}), because a real model bills whatever it produced.
 * - a catalogue error name: answered with that error (capacity throttles included), not billed.
 * - `hang`: the plan said never answer; the call is counted when that is decided.
 * - `clientClosed`: the client went away (e.g. its timeout) before the answer was written;
 *   not billed, since no usage reached the caller.
 */
export type CallOutcome = 'success' | BedrockErrorName | 'hang' | 'clientClosed';

/** Why an answered call is unusable for the caller: an injected kind, or truncation at maxTokens. */
export type MalformedAccountingKind = MalformedKind | 'maxTokens';

/** Calls and billed tokens. */
export interface UsageCounter {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/** A point-in-time copy of the stand-in's books; safe to keep and compare. */
export interface AccountingSnapshot {
  /** Every Converse call the stand-in received, whatever the outcome; tokens only from billed ones. */
  totals: UsageCounter;
  /** modelId (decoded) -> outcome -> counter. */
  byModel: Record<string, Partial<Record<CallOutcome, UsageCounter>>>;
  /**
   * modelId -> kind -> number of answers that were billed as `success` but are malformed.
   * These calls are also inside `byModel[modelId].success`; this is a separate tally, not an
   * extra outcome, so summing outcomes never counts a call twice.
   */
  malformed: Record<string, Partial<Record<MalformedAccountingKind, number>>>;
  /** Fingerprint of each billed (200) call -> its model and how many times it was billed. */
  successes: Record<string, { modelId: string; count: number }>;
  /** modelId -> Converse stopReason -> number of billed (200) answers that stopped so. */
  stopReasons: Record<string, Partial<Record<string, number>>>;
  /**
   * modelId -> prompt-cache tokens of billed calls. These are not in `byModel`'s inputTokens,
   * which counts uncached input only, as Bedrock's `usage.inputTokens` does: a call's bill is
   * inputTokens × input price + cacheReadInputTokens × cache-read price +
   * cacheWriteInputTokens × cache-write price + outputTokens × output price
   * (https://aws.amazon.com/bedrock/pricing/).
   */
  cache: Record<string, CacheCounter>;
}

/** Prompt-cache use of one model's billed calls. */
export interface CacheCounter {
  cacheReadInputTokens: number;
  cacheWriteInputTokens: number;
  /** Calls that read from the cache / wrote to it. */
  readCalls: number;
  writeCalls: number;
}

/** The parts of a Converse request that decide the answer; equal fingerprints mean a repeated question. */
export interface FingerprintInput {
  modelId: string;
  messages: unknown;
  system?: unknown;
  toolConfig?: unknown;
}

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/**
 * sha256 (hex) of the canonical JSON of `{modelId, messages, system, toolConfig}` (absent
 * system or toolConfig count as null), i.e. of `canonicalJson` of that object. The parts are
 * assembled by hand so a caller that has the tool config's canonical JSON already (it is large
 * and the same on every call of a review) can pass it instead of having it recomputed.
 */
export function callFingerprint(
  input: FingerprintInput,
  precomputed: { canonicalToolConfig?: string } = {},
): string {
  const toolConfig =
    precomputed.canonicalToolConfig ??
    (input.toolConfig === undefined ? 'null' : canonicalJson(input.toolConfig));
  const canonical =
    `{"messages":${canonicalJson(input.messages)},"modelId":${JSON.stringify(input.modelId)},` +
    `"system":${canonicalJson(input.system ?? null)},"toolConfig":${toolConfig}}`;
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Fingerprints that were billed more than once, i.e. identical calls paid for twice or more.
 *
 * @example
 * ```ts
 * // After a run with duplicate deliveries and retries, no question may have been paid twice:
 * expect(duplicateBilledCalls(standIn.accounting())).toEqual([]);
 * ```
 */
export function duplicateBilledCalls(snapshot: AccountingSnapshot): string[] {
  return Object.entries(snapshot.successes)
    .filter(([, entry]) => entry.count > 1)
    .map(([fingerprint]) => fingerprint);
}

/** Answers billed beyond the first for their question: the sum over fingerprints of count − 1. */
export function repeatedAnswers(snapshot: {
  readonly successes: Readonly<Record<string, { readonly count: number }>>;
}): number {
  let repeated = 0;
  for (const entry of Object.values(snapshot.successes)) repeated += Math.max(0, entry.count - 1);
  return repeated;
}

/** One call's entry in the books. */
export interface CallRecord {
  modelId: string;
  outcome: CallOutcome;
  /** Billed tokens; only for `success`. */
  inputTokens?: number;
  outputTokens?: number;
  /** Required for `success`. */
  fingerprint?: string;
  malformed?: MalformedAccountingKind;
  /** Converse stopReason of a `success`. */
  stopReason?: string;
  /** Prompt-cache tokens of a `success` (not included in inputTokens). */
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

const emptyCounter = (): UsageCounter => ({ calls: 0, inputTokens: 0, outputTokens: 0 });

/** The mutable books behind {@link AccountingSnapshot}. */
export class Accounting {
  private totals = emptyCounter();
  private byModel = new Map<string, Map<CallOutcome, UsageCounter>>();
  private malformed = new Map<string, Map<MalformedAccountingKind, number>>();
  private successes = new Map<string, { modelId: string; count: number }>();
  private stopReasons = new Map<string, Map<string, number>>();
  private cache = new Map<string, CacheCounter>();

  /** Records an answered call, billed for its tokens (cache tokens apart, as Bedrock reports them). */
  recordAnswer(
    modelId: string,
    answer: Pick<CallRecord, 'inputTokens' | 'outputTokens' | 'stopReason' | 'malformed'>,
    cache: Pick<CallRecord, 'cacheReadInputTokens' | 'cacheWriteInputTokens'> | undefined,
    fingerprint: string,
  ): void {
    this.record({
      modelId,
      outcome: 'success',
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
      stopReason: answer.stopReason,
      cacheReadInputTokens: cache?.cacheReadInputTokens,
      cacheWriteInputTokens: cache?.cacheWriteInputTokens,
      fingerprint,
      malformed: answer.malformed,
    });
  }

  /** Records one call. Tokens of anything but `success` are ignored: only answers are billed. */
  record(call: CallRecord): void {
    const billed = call.outcome === 'success';
    const inputTokens = billed ? (call.inputTokens ?? 0) : 0;
    const outputTokens = billed ? (call.outputTokens ?? 0) : 0;
    this.totals.calls++;
    this.totals.inputTokens += inputTokens;
    this.totals.outputTokens += outputTokens;
    let outcomes = this.byModel.get(call.modelId);
    if (!outcomes) {
      outcomes = new Map();
      this.byModel.set(call.modelId, outcomes);
    }
    let counter = outcomes.get(call.outcome);
    if (!counter) {
      counter = emptyCounter();
      outcomes.set(call.outcome, counter);
    }
    counter.calls++;
    counter.inputTokens += inputTokens;
    counter.outputTokens += outputTokens;
    if (billed && call.fingerprint) {
      const entry = this.successes.get(call.fingerprint);
      if (entry) entry.count++;
      else this.successes.set(call.fingerprint, { modelId: call.modelId, count: 1 });
    }
    if (billed && call.malformed) {
      let kinds = this.malformed.get(call.modelId);
      if (!kinds) {
        kinds = new Map();
        this.malformed.set(call.modelId, kinds);
      }
      kinds.set(call.malformed, (kinds.get(call.malformed) ?? 0) + 1);
    }
    if (billed && call.stopReason) {
      let reasons = this.stopReasons.get(call.modelId);
      if (!reasons) {
        reasons = new Map();
        this.stopReasons.set(call.modelId, reasons);
      }
      reasons.set(call.stopReason, (reasons.get(call.stopReason) ?? 0) + 1);
    }
    const read = billed ? (call.cacheReadInputTokens ?? 0) : 0;
    const write = billed ? (call.cacheWriteInputTokens ?? 0) : 0;
    if (read > 0 || write > 0) {
      let counter = this.cache.get(call.modelId);
      if (!counter) {
        counter = { cacheReadInputTokens: 0, cacheWriteInputTokens: 0, readCalls: 0, writeCalls: 0 };
        this.cache.set(call.modelId, counter);
      }
      counter.cacheReadInputTokens += read;
      counter.cacheWriteInputTokens += write;
      if (read > 0) counter.readCalls++;
      if (write > 0) counter.writeCalls++;
    }
  }

  /** A deep copy of the books. */
  snapshot(): AccountingSnapshot {
    const byModel: AccountingSnapshot['byModel'] = {};
    for (const [modelId, outcomes] of this.byModel) {
      byModel[modelId] = Object.fromEntries([...outcomes].map(([outcome, c]) => [outcome, { ...c }]));
    }
    const malformed: AccountingSnapshot['malformed'] = {};
    for (const [modelId, kinds] of this.malformed) malformed[modelId] = Object.fromEntries(kinds);
    const successes: AccountingSnapshot['successes'] = {};
    for (const [fingerprint, entry] of this.successes) successes[fingerprint] = { ...entry };
    const stopReasons: AccountingSnapshot['stopReasons'] = {};
    for (const [modelId, reasons] of this.stopReasons) stopReasons[modelId] = Object.fromEntries(reasons);
    const cache: AccountingSnapshot['cache'] = {};
    for (const [modelId, counter] of this.cache) cache[modelId] = { ...counter };
    return { totals: { ...this.totals }, byModel, malformed, successes, stopReasons, cache };
  }

  /** Empties the books. */
  reset(): void {
    this.totals = emptyCounter();
    this.byModel.clear();
    this.malformed.clear();
    this.successes.clear();
    this.stopReasons.clear();
    this.cache.clear();
  }
}
