/**
 * Lambda's rule for reserved concurrency, checked before anything runs, as Lambda checks it when a
 * deploy sets a function's ReservedConcurrentExecutions: the reservations of an account's functions
 * must leave at least 100 of the account's concurrency unreserved, for the functions that reserve
 * none ("You can reserve up to the Unreserved account concurrency value minus 100", in "Configuring
 * reserved concurrency for a function":
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html). Lambda refuses the
 * reservation that would cross it, which fails the deploy: so does a start.
 */

/** What Lambda keeps unreserved in every account. */
export const unreservedMinimum = 100;

/** The account concurrency a new AWS account has (and local mode's default, LOCAL_ACCOUNT_CONCURRENCY). */
export const defaultAccountConcurrency = 1000;

export interface Reservation {
  functionName: string;
  reservedConcurrency: number | null;
}

export interface ConcurrencyCheck {
  accountConcurrency: number;
  reserved: number;
  unreserved: number;
}

/**
 * Adds the functions' reservations up in the order given (the deploy's): answers the totals, or
 * throws naming the first function whose reservation Lambda refuses, with the numbers.
 */
export function checkReservedConcurrency(functions: Reservation[], accountConcurrency: number): ConcurrencyCheck {
  let reserved = 0;
  for (const fn of functions) {
    if (fn.reservedConcurrency === null || fn.reservedConcurrency === 0) continue;
    const unreservedAfter = accountConcurrency - reserved - fn.reservedConcurrency;
    if (unreservedAfter < unreservedMinimum)
      throw new Error(
        `Lambda refuses ReservedConcurrentExecutions ${fn.reservedConcurrency} for ${fn.functionName}: ` +
          `the account's concurrency ${accountConcurrency} less ${reserved} already reserved leaves ` +
          `${accountConcurrency - reserved}, and ${fn.reservedConcurrency} more would leave ${unreservedAfter} unreserved, ` +
          `below the ${unreservedMinimum} Lambda keeps for functions without a reservation ` +
          '(LOCAL_ACCOUNT_CONCURRENCY sets the account concurrency local mode checks against)',
      );
    reserved += fn.reservedConcurrency;
  }
  return { accountConcurrency, reserved, unreserved: accountConcurrency - reserved };
}
