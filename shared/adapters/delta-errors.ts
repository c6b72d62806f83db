/**
 * The Delta library's refusals (delta/errors.ts) as the service's own errors, where the adapters
 * hand the library's answers to the use cases: a table Tributary may not write is the contract's
 * TABLE_PROTOCOL_UNSUPPORTED or TABLE_SCHEMA_INCOMPATIBLE (422, the features in the way as details).
 * Anything else passes as it came.
 */
import { TableNotWritable } from '#delta/errors.ts';
import { DomainError } from '../domain/errors.ts';

export function serviceErrorOf(error: unknown): unknown {
  if (error instanceof TableNotWritable)
    return new DomainError(
      error.code,
      error.message,
      error.unsupported.map((feature) => ({ path: 'table.protocol', message: feature })),
    );
  return error;
}

/** Runs `work`, its library refusals answered as the service's errors. */
export async function asServiceErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw serviceErrorOf(error);
  }
}
