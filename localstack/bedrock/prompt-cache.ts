/**
 * Prompt caching as Bedrock does it for Converse
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html):
 *
 * - A `{cachePoint: {type: 'default'}}` block in `toolConfig.tools`, `system` or a message's
 *   `content` marks a checkpoint. The prompt prefix up to it, in Bedrock's order (tools, then
 *   system, then messages), is a cache entry for that model; any change to the prefix is a miss.
 * - A checkpoint counts only if the tokens since the previous counted checkpoint (since the
 *   start, for the first) reach the model's minimum; below it "the checkpoint is ignored" and
 *   the request still succeeds. Fields a model cannot cache (tools, on Amazon Nova) are ignored
 *   the same way.
 * - The longest prefix still in cache is read (`cacheReadInputTokens`); the tokens from there to
 *   the last counted checkpoint are written (`cacheWriteInputTokens`); `inputTokens` is what is
 *   left. Entries live 5 minutes (or `ttl: '1h'`), and a hit resets the timer.
 *
 * Token counts use the stand-in's own estimate (ceil(chars / 4)) on the same characters the
 * answer's `inputTokens` counts, so the three always add up to the uncached input.
 */
import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from './accounting.js';
import { DEFAULT_CHARS_PER_TOKEN, type PromptCachingSpec, tokensFor } from './catalogue.js';
import type { ConverseRequest } from './converse-request.js';

/** Default cache entry lifetime, reset on every hit. */
export const CACHE_TTL_MS = 5 * 60_000;
const TTL_MS: Readonly<Record<string, number>> = { '5m': CACHE_TTL_MS, '1h': 60 * 60_000 };

/** One checkpoint of a request: the prefix's identity and size. */
export interface CacheCheckpoint {
  /** sha256 of the model and the exact prefix content. */
  readonly key: string;
  /** Estimated tokens of the prefix. */
  readonly tokens: number;
  readonly ttl: '5m' | '1h';
  readonly field: 'tools' | 'system' | 'messages';
}

/** How a call used the cache. */
export interface CacheUse {
  readonly cacheReadInputTokens: number;
  readonly cacheWriteInputTokens: number;
  /** TTL of the written entries, when any were written. */
  readonly writeTtl?: '5m' | '1h';
}

const isCachePoint = (block: unknown): block is { cachePoint: { ttl?: unknown } } =>
  typeof block === 'object' && block !== null && 'cachePoint' in block;

/** True when the request has a cachePoint block anywhere Converse accepts one. */
export function hasCachePoints(request: ConverseRequest): boolean {
  if (request.system?.some(isCachePoint)) return true;
  if (request.toolConfig?.tools.some(isCachePoint)) return true;
  return request.messages.some((message) => message.content.some(isCachePoint));
}

/** Characters a content block adds to the input (as converse-answer counts them). */
export function blockChars(block: Record<string, unknown>): number {
  if (isCachePoint(block)) return 0;
  return typeof block.text === 'string' ? block.text.length : JSON.stringify(block).length;
}

function toolChars(tool: Record<string, unknown>): number {
  const spec = tool.toolSpec as
    | { name: string; description?: string; inputSchema?: { json?: unknown } }
    | undefined;
  if (!spec) return 0;
  return (
    spec.name.length + (spec.description?.length ?? 0) + JSON.stringify(spec.inputSchema?.json ?? {}).length
  );
}

/**
 * The request's checkpoints that count for a model, in prefix order. `modelKey` scopes the
 * entries (the base model id: profiles of one model share its cache in this stand-in).
 */
export function cacheCheckpoints(
  request: ConverseRequest,
  modelKey: string,
  spec: PromptCachingSpec,
  charsPerToken = DEFAULT_CHARS_PER_TOKEN,
): CacheCheckpoint[] {
  const hash: Hash = createHash('sha256').update(modelKey);
  const checkpoints: CacheCheckpoint[] = [];
  let chars = 0;
  let lastCounted = 0;
  const mark = (block: { cachePoint: { ttl?: unknown } }, field: CacheCheckpoint['field']): void => {
    if (!spec.fields.includes(field)) return;
    const tokens = tokensFor(chars, charsPerToken);
    if (tokens - lastCounted < spec.minTokensPerCheckpoint) return;
    lastCounted = tokens;
    const ttl = block.cachePoint.ttl === '1h' ? '1h' : '5m';
    checkpoints.push({ key: hash.copy().digest('hex'), tokens, ttl, field });
  };
  hash.update('\u0000tools');
  for (const tool of request.toolConfig?.tools ?? []) {
    if (isCachePoint(tool)) {
      mark(tool, 'tools');
      continue;
    }
    hash.update(canonicalJson(tool));
    chars += toolChars(tool);
  }
  hash.update('\u0000system');
  for (const block of request.system ?? []) {
    if (isCachePoint(block)) {
      mark(block, 'system');
      continue;
    }
    hash.update(canonicalJson(block));
    chars += blockChars(block);
  }
  for (const message of request.messages) {
    hash.update(`\u0000${message.role}`);
    for (const block of message.content) {
      if (isCachePoint(block)) {
        mark(block, 'messages');
        continue;
      }
      hash.update(canonicalJson(block));
      chars += blockChars(block);
    }
  }
  return checkpoints;
}

/** Cache entries of one stand-in, with an injectable clock (milliseconds). */
export class PromptCache {
  private readonly entries = new Map<string, { expiresAt: number; ttlMs: number }>();

  constructor(private readonly now: () => number) {}

  /** Reads the longest cached prefix, writes the rest up to the last checkpoint, and says how much of each. */
  use(checkpoints: readonly CacheCheckpoint[]): CacheUse {
    const now = this.now();
    let hit = -1;
    for (let i = checkpoints.length - 1; i >= 0; i--) {
      const key = (checkpoints[i] as CacheCheckpoint).key;
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (entry.expiresAt <= now) {
        this.entries.delete(key);
        continue;
      }
      entry.expiresAt = now + entry.ttlMs;
      hit = i;
      break;
    }
    const read = hit >= 0 ? (checkpoints[hit] as CacheCheckpoint).tokens : 0;
    const last = checkpoints[checkpoints.length - 1];
    if (!last || hit === checkpoints.length - 1)
      return { cacheReadInputTokens: read, cacheWriteInputTokens: 0 };
    for (let i = hit + 1; i < checkpoints.length; i++) {
      const checkpoint = checkpoints[i] as CacheCheckpoint;
      const ttlMs = TTL_MS[checkpoint.ttl] ?? CACHE_TTL_MS;
      this.entries.set(checkpoint.key, { expiresAt: now + ttlMs, ttlMs });
    }
    return { cacheReadInputTokens: read, cacheWriteInputTokens: last.tokens - read, writeTtl: last.ttl };
  }

  /** Number of live entries (expired ones are dropped first). */
  size(): number {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
