/**
 * report.html's "Their changes" section: the other side's turn in one line, then each of their
 * changes (who, when, the clause, what they deleted and inserted, the verdict with its reason and
 * our answer, a counter-proposal as tracked changes of their text), and each of their comments
 * with the reply we propose. Verdicts are words, never colour alone.
 */
import { theirChangesLine, VERDICT_LABELS } from '../../text/their-changes.js';
import type { NegotiationChange, Report } from '../report-types.js';
import { escapeHtml } from './report-html-kit.js';
import { redlineDiffHtml, rungBadge } from './report-playbook-html.js';

const KIND: Readonly<Record<NegotiationChange['kind'], string>> = {
  insertion: 'inserted',
  deletion: 'deleted',
  replacement: 'replaced',
  move: 'moved',
  formatting: 'reformatted',
};

/** Links to the clauses a change falls in. */
function clauseLinks(ids: readonly string[], anchorOf: ReadonlyMap<string, string>): string {
  if (ids.length === 0) return '<span class="muted">outside the clauses</span>';
  return ids
    .map((id) => {
      const anchor = anchorOf.get(id);
      return anchor ? `<a href="#${escapeHtml(anchor)}">${escapeHtml(id)}</a>` : escapeHtml(id);
    })
    .join(', ');
}

/** One change of theirs with our answer. */
function changeHtml(c: NegotiationChange, report: Report, anchorOf: ReadonlyMap<string, string>): string {
  const texts = [
    c.deleted !== undefined
      ? `<del><span class="sr">[deleted: </span>${escapeHtml(c.deleted)}<span class="sr">]</span></del>`
      : '',
    c.inserted !== undefined
      ? `<ins><span class="sr">[inserted: </span>${escapeHtml(c.inserted)}<span class="sr">]</span></ins>`
      : '',
  ].join(' ');
  const shifts = (c.shifts ?? [])
    .map(
      (s) =>
        `<li><strong>${escapeHtml(s.topic)}</strong>: ${rungBadge(s.before)} before, ${rungBadge(s.after)} now</li>`,
    )
    .join('');
  const clause = c.counter ? report.clauses.find((x) => x.id === c.counter?.clauseId) : undefined;
  const counter =
    c.counter && clause
      ? `<div class="redline"><p class="rl-head">Our counter-proposal (fallback ${c.counter.target.fallback}${
          c.counter.approver ? `, for ${escapeHtml(c.counter.approver)} to approve` : ''
        }), a tracked change of ours on theirs in report.docx</p><div class="rl-text">${redlineDiffHtml(clause.text, c.counter.edits)}</div></div>`
      : '';
  return `<li class="change" data-change="${escapeHtml(c.id)}">
<p class="ph"><span class="verdict verdict-${escapeHtml(c.verdict)}">${escapeHtml(VERDICT_LABELS[c.verdict])}</span> <strong>${escapeHtml(c.id)}</strong> · ${escapeHtml(KIND[c.kind])} by ${escapeHtml(c.author)}${
    c.date ? ` on ${escapeHtml(c.date.replace('T', ' '))}` : ''
  } · ${c.source === 'compared' ? 'found by comparison' : 'tracked'} · clause ${clauseLinks(c.clauseIds, anchorOf)}</p>
<p class="rl-text">${texts}</p>
${shifts ? `<ul class="shifts">${shifts}</ul>` : ''}
<p>${escapeHtml(c.answer)}</p>
${counter}
</li>`;
}

/** The section, or nothing when the report has no other side's turn. */
export function renderNegotiationSection(report: Report, anchorOf: ReadonlyMap<string, string>): string {
  const n = report.negotiation;
  if (!n) return '';
  const against = n.against
    ? `<p>Their copy carried no tracked changes: it was compared with ${
        n.against.jobId
          ? `our earlier job <code>${escapeHtml(n.against.jobId)}</code>`
          : `our version (SHA-256 <code class="hash">${escapeHtml(n.against.sha256)}</code>)`
      }, each difference read as a change of theirs.</p>`
    : '';
  const comments = n.comments
    .map(
      (c) => `<li class="their-comment" data-comment="${escapeHtml(c.id)}">
<p class="ph"><strong>${escapeHtml(c.author)}</strong>${c.date ? ` on ${escapeHtml(c.date.replace('T', ' '))}` : ''} · clause ${clauseLinks(c.clauseIds, anchorOf)}</p>
<blockquote>${escapeHtml(c.text)}</blockquote>
<p><span class="muted">Proposed reply:</span> ${escapeHtml(c.reply)}</p>
</li>`,
    )
    .join('\n');
  return `<section id="negotiation" aria-labelledby="h-negotiation">
<h2 id="h-negotiation">Their changes</h2>
<p><strong>${escapeHtml(theirChangesLine(n.summary))}</strong> (by ${escapeHtml(n.authors.join(', ') || 'nobody named')}).</p>
${against}
<p class="muted">Each clause they changed was judged as it read before and as it reads now${
    report.job.playbook ? ' against the playbook' : ' against the risk categories'
  } (${n.clausesBefore} clause(s) as they read before, in the coverage below). report.docx keeps their changes and comments under their names, with our answer as a comment on each change, a reply under each comment, and each counter-proposal as our tracked change.</p>
<ol class="changes">
${n.changes.map((c) => changeHtml(c, report, anchorOf)).join('\n')}
</ol>
${comments ? `<h3>Their comments</h3>\n<ol class="their-comments">\n${comments}\n</ol>` : ''}
</section>`;
}
