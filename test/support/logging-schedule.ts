import type { Context, ScheduledEvent } from 'aws-lambda';

/**
 * A schedule for the tests of the local runtime's function threads: each run logs how long it may
 * take (in whole seconds), 200 lines and a last one, as the table-commits schedule logs what it
 * committed in its run at a graceful stop.
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<void> {
  console.log(`time limit ${Math.round(context.getRemainingTimeInMillis() / 1000)} s`);
  for (let line = 0; line < 200; line++) console.log(`filler ${line} ${'x'.repeat(200)}`);
  console.log('last line of the run');
}
