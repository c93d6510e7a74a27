/**
 * The body of POST /jobs/{id}/decisions, read into the request `decide` takes: one verdict on
 * named findings, or on every undecided one.
 */
import { z } from 'zod';
import { type DecisionRequest, MAX_NOTE_CHARS } from '../holds/decide.js';
import { parseRequest } from './submission.js';

/** The body of POST /jobs/{id}/decisions. */
export const decisionRequestSchema = z
  .object({
    /** Finding ids (`<clause>/<category>`), as `findings` lists them. */
    findings: z.array(z.string().min(1).max(200)).min(1).max(5000).optional(),
    /** Every gated finding without a decision yet. */
    allUndecided: z.literal(true).optional(),
    verdict: z.enum(['approve', 'override', 'reject']),
    /** The reviewer's score (0–3), with `override` only. */
    score: z.number().int().min(0).max(3).optional(),
    note: z.string().max(MAX_NOTE_CHARS).optional(),
  })
  .strict()
  .refine((r) => (r.findings === undefined) !== (r.allUndecided === undefined), {
    message: "give either 'findings' (a list of finding ids) or 'allUndecided: true', not both",
  });

/** The body of POST /jobs/{id}/decisions, as a client writes it. */
export type DecisionBody = z.input<typeof decisionRequestSchema>;

/**
 * The decision a body asks for.
 * @throws InvalidJobRequestError naming every problem of the body
 */
export function readDecisionRequest(body: unknown): DecisionRequest {
  const { findings, allUndecided: _all, ...rest } = parseRequest(decisionRequestSchema, body, 'decision');
  return { ...rest, findings: findings ?? 'all-undecided' };
}
