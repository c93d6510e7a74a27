/**
 * A round of a negotiation as the reviewer app and the Word add-in offer it: the version a new
 * upload answers, chosen among the owner's earlier jobs (those of the same contract first) or given
 * as a file, and the request and uploads that choice makes.
 */
import type { JobSummary, SubmitRequest } from './api.js';

/** Statuses of a job whose document can be compared with: intake read it. */
const READ = new Set([
  'running',
  'paused',
  'awaiting_review',
  'completed',
  'incomplete',
  'budget_exceeded',
  'cancelled',
]);

/** Words a version's file name carries that do not name the contract. */
const VERSION_WORDS =
  /\b(v|ver|version|rev|round|draft|clean|redline[sd]?|marked|markup|tracked|final|ours|theirs|their|our|answer|reply|counter|comments?|copy|\d+)\b/g;

/** The contract a file name names: its words without the extension, version marks and dates. */
export function contractName(fileName: string): string {
  const base = (fileName.split('/').pop() ?? fileName).replace(/\.[a-z0-9]{1,5}$/i, '');
  return base
    .toLowerCase()
    .replace(/[_\-.()[\]]+/g, ' ')
    .replace(/\b(v|r|rev|round|draft)\d+\b/g, ' ')
    .replace(VERSION_WORDS, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether two file names name the same contract: the same words once version marks are set aside,
 * or one's words all in the other's ("Acme MSA" and "Acme MSA - their redline v3").
 *
 * @example sameContract('Acme MSA v2 (ours).docx', 'Acme_MSA_v3_theirs.docx') // true
 */
export function sameContract(a: string, b: string): boolean {
  const x = contractName(a);
  const y = contractName(b);
  if (x === '' || y === '') return false;
  if (x === y) return true;
  const words = (s: string) => new Set(s.split(' '));
  const [small, large] = x.length <= y.length ? [words(x), words(y)] : [words(y), words(x)];
  return [...small].every((w) => large.has(w));
}

/** One earlier job a round may answer, as a choice names it. */
export interface VersionChoice {
  readonly jobId: string;
  readonly label: string;
  /** Its document names the same contract as the file chosen. */
  readonly sameContract: boolean;
}

/**
 * The owner's earlier jobs a new upload may answer, those whose document intake read: the ones of
 * the same contract as `fileName` first, newest first within each.
 */
export function versionChoices(jobs: readonly JobSummary[], fileName: string | undefined): VersionChoice[] {
  const read = jobs.filter((j) => READ.has(j.status));
  const choices = read.map((j) => {
    const name = j.document.split('/').pop() ?? j.document;
    return {
      jobId: j.jobId,
      label: `${name} · ${j.createdAt.slice(0, 16).replace('T', ' ')} · ${j.status.replace('_', ' ')}`,
      sameContract: fileName !== undefined && sameContract(name, fileName),
    };
  });
  return [...choices.filter((c) => c.sameContract), ...choices.filter((c) => !c.sameContract)];
}

/**
 * The part of a submission that names the version answered: an earlier job, or our version's
 * file by name (uploaded through the answer's second form before the document).
 * @throws Error when both are given
 */
export function againstRequest(
  jobId: string | undefined,
  file: { readonly name: string } | undefined,
): Pick<SubmitRequest, 'against' | 'againstFilename'> {
  if (jobId && file) throw new Error('Answers: choose an earlier job or a file of our version, not both.');
  if (jobId) return { against: jobId };
  if (file) return { againstFilename: file.name };
  return {};
}
