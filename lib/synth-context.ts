/**
 * Context values a synth of the app reads besides a deployment's settings, in a module without the
 * CDK library, so that local mode can name them without loading it.
 */

/** `skip` leaves out the policy checks (lib/policy-checks.ts): local mode's synth, never a deployment's. */
export const policyChecksContext = 'tributary:policyChecks';
