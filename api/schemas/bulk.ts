/** Bulk actions: the ids of one request and one result per object (api/services/bulk.ts runs them). */
import { z } from 'zod';
import { uuid } from './common';

/** Objects of one bulk request at most (a console page of them). */
const BULK_MAX_ITEMS = 100;

/** A bulk action's ids: one to BULK_MAX_ITEMS, each a UUID (repeats count once). */
export const bulkIds = (field: string) =>
  z
    .array(uuid(`${field}[]`), { error: `${field} must be an array of ids` })
    .min(1, `${field} needs at least one id`)
    .max(BULK_MAX_ITEMS, `at most ${BULK_MAX_ITEMS} ${field}`);

/** One object's answer in a bulk action: the status its single action would have answered, and what happened. */
export const bulkResult = <O extends readonly [string, ...string[]]>(name: string, outcomes: O) =>
  z
    .object({
      results: z.array(
        z.object({
          id: z.string().uuid(),
          status: z.number().int().openapi({ description: 'the HTTP status the single action answers for this object' }),
          outcome: z.enum([...outcomes, 'refused']),
          message: z.string().openapi({ description: "the refusal's message (as the single action's problem detail); '' otherwise" }),
        }),
      ),
    })
    .openapi(name, { description: 'One result per id, in the order given (repeats once). The request itself is 200 whatever each object answered.' });
