/**
 * What every part of report.html is written with: labels, escaping, number and time
 * formats, chips, and the one data-table helper. Every string from the report goes through
 * {@link escapeHtml}, text and attributes alike.
 */
import type { Report, ReportClause, ReportFinding, Risk } from '../report-types.js';

export const RISKS: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];

export const RISK_LABEL: Readonly<Record<Risk, string>> = {
  none: 'None',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

export const STATUS_LABEL: Readonly<Record<Report['job']['status'], string>> = {
  completed: 'Completed',
  incomplete: 'Incomplete',
  cancelled: 'Cancelled',
  budget_exceeded: 'Budget exceeded',
};

/** Meaning of a category score, as the analysts' tool schema defines it. */
export const SCORE_LABEL: readonly string[] = ['standard', 'minor', 'significant', 'severe'];

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to embed in a `<script type="application/json">` element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Micro-dollars as US dollars with four decimals. */
export function usd(micros: number): string {
  if (!Number.isFinite(micros)) return 'n/a';
  const sign = micros < 0 ? '-' : '';
  return `${sign}$${(Math.abs(micros) / 1e6).toFixed(4)}`;
}

export function num(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : 'n/a';
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'n/a';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function time(iso: string | undefined): string {
  if (!iso) return '<span class="muted">—</span>';
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' '))}</time>`;
}

export function riskChip(risk: Risk | null): string {
  if (!risk) return '<span class="chip risk-na">Not analysed</span>';
  return `<span class="chip risk-${risk}">${RISK_LABEL[risk]}</span>`;
}

export function scoreClass(score: number | null): string {
  return score === null ? 'sn' : `s${Math.max(0, Math.min(3, Math.round(score)))}`;
}

export function scoreText(score: number | null): string {
  if (score === null) return 'no score';
  return `${score} · ${SCORE_LABEL[Math.max(0, Math.min(3, Math.round(score)))] ?? ''}`;
}

/** The clause's short name: its printed label, or its position. */
export function clauseLabel(c: ReportClause): string {
  return c.label?.trim() ? c.label.trim() : `¶ ${c.index + 1}`;
}

/** A finding's span inside the clause text, or null when the quote cannot be located there. */
export function locate(c: ReportClause, f: ReportFinding): { start: number; end: number } | null {
  const start = f.start - c.start;
  const end = f.end - c.start;
  if (start >= 0 && end > start && end <= c.text.length && c.text.slice(start, end) === f.quote) {
    return { start, end };
  }
  if (f.quote) {
    const at = c.text.indexOf(f.quote);
    if (at >= 0) return { start: at, end: at + f.quote.length };
  }
  return null;
}

export interface Ctx {
  readonly report: Report;
  readonly categoryName: (id: string) => string;
  readonly analystName: (id: string) => string;
  readonly anchorOf: ReadonlyMap<string, string>;
}

/**
 * A data table: a caption (shown, or for screen readers only), column heads, and rows of
 * cells already rendered. Rows with a `th` of their own come as HTML strings.
 */
export function dataTable(
  caption: string,
  heads: readonly string[],
  rows: readonly string[],
  captionHidden = false,
): string {
  return `<div class="tablewrap"><table class="data">
<caption${captionHidden ? ' class="sr"' : ''}>${caption}</caption>
<thead><tr>${heads.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
}

/** One row of plain cells. */
export const row = (cells: readonly string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
