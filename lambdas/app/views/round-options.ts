/**
 * The upload form's round of a negotiation: which version the contract answers, one of the
 * owner's earlier jobs (those of the same contract first) or a file of our version. The intake
 * compares the two and judges each of the other side's changes.
 */
import type { AppApi } from '../api.js';
import { h } from '../dom.js';
import { againstRequest, versionChoices } from '../round.js';
import { field } from './review-options.js';

/** The round's fields, and what they ask for. */
export interface RoundFields {
  readonly element: HTMLElement;
  /** Lists the earlier jobs again, the same contract as `fileName` first. */
  refresh(fileName: string | undefined): Promise<void>;
  /** The request's `against` or `againstFilename`, and our version's file to upload first. @throws Error when both are chosen */
  chosen(): { request: ReturnType<typeof againstRequest>; version?: File };
}

/** The fields, ids prefixed with `prefix`. */
export function roundFields(api: AppApi, prefix: string): RoundFields {
  const select = h(
    'select',
    { id: `${prefix}-against`, name: 'against' },
    h('option', { value: '' }, 'None: a first review'),
  );
  const file = h('input', {
    id: `${prefix}-against-file`,
    name: 'against-file',
    type: 'file',
    accept: '.docx,.pdf,.txt,.md,.html,.htm',
  });
  const element = h(
    'fieldset',
    { class: 'round' },
    h('legend', {}, 'The other side’s answer'),
    h(
      'p',
      { class: 'muted small' },
      'When the contract answers a version of ours, name it: each of their changes is judged and answered.',
    ),
    field('It answers our earlier review', `${prefix}-against`, select),
    field(
      'Or our version, as a file',
      `${prefix}-against-file`,
      file,
      'For a clean copy of theirs with no tracked changes.',
    ),
  );
  return {
    element,
    async refresh(fileName) {
      const kept = select.value;
      const choices = versionChoices((await api.jobs()).jobs, fileName);
      select.replaceChildren(
        h('option', { value: '' }, 'None: a first review'),
        ...choices.map((c) => h('option', { value: c.jobId }, `${c.sameContract ? '★ ' : ''}${c.label}`)),
      );
      select.value = choices.some((c) => c.jobId === kept) ? kept : '';
    },
    chosen() {
      const version = file.files?.[0];
      return { request: againstRequest(select.value || undefined, version), ...(version ? { version } : {}) };
    },
  };
}
