/**
 * Which models the panel calls: one primary and one fallback for every analyst, with optional
 * per-analyst overrides. The configuration travels one way: CDK props or context set the
 * worker's environment, intake reads it (with the upload's own `model` option over it) and
 * stores the resolved choice on the job, and the worker calls what the job says. A job keeps
 * the models it was quoted and checked with even if the deployment changes under it.
 */
import { modelSpec } from '../model-catalogue.js';
import { UnknownAnalystError } from './errors.js';
import { ANALYST_IDS, type AnalystDefinition } from './registry.js';

/** A primary model and the fallback used after repeated throttling of it. */
export interface ModelChoice {
  readonly primary: string;
  readonly fallback: string;
}

/** The panel's models: the default for every analyst, and overrides by analyst id. */
export interface PanelModels extends ModelChoice {
  readonly perAnalyst?: Readonly<Record<string, Partial<ModelChoice>>>;
}

/** The models of one analyst. */
export function modelsOf(panel: PanelModels, analystId: string): ModelChoice {
  const own = panel.perAnalyst?.[analystId];
  return { primary: own?.primary ?? panel.primary, fallback: own?.fallback ?? panel.fallback };
}

/** The analysts with the panel's models in place of their defaults. */
export function withModels(
  analysts: readonly AnalystDefinition[],
  panel: PanelModels,
): readonly AnalystDefinition[] {
  return analysts.map((a) => {
    const m = modelsOf(panel, a.id);
    return { ...a, modelId: m.primary, fallbackModelId: m.fallback };
  });
}

/** Every distinct model id the panel may call, primaries first. */
export function panelModelIds(panel: PanelModels): readonly string[] {
  const own = Object.values(panel.perAnalyst ?? {});
  return [
    ...new Set([
      panel.primary,
      ...own.flatMap((m) => (m.primary ? [m.primary] : [])),
      panel.fallback,
      ...own.flatMap((m) => (m.fallback ? [m.fallback] : [])),
    ]),
  ];
}

/**
 * Checks a panel configuration: every override names a known analyst, and every model has a
 * price (spending on an unpriced model could break the ceiling).
 *
 * @throws UnknownAnalystError for an override of an unknown analyst.
 * @throws UnpricedModelError naming the first model without a price.
 */
export function checkPanelModels(panel: PanelModels): PanelModels {
  for (const id of Object.keys(panel.perAnalyst ?? {})) {
    if (!ANALYST_IDS.includes(id)) throw new UnknownAnalystError(id, ANALYST_IDS);
  }
  for (const id of panelModelIds(panel)) modelSpec(id);
  return panel;
}

/** The panel with `primary` as every analyst's primary model (a one-run override). */
export function withPrimary(panel: PanelModels, primary: string): PanelModels {
  const perAnalyst = Object.fromEntries(
    Object.entries(panel.perAnalyst ?? {}).map(([id, m]) => [id, { ...m, primary }]),
  );
  return { primary, fallback: panel.fallback, perAnalyst };
}
