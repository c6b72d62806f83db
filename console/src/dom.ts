/**
 * Building the page: elements and text nodes only. Nothing here ever parses a string as HTML, so
 * whatever a webhook sent (or an API error said) can only ever show as text.
 */
import type { Issue } from './api.ts';

export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else if (child !== null && child !== undefined && child !== false)
      parent.appendChild(document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * Replaces the children only when `key` differs from the last one given: a polled alert is
 * announced once when it appears or changes, not at every poll.
 */
export function replaceOnChange(parent: HTMLElement, key: string, ...children: Child[]): void {
  if (parent.dataset.shown === key) return;
  parent.dataset.shown = key;
  replace(parent, ...children);
}

/** A part of a page under its own heading (`id` names the heading, for the section's label). */
export const section = (title: string, id: string, ...children: Child[]): HTMLElement =>
  el('section', { 'aria-labelledby': id }, el('h2', { id }, title), ...children);

/** Terms and what each is, as the console lists facts (`id`, where a test or a reader points at one value). */
export const facts = (...entries: [term: string, value: Child, id?: string][]): HTMLElement =>
  el(
    'dl',
    { class: 'facts' },
    entries.map(([term, value, id]) => [el('dt', {}, term), el('dd', { id }, value)]),
  );

/** What an operator's action came to, in a sentence. */
export const notice = (...children: Child[]): HTMLElement => el('p', { class: 'notice' }, ...children);

/** Where an action's outcome is told: politely, once it is known. */
export const outcomeRegion = (): HTMLElement => el('div', { 'aria-live': 'polite' });

/**
 * Runs an operator's action and shows in `region` what it came to: what it answers, or the API's
 * error (led by the plain words `explained` gives its code, where it gives any).
 */
export async function showOutcome(
  region: HTMLElement,
  action: () => Promise<Child>,
  explained: Explained = {},
): Promise<void> {
  try {
    replace(region, await action());
  } catch (error) {
    replace(region, errorBox(error, explained));
  }
}

/** A drop-down list of `options` (shown by `labels` where one is given), `value` chosen. */
export const select = (id: string, options: readonly string[], value: string, labels: Record<string, string> = {}) =>
  el(
    'select',
    { id, name: id },
    options.map((option) => el('option', { value: option, selected: option === value }, labels[option] ?? option)),
  );

/** The option of `options` a drop-down list shows, typed as the options are (it offers no other). */
export const chosen = <T extends string>(options: readonly T[], value: string): T =>
  options.find((option) => option === value) ?? (options[0] as T);

/** A column of a table: its header, and what its cell shows of an item (`header`: the cell names the row). */
export interface Column<T> {
  label: string;
  cell: (item: T) => Child;
  header?: boolean;
}

/** A table with a caption, column headers and one row per item (an empty table says so). */
export function table<T>(caption: string, columns: Column<T>[], items: T[], empty = 'None'): HTMLElement {
  const body = items.length
    ? items.map((item) =>
        el(
          'tr',
          {},
          columns.map((column) =>
            column.header
              ? el('th', { scope: 'row', 'data-label': column.label }, column.cell(item))
              : el('td', { 'data-label': column.label }, column.cell(item)),
          ),
        ),
      )
    : [el('tr', {}, el('td', { colspan: columns.length, class: 'empty' }, empty))];
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      {},
      el('caption', {}, caption),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          columns.map((column) => el('th', { scope: 'col' }, column.label)),
        ),
      ),
      el('tbody', {}, body),
    ),
  );
}

export const when = (iso: string | null | undefined): string =>
  iso
    ? new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : '—';

/** A count and what it counts, singular or plural as the count asks: `counted(1, 'tenant')` is "1 tenant". */
export const counted = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;

export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

export function age(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** What an API error code means for the operator, in plain words, where a page knows better than the code. */
export type Explained = Partial<Record<string, string>>;

/** An error as the API words it, with the fields its details name; led by its plain words when `explained` has them. */
export function errorBox(error: unknown, explained: Explained = {}): HTMLElement {
  const { code, message, requestId, details } = error as {
    code?: string;
    message?: string;
    requestId?: string | null;
    details?: Issue[];
  };
  const plain = code ? explained[code] : undefined;
  return el(
    'div',
    { class: 'error', role: 'alert' },
    plain ? el('p', { class: 'plain' }, plain) : null,
    el('strong', {}, code ?? 'ERROR'),
    ': ',
    message ?? String(error),
    requestId ? el('small', {}, ` (request ${requestId})`) : null,
    details?.length
      ? el(
          'ul',
          { class: 'issues' },
          details.map((issue) => el('li', {}, issue.path ? `${issue.path}: ${issue.message}` : issue.message)),
        )
      : null,
  );
}
