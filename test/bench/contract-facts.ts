/**
 * `npm run bench -- --only facts` (or `npx tsx test/bench/contract-facts.ts [DIR]`): what intake
 * reads of each contract of the development set (`../shared/corpus/contracts`, 40 CUAD contracts)
 * against CUAD's lawyer labels: the parties (`readParties`) against the `Parties` spans, the
 * defined terms (`readDefinedTerms`), and the kind (`readContractKind`) against the `Document
 * Name` label. Each contract is parsed as an upload of it would be (`parseDocument`), and its
 * kind read with the title the document context finds and its file name.
 *
 * A party read is confirmed when its name, defined name or another name it is given appears in
 * a `Parties` span, or a span (a name the labeller cut shorter, "JVLS, LLC") appears in its
 * name; a span is covered when it confirms some party read, or holds the collective name read
 * (`(each a "Party," together, the "Parties")`). The kind agrees when the label names
 * the same kind first (a label naming none, "JOINT FILING AGREEMENT", agrees with no kind read).
 * Figures only: nothing here asserts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readContractKind } from '../../lambdas/core/documents/contract-kind.js';
import { kindsNamedIn } from '../../lambdas/core/documents/contract-kinds.js';
import { type ContractParty, readParties } from '../../lambdas/core/documents/contract-parties.js';
import { readDefinedTerms } from '../../lambdas/core/documents/defined-terms.js';
import { findDocumentContext } from '../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';

/** Default development set, beside the repository. */
export const DEV_SET = '../shared/corpus/contracts';

/** What was read of one contract, and how it compares with the labels. */
export interface ContractFacts {
  readonly name: string;
  readonly parties: readonly ContractParty[];
  /** The name the preamble gives the parties together ("Parties"), if any. */
  readonly collective?: string;
  readonly confirmed: number;
  readonly spans: number;
  readonly covered: number;
  readonly problem?: string;
  readonly definedTerms: number;
  /** Parties with a defined name that the defined-terms reader also finds. */
  readonly definedKnown: number;
  readonly kind?: string;
  readonly kindSource?: string;
  readonly labelKind?: string;
  readonly label: string;
  /** Reading time of the three readers together, milliseconds. */
  readonly ms: number;
}

/** Lower case, single spaces, no quotes or trailing punctuation: how names and spans are compared. */
const squash = (s: string) =>
  s
    .toLowerCase()
    .replace(/["“”'‘’()]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s.,;:]+$/, '')
    .trim();

/** Whether a party and a span name the same party, as the module comment says. */
function names(party: ContractParty, span: string): boolean {
  const s = squash(span);
  const own = [party.name, party.defined, ...(party.aliases ?? [])]
    .filter((n): n is string => !!n)
    .map(squash);
  return own.some((n) => n.length >= 2 && (s.includes(n) || (s.length >= 4 && n.includes(s))));
}

/** Reads one contract of `dir` and compares it with its labels. */
export async function contractFacts(dir: string, name: string): Promise<ContractFacts> {
  const bytes = readFileSync(join(dir, `${name}.txt`));
  const labels = JSON.parse(readFileSync(join(dir, `${name}.labels.json`), 'utf8')) as {
    categories: Record<string, string[]>;
  };
  const doc = await parseDocument(bytes, { key: `${name}.txt`, maxBytes: 10 * 1024 * 1024 });
  const title = findDocumentContext(doc.text, doc.clauses).title;
  const started = performance.now();
  const parties = readParties(doc.text);
  const terms = readDefinedTerms(doc.text);
  const kind = readContractKind(doc.text, title, `${name}.txt`);
  const ms = performance.now() - started;
  const spans = labels.categories.Parties ?? [];
  const label = labels.categories['Document Name']?.[0] ?? '';
  const defined = parties.parties.filter((p) => p.defined !== undefined);
  return {
    name,
    parties: parties.parties,
    confirmed: parties.parties.filter((p) => spans.some((s) => names(p, s))).length,
    spans: spans.length,
    covered: spans.filter(
      (s) =>
        parties.parties.some((p) => names(p, s)) ||
        (!!parties.collective && s.includes(`"${parties.collective}`)),
    ).length,
    ...(parties.collective ? { collective: parties.collective } : {}),
    ...(parties.problem ? { problem: parties.problem } : {}),
    definedTerms: terms.terms.length,
    definedKnown: defined.filter((p) => terms.defines(p.defined as string)).length,
    ...(kind.kind ? { kind: kind.kind, kindSource: kind.source } : {}),
    ...(kindsNamedIn(label)[0] ? { labelKind: kindsNamedIn(label)[0] } : {}),
    label,
    ms,
  };
}

/** Every labelled contract of `dir`, read. */
export async function measureContractFacts(dir: string): Promise<ContractFacts[]> {
  const files = new Set(readdirSync(dir));
  const contracts = [...files]
    .filter((f) => f.endsWith('.txt') && files.has(f.replace(/\.txt$/, '.labels.json')))
    .map((f) => f.replace(/\.txt$/, ''))
    .sort();
  const out: ContractFacts[] = [];
  // One read before the measured ones, so the first contract's time is not the compiler's.
  if (contracts[0]) await contractFacts(dir, contracts[0]);
  for (const name of contracts) out.push(await contractFacts(dir, name));
  return out;
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(0)}%`);

/** One line per contract, then the totals. */
export function formatContractFacts(facts: readonly ContractFacts[]): string {
  const lines = facts.map((f) => {
    const who = f.parties.map(
      (p) => `${p.name}${p.defined ? ` ("${p.defined}", ${p.side})` : ` (${p.side})`}`,
    );
    const kindOk = f.kind === f.labelKind ? 'ok' : 'DIFFERS';
    return [
      `${f.name.slice(0, 58)}`,
      `  parties ${f.confirmed}/${f.parties.length} confirmed, spans ${f.covered}/${f.spans} covered: ${who.join('; ') || f.problem}`,
      `  defined terms ${f.definedTerms} (party names known ${f.definedKnown}); kind ${f.kind ?? '-'} (${f.kindSource ?? '-'}) vs label "${f.label}" (${f.labelKind ?? '-'}): ${kindOk}; ${f.ms.toFixed(1)} ms`,
    ].join('\n');
  });
  const sum = (pick: (f: ContractFacts) => number) => facts.reduce((n, f) => n + pick(f), 0);
  const read = sum((f) => f.parties.length);
  const confirmed = sum((f) => f.confirmed);
  const spans = sum((f) => f.spans);
  const covered = sum((f) => f.covered);
  const two = facts.filter((f) => f.parties.length >= 2).length;
  const allConfirmed = facts.filter((f) => f.parties.length >= 2 && f.confirmed === f.parties.length).length;
  const defined = sum((f) => f.parties.filter((p) => p.defined).length);
  const kinds = facts.filter((f) => f.kind === f.labelKind).length;
  const bySource = ['title', 'body', 'file-name'].map(
    (s) => `${s} ${facts.filter((f) => f.kindSource === s).length}`,
  );
  const times = facts.map((f) => f.ms).sort((a, b) => a - b);
  const slowest = facts.reduce((a, f) => (f.ms > a.ms ? f : a), facts[0] as ContractFacts);
  return [
    ...lines,
    '',
    `${facts.length} contracts: two or more parties read in ${two}; every party read confirmed in ${allConfirmed}`,
    `parties read ${read}, confirmed by a CUAD span ${confirmed} (${pct(confirmed, read)}); with a defined name ${defined}`,
    `CUAD Parties spans ${spans}, covered by a party read ${covered} (${pct(covered, spans)})`,
    `defined terms ${sum((f) => f.definedTerms)} in all; party defined names the terms reader also finds ${sum((f) => f.definedKnown)}/${defined}`,
    `kind agrees with the Document Name label in ${kinds}/${facts.length} (read from: ${bySource.join(', ')})`,
    `reading time of the three readers: median ${(times[times.length >> 1] ?? 0).toFixed(1)} ms, ` +
      `slowest ${slowest?.ms.toFixed(1)} ms (${slowest?.name.slice(0, 40)})`,
  ].join('\n');
}

/** The bench's report, or undefined when the development set is not beside the repository. */
export async function runContractFactsBench(
  dir = process.env.CUAD_DEV_SET ?? DEV_SET,
): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  return formatContractFacts(await measureContractFacts(dir));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await runContractFactsBench(process.argv[2]);
  console.log(report ?? `skipped: the development set (${process.argv[2] ?? DEV_SET}) is not here`);
}
