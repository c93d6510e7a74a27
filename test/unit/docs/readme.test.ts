/**
 * The README stays a page a newcomer reads in minutes: at most 250 lines, the rest in docs/.
 * What must stay in it: the two commands exactly as a newcomer runs them, a map that leads to
 * every page of docs/, and every runtime dependency named with the reason it is there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../lib/project-root.js';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** The text of the README's section under `heading`, up to the next heading of its level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}

/** Runtime dependencies the section's table names (backticked, in a row with a reason). */
function namedDependencies(text: string): Set<string> {
  const rows = text.split('\n').filter((line) => /^\| `/.test(line));
  const named = rows.flatMap((row) => {
    const [names = '', reason = ''] = row.split('|').slice(1);
    if (reason.trim() === '') return [];
    return [...names.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
  });
  return new Set(named);
}

describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(README.split('\n').length - (README.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(250);
  });

  it('gives the two commands a newcomer runs', () => {
    expect(README).toContain(
      'npx clause-review review test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
    );
    expect(README).toMatch(/^npm test$/m);
  });

  it('leads to every page of docs/ from its map by reader', () => {
    const map = section(README, 'Documentation, by reader');
    const pages = readdirSync(join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((name) => !map.includes(`](docs/${name})`))).toEqual([]);
  });

  it('finds a dependency left out of the table, and one without a reason', () => {
    const table = [
      '| dependency | why |',
      '|---|---|',
      '| `zod`, `tsx` | validation; running TypeScript |',
      '| `fflate` |  |',
    ];
    expect([...namedDependencies(table.join('\n'))]).toEqual(['zod', 'tsx']);
  });

  it('names every runtime dependency of package.json with its reason', () => {
    const named = namedDependencies(section(README, 'Dependencies and why'));
    const missing = Object.keys(PACKAGE.dependencies).filter((name) => !named.has(name));
    expect(missing).toEqual([]);
  });
});
