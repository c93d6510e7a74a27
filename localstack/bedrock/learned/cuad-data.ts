/**
 * CUAD contracts with lawyer labels, read for training and for the agreement bench: each
 * contract is split into clauses exactly as intake splits it, and each clause is given the
 * CUAD categories whose labelled spans it holds (the matching rule below, written down in
 * docs/offline-analyst.md). Only offline tooling reads this; the stand-in never does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATEGORIES, type CategoryId } from '../../../lambdas/core/analysts/categories.js';
import type { Clause } from '../../../lambdas/core/clause.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';

/** One clause of a labelled contract. */
export interface LabelledClause {
  /** The clause as intake produces it (id, label, heading, offsets into the normalised text). */
  readonly clause: Clause;
  readonly text: string;
  /** CUAD categories (lower case) whose spans this clause holds. */
  readonly cuad: ReadonlySet<string>;
  /** The risk categories those CUAD categories map to. */
  readonly risks: ReadonlySet<CategoryId>;
}

/** One contract: its clauses and how many label pieces could not be found in its text. */
export interface LabelledContract {
  readonly name: string;
  readonly clauses: readonly LabelledClause[];
  readonly pieces: number;
  readonly unfoundPieces: number;
}

/** A clause holds a span piece when they share at least this many characters (or the whole piece). */
export const MIN_OVERLAP_CHARS = 25;

/** Lower-case CUAD category name -> risk category; unmapped categories are absent. */
export const RISK_OF_CUAD: ReadonlyMap<string, CategoryId> = new Map(
  CATEGORIES.flatMap((c) => c.cuad.map((name) => [name.toLowerCase(), c.id] as const)),
);

/** A text with whitespace runs collapsed to one space, and where each character came from. */
interface Collapsed {
  readonly text: string;
  readonly origin: readonly number[];
}

function collapse(text: string): Collapsed {
  let out = '';
  const origin: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      space = true;
      continue;
    }
    if (space && out.length > 0) {
      out += ' ';
      origin.push(i - 1);
    }
    space = false;
    out += ch;
    origin.push(i);
  }
  return { text: out, origin };
}

const squash = (text: string): string =>
  text
    .normalize('NFC')
    .replace(/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' ')
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Where a label piece lies in the text ([start, end) offsets), or undefined when it is not there. */
function locatePiece(
  doc: Collapsed & { readonly lower: string },
  piece: string,
): [number, number] | undefined {
  const wanted = squash(piece);
  if (wanted.length === 0) return undefined;
  let at = doc.text.indexOf(wanted);
  if (at === -1) at = doc.lower.indexOf(wanted.toLowerCase());
  if (at === -1) return undefined;
  const start = doc.origin[at] as number;
  const end = (doc.origin[at + wanted.length - 1] as number) + 1;
  return [start, end];
}

/** Reads one contract (`NAME.txt` and `NAME.labels.json`) and labels its clauses. */
export async function readLabelledContract(dir: string, name: string): Promise<LabelledContract> {
  const bytes = readFileSync(join(dir, `${name}.txt`));
  const parsed = await parseDocument(bytes, { key: `${name}.txt`, maxBytes: 10 * 1024 * 1024 });
  const labels = JSON.parse(readFileSync(join(dir, `${name}.labels.json`), 'utf8')) as {
    categories: Record<string, string[]>;
  };
  const collapsed = collapse(parsed.text);
  const doc = { ...collapsed, lower: collapsed.text.toLowerCase() };
  const cuadSets = parsed.clauses.map(() => new Set<string>());
  let pieces = 0;
  let unfound = 0;
  for (const [category, spans] of Object.entries(labels.categories)) {
    const cuad = category.toLowerCase();
    if (!RISK_OF_CUAD.has(cuad)) continue;
    for (const span of spans) {
      for (const piece of span.split('<omitted>')) {
        if (squash(piece).length === 0) continue;
        pieces++;
        const at = locatePiece(doc, piece);
        if (!at) {
          unfound++;
          continue;
        }
        const need = Math.min(MIN_OVERLAP_CHARS, at[1] - at[0]);
        parsed.clauses.forEach((clause, i) => {
          const overlap = Math.min(clause.end, at[1]) - Math.max(clause.start, at[0]);
          if (overlap >= need) cuadSets[i]?.add(cuad);
        });
      }
    }
  }
  const clauses = parsed.clauses.map((clause, i) => {
    const cuad = cuadSets[i] as Set<string>;
    const risks = new Set<CategoryId>([...cuad].map((c) => RISK_OF_CUAD.get(c) as CategoryId));
    return { clause, text: clause.text, cuad, risks };
  });
  return { name, clauses, pieces, unfoundPieces: unfound };
}

/** Names of the labelled contracts in a folder (`NAME.txt` with a `NAME.labels.json` beside it). */
function contractNames(dir: string): string[] {
  const files = new Set(readdirSync(dir));
  return [...files]
    .filter((f) => f.endsWith('.txt') && files.has(f.replace(/\.txt$/, '.labels.json')))
    .map((f) => f.replace(/\.txt$/, ''))
    .sort();
}

/** Every labelled contract of a folder, in name order. */
export async function readLabelledContracts(dir: string): Promise<LabelledContract[]> {
  const out: LabelledContract[] = [];
  for (const name of contractNames(dir)) out.push(await readLabelledContract(dir, name));
  return out;
}
