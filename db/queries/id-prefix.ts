/** Id filters of the operator's lists: a whole id or its start (domain/ids.ts `idPrefix`), as SQL. */
import type { IdPrefix } from '../../domain/ids';
import type { Db } from '../sql';

/** `column between lo and hi` on a uuid column: one range of its index. */
export const uuidIn = (db: Db, column: string, id: IdPrefix) => db`${db.unsafe(column)} between ${id.lo}::uuid and ${id.hi}::uuid`;

/** The same on an id kept as text (the audit trail's object and actor ids): its dashed start. */
export const textIdIn = (db: Db, column: string, id: IdPrefix) =>
  id.lo === id.hi ? db`${db.unsafe(column)} = ${id.lo}` : db`starts_with(${db.unsafe(column)}, ${id.prefix})`;
