/**
 * What a view is: it renders into <main> and may return a stop function (for its polling), called
 * when the operator goes elsewhere. Views import this, never main.ts, so imports go one way.
 */
import type { Caller } from './api.ts';
import { el, errorBox, replace } from './dom.ts';

export type Stop = () => void;
export type View = (main: HTMLElement, caller: Caller) => Promise<Stop | undefined> | Stop | undefined;

/** How often a view that follows live figures asks again. */
export const pollMs = 3000;

/**
 * An operator's action on a page (pausing a source, redriving deliveries): `run` does it and says
 * what it did in a sentence; the page tells that (or the API's error) and reads its parts again.
 */
export type Act = (run: () => Promise<string>) => Promise<void>;

/** A part of a page that follows live figures: `refresh` asks the API again and redraws `element`. */
export interface PolledPart {
  element: HTMLElement;
  refresh: () => Promise<void>;
}

/**
 * A part that asks and draws on its own, so that one whose answer fails or hangs (a tenant's store
 * that does not answer) holds no other: its error shows in its place, and while it waits for its
 * last answer it is not asked again.
 */
export function polledPart<T>(ask: () => Promise<T>, draw: (element: HTMLElement, answer: T) => void): PolledPart {
  const element = el('div');
  let waiting = false;
  return {
    element,
    async refresh() {
      if (waiting) return;
      waiting = true;
      try {
        draw(element, await ask());
      } catch (error) {
        // Drawn again in full once it answers, even what replaceOnChange had kept.
        delete element.dataset.shown;
        replace(element, errorBox(error));
      } finally {
        waiting = false;
      }
    },
  };
}
