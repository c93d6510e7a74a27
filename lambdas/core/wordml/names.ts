/**
 * WordprocessingML's names, as every reader and writer of a Word document's XML needs them: its
 * main namespace, and how an element of it is told and its attributes read.
 */

/** WordprocessingML's main namespace. */
export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** Whether `node` is a WordprocessingML element of this local name. */
export const isW = (node: Node | null, local: string): boolean =>
  node !== null &&
  node.nodeType === 1 &&
  (node as Element).namespaceURI === W_NS &&
  (node as Element).localName === local;

/** The child elements of `parent` with this namespace and local name. */
export function elements(parent: Element, ns: string, local: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === local)
      out.push(n as Element);
  }
  return out;
}

/** The first WordprocessingML child element of `parent` of this local name. */
export function wChild(parent: Element, local: string): Element | undefined {
  for (let n = parent.firstChild; n; n = n.nextSibling) if (isW(n, local)) return n as Element;
  return undefined;
}

/**
 * A WordprocessingML attribute's value (`w:author`), or undefined when the element has none. An
 * unprefixed attribute of that name is read too, as some writers put one.
 */
export function wAttr(el: Element, local: string): string | undefined {
  const value = el.getAttributeNS(W_NS, local) || el.getAttribute(local);
  return value ? value : undefined;
}
