/** Small helpers to build the page with real elements (no HTML strings, so no injection). */

type Child = Node | string | null | undefined | false;

/** Attributes and listeners of {@link h}: `on*` functions become listeners, the rest attributes. */
export type Attrs = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

/** Creates an element with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** Says something to screen readers through the page's polite live region. */
export function announce(message: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A change after a tick is announced even when the text repeats.
  setTimeout(() => {
    region.textContent = message;
  }, 30);
}

/** An error's message for a person. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An alert box with an error's message. */
export function errorBox(error: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, describeError(error));
}

/** A date-time as the reader's locale writes it, keeping the ISO string as the machine value. */
export function when(iso: string | undefined): HTMLElement | string {
  if (!iso) return '';
  return h('time', { datetime: iso }, new Date(iso).toLocaleString());
}
