/**
 * Context values a synth of the app reads besides a deployment's settings, in a module without the
 * CDK library, so that local mode can name them without loading it.
 */

/** `skip` leaves out the policy checks (lib/policy-checks.ts): local mode's synth, never a deployment's. */
export const policyChecksContext = 'tributary:policyChecks';

/**
 * Local mode's synth runs with this variable set, and reads the steps the synth reports on its
 * standard output, each line after this prefix, to show how far a first start has come.
 * `cdk synth` and the tests leave it unset: their output stays as it was.
 */
export const synthProgressVariable = 'TRIBUTARY_SYNTH_PROGRESS';
export const synthProgressPrefix = 'tributary-synth-progress: ';

/** Reports a step of the synth to local mode, when local mode runs it. */
export function reportSynthProgress(line: string): void {
  if (process.env[synthProgressVariable] === '1') process.stdout.write(`${synthProgressPrefix}${line}\n`);
}
