/** The rungs of a playbook position, as report.json, the reports, the app and the CLI name them. */

/**
 * How far a clause meets a position: `standard`; `fallback` (with its index, 1 to 3, in the
 * position's order of preference); `not-acceptable` (below every fallback, or one of the
 * position's not-acceptable terms); `not-addressed` (the clause does not deal with the topic).
 */
export type RungKind = 'standard' | 'fallback' | 'not-acceptable' | 'not-addressed';

/** A fallback's index: 1 is the most favourable fallback. */
export type FallbackIndex = 1 | 2 | 3;

/**
 * A rung: its kind, and the fallback's index when it is one.
 * @example { rung: 'fallback', fallback: 2 } // the position's second fallback
 */
export interface Rung {
  readonly rung: RungKind;
  /** Present exactly when `rung` is `fallback`. */
  readonly fallback?: FallbackIndex;
}
