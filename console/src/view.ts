/**
 * What a view is: it renders into <main> while it is shown. The router gives each view a signal
 * that aborts when the operator goes elsewhere (or signs out): the view's timers (`every`, `pause`)
 * and requests (`api(…, { signal })`) are made through it, so a view left while it still loads
 * starts nothing once it finishes. A view may also return a stop function, called when it is left
 * (at once, when it was left before it returned). Views import this, never main.ts, so imports go one way.
 */
import type { Caller } from './api.ts';
import { el, errorBox, replace } from './dom.ts';

export type Stop = () => void;
export type View = (
  main: HTMLElement,
  caller: Caller,
  signal: AbortSignal,
) => Promise<Stop | undefined> | Stop | undefined;

/** How often a view that follows live figures asks again. */
export const pollMs = 3000;

/** Runs `stop` when the view is left, or now if it already was. */
export function whenLeft(signal: AbortSignal, stop: Stop): void {
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
}

/**
 * Calls `tick` every `ms` for as long as the view is shown (never, if it was already left); the
 * answer stops it sooner, for a view that has followed something to its end.
 */
export function every(signal: AbortSignal, ms: number, tick: () => void): Stop {
  if (signal.aborted) return () => {};
  const timer = setInterval(tick, ms);
  const stop = () => clearInterval(timer);
  whenLeft(signal, stop);
  return stop;
}

/** Waits `ms`; rejects (with the signal's reason) as soon as the view is left. */
export function pause(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', left);
      resolve();
    }, ms);
    const left = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', left, { once: true });
  });
}

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
