import * as z from 'zod';
import { errorCodes } from '../../domain/errors.ts';

export const id = z.uuid({ message: 'Must be a UUID' });
export const timestamp = z.iso.datetime({ offset: false });
export const nullableTimestamp = timestamp.nullable();

/** Query parameters every list accepts (contract section 1). */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().min(1).max(4096).optional(),
};

export const nextCursor = z.string().nullable();

export const errorBody = z
  .object({
    code: z.enum(errorCodes),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).nullable(),
    request_id: z.string(),
  })
  .meta({ id: 'Error' });

/** A bounded, trimmed, non-empty name. */
export const name = (max = 200) => z.string().trim().min(1).max(max);
