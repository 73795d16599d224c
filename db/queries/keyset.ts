/**
 * The one keyset mechanism of every listing that pages newest first on (created_at, id): deals,
 * appeals, passes, callbacks, deposits, withdrawals. A page is read with
 *
 *   select *, ${cursorColumn(db)} from t where … ${olderThan(db, after)} order by ${NEWEST_FIRST} limit n + 1
 *
 * and the next page starts after the last row's (cursor_ts, id).
 *
 * Exactness rests on two things. The cursor keeps created_at with the microseconds Postgres
 * stores (cursor_ts, UTC text), never a JS Date, which holds milliseconds. And the cursor goes
 * back to Postgres as *text*: a parameter the server types as timestamptz (`$1::timestamptz`) is
 * serialised by postgres.js through `new Date(value)`, which silently drops the microseconds, so
 * the comparison would start at the millisecond's beginning and skip the rows of the same
 * millisecond that sort after the cursor (docs/decisions/0003-keyset-cursor-as-text.md).
 */
import type { Db } from '../sql';

export interface KeysetCursor {
  /** created_at with microseconds, in UTC: 2026-04-01T10:00:00.123456Z. */
  createdAt: string;
  id: string;
}

export const CURSOR_TS_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor as produced by cursorColumn (the check a decoded page token must pass). */
export const isKeysetCursor = (value: unknown): value is KeysetCursor =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as KeysetCursor).createdAt === 'string' &&
  typeof (value as KeysetCursor).id === 'string' &&
  CURSOR_TS_PATTERN.test((value as KeysetCursor).createdAt) &&
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test((value as KeysetCursor).id);

/** The select-list item `cursor_ts`: the row's created_at as UTC text with microseconds. */
export const cursorColumn = (db: Db) => db.unsafe(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts`);

/** The ORDER BY of every keyset listing; olderThan is its exact continuation. */
export const NEWEST_FIRST = 'created_at desc, id desc';
export const newestFirst = (db: Db) => db.unsafe(NEWEST_FIRST);

/** The ORDER BY of a queue read oldest first; newerThan is its exact continuation. */
export const oldestFirst = (db: Db) => db.unsafe('created_at asc, id asc');

/** `and (created_at, id) > (cursor)`: the continuation of an oldest-first page (bound as text, as olderThan). */
export const newerThan = (db: Db, after: KeysetCursor | undefined) =>
  after ? db`and (created_at, id) > (${after.createdAt}::text::timestamptz, ${after.id}::uuid)` : db``;

/**
 * `and (created_at, id) < (cursor)`, or nothing without a cursor. The timestamp is bound as text
 * and cast by Postgres, so it keeps its microseconds (see the module comment).
 */
export const olderThan = (db: Db, after: KeysetCursor | undefined) =>
  after ? db`and (created_at, id) < (${after.createdAt}::text::timestamptz, ${after.id}::uuid)` : db``;

/**
 * Times are stored with microseconds but shown with milliseconds, so an inclusive upper bound
 * (`created_before`, a V1 endDate) covers its whole millisecond: `created_at < justAfter(bound)`
 * includes the row whose own shown created_at is the bound.
 */
export const justAfter = (d: Date) => new Date(d.getTime() + 1);
