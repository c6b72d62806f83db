/**
 * The console builds elements only (console/src/dom.ts): a document of a few lines stands in for
 * the browser's in its unit tests. `standInDocument()` puts it in place; `vi.unstubAllGlobals()` removes it.
 */
import { vi } from 'vitest';

export class StandInNode {
  readonly children: StandInNode[] = [];
  constructor(readonly text = '') {}
  get textContent(): string {
    return this.text + this.children.map((child) => child.textContent).join('');
  }
}

export class StandInElement extends StandInNode {
  readonly attributes = new Map<string, string>();
  constructor(readonly tagName: string) {
    super();
  }
  setAttribute(name: string, value: string) {
    this.attributes.set(name, value);
  }
  appendChild(child: StandInNode) {
    this.children.push(child);
  }
  replaceChildren(...children: StandInNode[]) {
    this.children.splice(0, this.children.length, ...children);
  }
  addEventListener() {}
  /** Every element below this one, depth first. */
  all(): StandInElement[] {
    return this.children.flatMap((child) => (child instanceof StandInElement ? [child, ...child.all()] : []));
  }
}

export function standInDocument(): void {
  vi.stubGlobal('Node', StandInNode);
  vi.stubGlobal('document', {
    createElement: (tag: string) => new StandInElement(tag),
    createTextNode: (text: string) => new StandInNode(text),
  });
}
