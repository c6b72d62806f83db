import { DomainError } from '#shared/domain/errors.ts';

/** What a use case refused with: its code and the paths its details name; fails if it did not refuse. */
export async function refusal(attempt: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof DomainError)
      return { code: error.code, paths: (error.details ?? []).map((detail) => detail.path) };
    throw error;
  }
  throw new Error('Expected a refusal, but the use case succeeded');
}
