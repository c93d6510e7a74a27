/**
 * Defaults the README and docs/ state, against the constants the code runs with: the default
 * cost ceiling, retention, each lane's concurrency, the deploy flags' defaults, and the models
 * with their prices and cache minimums. A doc that drifts from the code fails here, and so does
 * a page that no longer states what it is read for (the text moved without this test).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CEILING_MICROS,
  DEFAULT_MAX_CEILING_MICROS,
} from '../../../lambdas/core/lanes-and-limits.js';
import { FALLBACK_MODEL_ID, MODELS, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { DEPLOY_CONTEXT_FLAGS } from '../../../lib/deploy-context.js';
import { DEFAULT_RETENTION_DAYS } from '../../../lib/document-buckets.js';
import { defaultDailySpendPerOwner, defaultMaxJobsPerOwner } from '../../../lib/owner-cap.js';
import { PROJECT_ROOT } from '../../../lib/project-root.js';
import { topology } from '../../../lib/topology.js';

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
/** The page with the deploy flags table and the buckets' retention. */
const DEPLOY = read('docs/deploy.md');
/** The page with the default models, their prices and cache minimums. */
const MODELS_PAGE = read('docs/models.md');
/** Every text a user reads defaults in: the README, every page of docs/, and the CLI's help. */
const TEXTS: Record<string, string> = {
  'README.md': read('README.md'),
  ...Object.fromEntries(
    readdirSync(join(PROJECT_ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => [`docs/${name}`, read(`docs/${name}`)]),
  ),
  'bin/clause-review.ts': read('bin/clause-review.ts'),
};
const CEILING_USD = DEFAULT_CEILING_MICROS / 1_000_000;

/** The first group of every match of `pattern` in `text`. */
function claims(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => m[1] ?? '');
}

/** Dollar amounts a text gives as the default ceiling or budget. */
function ceilingClaims(text: string): string[] {
  return [
    ...claims(text, /default (?:cost )?ceiling(?: of| is)? \(?\$(\d+(?:\.\d+)?)/gi),
    ...claims(text, /--ceiling USD`?[^\n]*?\(default \$?(\d+(?:\.\d+)?)/g),
  ];
}

/** The deploy flags table of docs/deploy.md: flag → its default cell. */
function deployFlagDefaults(text: string): Map<string, string> {
  const rows = [...text.matchAll(/^\| `-c (\w+)=[^\n]*\| ([^|\n]+) \|$/gm)];
  return new Map(rows.map((m) => [m[1] ?? '', (m[2] ?? '').trim()]));
}

describe('defaults stated in the docs', () => {
  it('finds a wrong default ceiling, as docs/api.md once said $5 against $20', () => {
    expect(ceilingClaims("| `ceilingUsd` | number | the stack's default ceiling ($5) |")).toEqual(['5']);
    expect(ceilingClaims('--ceiling USD              cost ceiling (default 5; …)')).toEqual(['5']);
    expect(deployFlagDefaults('| `-c retentionDays=N` | days (1-3650) | 30 |').get('retentionDays')).toBe(
      '30',
    );
  });

  it('state the default cost ceiling the code applies', () => {
    const found = Object.entries(TEXTS).flatMap(([file, text]) =>
      ceilingClaims(text).map((usd) => [file, usd]),
    );
    expect(found.map(([file]) => file)).toEqual(
      expect.arrayContaining(['docs/local-aws.md', 'docs/api.md', 'bin/clause-review.ts']),
    );
    for (const [file, usd] of found) expect([file, Number(usd)]).toEqual([file, CEILING_USD]);
  });

  it('document every deploy flag, each with the default the code has', () => {
    const defaults = deployFlagDefaults(DEPLOY);
    expect([...defaults.keys()]).toEqual([...DEPLOY_CONTEXT_FLAGS]);
    const t = topology();
    expect(Object.fromEntries(defaults)).toMatchObject({
      prefix: '`clause-review`',
      alertEmails: 'none',
      administrators: 'none',
      retentionDays: String(DEFAULT_RETENTION_DAYS),
      removalPolicy: '`retain`',
      defaultCeiling: String(CEILING_USD),
      maxCeiling: String(DEFAULT_MAX_CEILING_MICROS / 1_000_000),
      dailySpendPerOwner: String(defaultDailySpendPerOwner(PRIMARY_MODEL_ID) / 1_000_000),
      officeTenants: 'none',
      maxJobsPerOwner: String(defaultMaxJobsPerOwner(t)),
      realtimeConcurrency: String(t.queues.realtime.maxConcurrency),
      batchConcurrency: String(t.queues.batch.maxConcurrency),
    });
    expect(defaults.get('models')).toContain(`\`${PRIMARY_MODEL_ID}\``);
    expect(defaults.get('models')).toContain(`\`${FALLBACK_MODEL_ID}\``);
  });

  it('state the retention the buckets are given', () => {
    const days = claims(DEPLOY, /\*\*(\d+) days\*\* after they were written/g);
    expect(days).toEqual([String(DEFAULT_RETENTION_DAYS)]);
  });

  it('name the default primary and fallback models', () => {
    const named =
      /The analysts call \*\*[^*]+\*\*[^`]*\(`([^`]+)`\), with \*\*[^*]+\*\*\s*\(`([^`]+)`\) as the fallback/.exec(
        MODELS_PAGE,
      );
    expect([named?.[1], named?.[2]]).toEqual([PRIMARY_MODEL_ID, FALLBACK_MODEL_ID]);
  });

  it("give each model's prices and cache minimum as the price table has them", () => {
    const rows = [
      ...MODELS_PAGE.matchAll(
        /^\| Claude [^|]+\| `([a-z0-9.:-]+)`[^|]*\|[^|]+\| ([\d./ ]+) \| ([\d,]+)[^|]*\|$/gm,
      ),
    ];
    expect(rows.length).toBe(4);
    for (const [, foundationId, prices, minimum] of rows) {
      const spec = Object.values(MODELS).find((m) => m.foundationModelId === foundationId);
      expect(spec, `${foundationId} is not in lambdas/core/model-catalogue.ts`).toBeDefined();
      const p = spec?.price;
      const perMillion = (per1k = 0) => per1k / 1000;
      expect((prices ?? '').split('/').map((x) => Number(x.trim()))).toEqual([
        perMillion(p?.inputPer1k),
        perMillion(p?.outputPer1k),
        perMillion(p?.cacheReadPer1k),
        perMillion(p?.cacheWritePer1k),
      ]);
      expect(Number((minimum ?? '').replace(/,/g, ''))).toBe(spec?.cacheMinTokens);
    }
    const primaryMinimum = claims(MODELS_PAGE, /\((\d[\d,]*) tokens for Haiku 5\.5/g);
    expect(primaryMinimum.map((n) => Number(n.replace(/,/g, '')))).toEqual([
      MODELS[PRIMARY_MODEL_ID]?.cacheMinTokens,
    ]);
  });
});
