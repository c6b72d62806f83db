/**
 * What a view is: it renders into <main> and may return a stop function (for its polling), called
 * when the operator goes elsewhere. Views import this, never main.ts, so imports go one way.
 */
import type { Caller } from './api.ts';

export type Stop = () => void;
export type View = (main: HTMLElement, caller: Caller) => Promise<Stop | undefined> | Stop | undefined;

/** How often a view that follows live figures asks again. */
export const pollMs = 3000;
