/**
 * A WCAG 2.x contrast audit that runs inside a rendered page: for every visible text node it
 * takes the colour Chromium computed for the text and composites the backgrounds of its
 * ancestors (semi-transparent colours blended, gradients taken stop by stop, the canvas
 * white), then reports each text whose worst-case contrast ratio is below the minimum.
 *
 * Contrast ratio and relative luminance as WCAG 2.2 defines them:
 * https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio and
 * https://www.w3.org/TR/WCAG22/#dfn-relative-luminance
 */

/** One text below the minimum. */
export interface ContrastFailure {
  /** The text, shortened. */
  readonly text: string;
  /** Where it is: tag.class chain from the element up to four ancestors. */
  readonly path: string;
  /** Computed text colour and the background it was measured against, as rgba(). */
  readonly color: string;
  readonly background: string;
  readonly ratio: number;
}

/** What the audit saw. */
export interface ContrastAudit {
  /** Visible, non-blank text nodes measured. */
  readonly checked: number;
  readonly failures: readonly ContrastFailure[];
}

/**
 * A page expression (for `Runtime.evaluate`) that audits every visible text node against
 * `minimum` and returns a {@link ContrastAudit}. Plain JavaScript kept as text, so what runs
 * in the page is exactly what is written here.
 */
export function contrastAuditScript(minimum = 4.5): string {
  return `(() => {
  const MIN = ${JSON.stringify(minimum)};
  const parse = (text) => {
    let m = /rgba?\\(([^)]*)\\)/.exec(text);
    if (m) {
      const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    m = /color\\(srgb ([^)]*)\\)/.exec(text);
    if (m) {
      const p = m[1].split(/[\\s/]+/).filter(Boolean).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
    }
    return null;
  };
  // Source-over compositing of top on bottom.
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const ch = (i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a;
    return [ch(0), ch(1), ch(2), a];
  };
  const channel = (v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const show = (c) => 'rgba(' + c.slice(0, 3).map((v) => Math.round(v)).join(', ') + ', ' + +c[3].toFixed(3) + ')';
  const describe = (el) => {
    const parts = [];
    for (let e = el, n = 0; e && n < 5; e = e.parentElement, n++) {
      parts.push(e.tagName.toLowerCase() + (e.classList.length ? '.' + [...e.classList].join('.') : ''));
    }
    return parts.join(' < ');
  };
  // Every colour the backdrop of an element can show: the canvas, then each ancestor's
  // background colour and, where it paints a gradient, each of the gradient's stops.
  const backdrops = (el) => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let out = [[255, 255, 255, 1]];
    for (const e of chain) {
      const s = getComputedStyle(e);
      const bg = parse(s.backgroundColor) || [0, 0, 0, 0];
      const image = s.backgroundImage && s.backgroundImage !== 'none' ? s.backgroundImage : '';
      const stops = [...image.matchAll(/rgba?\\([^)]*\\)|color\\(srgb [^)]*\\)/g)].map((m) => parse(m[0]));
      const next = [];
      for (const under of out) {
        const base = over(bg, under);
        if (stops.length === 0) next.push(base);
        else for (const stop of stops) next.push(over(stop, base));
      }
      const seen = new Set();
      out = next.filter((c) => {
        const k = c.map((v) => v.toFixed(2)).join();
        return seen.has(k) ? false : (seen.add(k), true);
      });
    }
    return out;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const failures = [];
  let checked = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('script, style, template')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (range.getClientRects().length === 0) continue;
    const s = getComputedStyle(el);
    if (s.visibility !== 'visible') continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const fg = parse(s.color);
    if (!fg) throw new Error('unparsed text colour ' + s.color + ' at ' + describe(el));
    checked++;
    let worst = null;
    for (const bg of backdrops(el)) {
      const ink = over([fg[0], fg[1], fg[2], fg[3] * opacity], bg);
      const r = ratio(ink, bg);
      if (!worst || r < worst.ratio) worst = { ratio: r, color: ink, background: bg };
    }
    if (worst.ratio < MIN) {
      failures.push({
        text: text.slice(0, 60),
        path: describe(el),
        color: show(worst.color),
        background: show(worst.background),
        ratio: Math.round(worst.ratio * 100) / 100,
      });
    }
  }
  return { checked, failures };
})()`;
}
