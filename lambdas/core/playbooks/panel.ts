/**
 * The analysts a review against a playbook asks, and what each is told: the positions of its
 * categories for the contract type (and, as positions of their own, the required clauses that
 * no position shares a topic with, so every required topic is judged). An analyst with no
 * position to judge is not asked, unless the submitter keeps the full panel; the pairs left out
 * are recorded with that reason, never silently missing.
 */

import {
  type AnalystDefinition,
  orderedPosition,
  type PositionBrief,
  withPositions,
} from '../analysts/index.js';
import type { ContractNames } from '../analysts/positions.js';
import type { NotAskedAnalyst } from '../records/job-terms.js';
import type { Playbook, Position, RequiredClause } from './schema.js';

export type { NotAskedAnalyst };

import { topicsFor } from './schema.js';

/** What a playbook makes of a panel. */
export interface PlaybookPanel {
  /** The analysts to ask, each with the positions of its categories. */
  readonly analysts: readonly AnalystDefinition[];
  /** The analysts of the selection left out, with why (empty with `allAnalysts`). */
  readonly notAsked: readonly NotAskedAnalyst[];
}

/** The playbook's topics for a contract type, or all of them when none is known. */
export function applicableTopics(
  playbook: Playbook,
  contractType: string | undefined,
): { positions: Position[]; requiredClauses: RequiredClause[] } {
  return contractType === undefined
    ? { positions: [...playbook.positions], requiredClauses: [...playbook.requiredClauses] }
    : topicsFor(playbook, contractType);
}

/** A required clause no position shares a topic with, judged as a position with the standard only. */
function requiredBrief(r: RequiredClause): PositionBrief {
  return {
    topic: r.topic,
    category: r.category,
    question: r.question,
    standard: { position: 'The contract has such a clause.', language: r.language },
    fallbacks: [],
    notAcceptable: [],
  };
}

/**
 * Everything the analysts judge for a contract type: the positions, then the required clauses
 * with a topic of their own, in playbook order.
 */
export function positionBriefs(playbook: Playbook, contractType: string | undefined): PositionBrief[] {
  const { positions, requiredClauses } = applicableTopics(playbook, contractType);
  const topics = new Set(positions.map((p) => p.topic));
  return [
    ...positions.map(orderedPosition),
    ...requiredClauses.filter((r) => !topics.has(r.topic)).map(requiredBrief),
  ];
}

/**
 * The panel for a review against `playbook`: every analyst of the selection with the positions
 * of its categories; without `allAnalysts`, only those with a position to judge (all of them
 * when none has one).
 *
 * @example
 * const { analysts, notAsked } = playbookPanel(selectAnalysts(), playbook, 'services', false);
 */
export function playbookPanel(
  selection: readonly AnalystDefinition[],
  playbook: Playbook,
  contractType: string | undefined,
  allAnalysts: boolean,
  names?: ContractNames,
): PlaybookPanel {
  const briefed = withPositions(selection, {
    party: playbook.party,
    positions: positionBriefs(playbook, contractType),
    names,
  });
  // Without a position for any analyst (a contract type the playbook has no topic for), the job is
  // the generic review: a job that asks no one would report nothing.
  if (allAnalysts || !briefed.some((a) => a.playbook)) return { analysts: briefed, notAsked: [] };
  const scope = contractType === undefined ? '' : ` for a ${contractType} contract`;
  return {
    analysts: briefed.filter((a) => a.playbook),
    notAsked: briefed
      .filter((a) => !a.playbook)
      .map((a) => ({
        analystId: a.id,
        reason: 'playbook' as const,
        detail: `playbook '${playbook.name}' has no position${scope} in ${a.categories.join(', ')}`,
      })),
  };
}
