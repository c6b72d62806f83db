/**
 * Runs before each integration file: waits until the service global-setup starts in the background
 * is ready, and fails the file with the reason when it did not start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';

const file = inject('serviceReady');
const deadline = Date.now() + 180_000;
while (!existsSync(file)) {
  if (Date.now() > deadline) throw new Error('The service was not ready after 180 s');
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const state = readFileSync(file, 'utf8');
if (state !== 'ready') throw new Error(state);
