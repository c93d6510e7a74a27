/**
 * A call's identity: the request of its first attempt and the ledger key hashed from it, so a
 * changed prompt is a different call and never reuses an old answer.
 */
import { createHash } from 'node:crypto';
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { type AnalystDefinition, buildConverseInput } from '../analysts/index.js';
import type { Clause } from '../clause.js';
import type { DocumentContext } from '../documents/document-context.js';

/**
 * The call-ledger idempotency key: a hash of the request itself (prompt text, clause,
 * tool schema, parameters, primary model), so any change to the prompt is a different call and
 * can never reuse an old answer.
 */
export function idempotencyKey(
  analyst: AnalystDefinition,
  clause: Clause,
  context?: DocumentContext,
): string {
  return idempotencyKeyOf(analyst, firstInput(analyst, clause, context));
}

/** The request of a call's first attempt: on the analyst's own model, without a repair. */
export function firstInput(
  analyst: AnalystDefinition,
  clause: Clause,
  context?: DocumentContext,
): ConverseCommandInput {
  return buildConverseInput(analyst, clause, {
    modelId: analyst.modelId,
    ...(context ? { context } : {}),
  });
}

/** {@link idempotencyKey} of a first attempt's request already built ({@link firstInput}). */
export function idempotencyKeyOf(analyst: AnalystDefinition, input: ConverseCommandInput): string {
  return createHash('sha256')
    .update(JSON.stringify([analyst.id, input]))
    .digest('hex')
    .slice(0, 32);
}
