/**
 * Runs before each integration file: waits until the service global-setup starts in the background
 * is ready, and fails the file with the reason when it did not start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';

const file = inject('serviceReady');
// Only ends a start that is stuck: the synthesis and the start took minutes on a busy two-core machine.
const deadline = Date.now() + 600_000;
while (!existsSync(file)) {
  if (Date.now() > deadline) throw new Error('The service was not ready after 600 s');
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const state = readFileSync(file, 'utf8');
if (state !== 'ready') throw new Error(state);
