/**
 * The body of POST /jobs/{id}/redlines, read into the request `decideRedlines` takes: one
 * decision on named redlines, or on every undecided one.
 */
import { z } from 'zod';
import { MAX_INSERT_CHARS, MAX_REDLINE_EDITS } from '../../text/redline-text.js';
import { MAX_NOTE_CHARS } from '../holds/decide.js';
import type { RedlineRequest } from '../holds/redline-decisions.js';
import { parseRequest } from './submission.js';

const edit = z
  .object({
    start: z.number().int().min(0),
    end: z.number().int().min(0),
    insert: z.string().max(MAX_INSERT_CHARS),
  })
  .strict();

/** The body of POST /jobs/{id}/redlines. */
export const redlineRequestSchema = z
  .object({
    /** Redline ids (`<clause>/redline/<topic>`), as `findings` lists them. */
    redlines: z.array(z.string().min(1).max(300)).min(1).max(5000).optional(),
    /** Every held redline without a decision yet. */
    allUndecided: z.literal(true).optional(),
    decision: z.enum(['accept', 'reject', 'edit']),
    /** With `edit`: the clause's text at [start, end) becomes `insert` (offsets in the clause's text). */
    edits: z.array(edit).min(1).max(MAX_REDLINE_EDITS).optional(),
    note: z.string().max(MAX_NOTE_CHARS).optional(),
  })
  .strict()
  .refine((r) => (r.redlines === undefined) !== (r.allUndecided === undefined), {
    message: "give either 'redlines' (a list of redline ids) or 'allUndecided: true', not both",
  })
  .refine((r) => (r.decision === 'edit') === (r.edits !== undefined), {
    message: "'edits' goes with the decision 'edit', and 'edit' needs them",
  })
  .refine((r) => r.decision !== 'edit' || r.redlines?.length === 1, {
    message: "'edit' names exactly one redline in 'redlines': edits are of one clause",
  });

/** The body of POST /jobs/{id}/redlines, as the app and the CLI send it. */
export type RedlineBody = z.input<typeof redlineRequestSchema>;

/**
 * The decision a body asks for.
 * @throws InvalidJobRequestError naming every problem of the body
 */
export function readRedlineRequest(body: unknown): RedlineRequest {
  const {
    redlines,
    allUndecided: _all,
    ...rest
  } = parseRequest(redlineRequestSchema, body, 'redline decision');
  return { ...rest, redlines: redlines ?? 'all-undecided' };
}
