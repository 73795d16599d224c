/** Operator accounts, their sessions and failed sign-ins (migration 00021). */
import type { Db } from '../sql';

export interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  role: string;
  totp_secret_sealed: string | null;
  disabled_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export async function findOperatorByEmail(db: Db, email: string): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`select * from operators where email = ${email}`;
  return row;
}

export async function findOperator(db: Db, id: string): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`select * from operators where id = ${id}`;
  return row;
}

export async function lockOperator(db: Db, id: string): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`select * from operators where id = ${id} for update`;
  return row;
}

/** Inserts an account; an email already taken answers undefined. */
export async function insertOperator(
  db: Db,
  o: { id: string; email: string; passwordHash: string; role: string; createdBy: string },
): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`
    insert into operators (id, email, password_hash, role, created_by)
    values (${o.id}, ${o.email}, ${o.passwordHash}, ${o.role}, ${o.createdBy})
    on conflict (email) do nothing
    returning *`;
  return row;
}

export async function updateOperator(
  db: Db,
  id: string,
  changes: { role?: string; disabled_at?: Date | null; password_hash?: string; totp_secret_sealed?: string | null },
): Promise<OperatorRow> {
  const [row] = await db<OperatorRow[]>`
    update operators set ${db(changes as Record<string, unknown>, ...(Object.keys(changes) as (keyof typeof changes)[]))}, updated_at = now()
    where id = ${id} returning *`;
  return row!;
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return db<OperatorRow[]>`select * from operators order by created_at, id`;
}

// ---- Sessions ----

export interface SessionRow {
  id: string;
  operator_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(db: Db, s: { id: string; operatorId: string; expiresAt: Date; ip: string; userAgent: string; now: Date }): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`
    insert into operator_sessions (id, operator_id, created_at, last_seen_at, expires_at, ip, user_agent)
    values (${s.id}, ${s.operatorId}, ${s.now}, ${s.now}, ${s.expiresAt}, ${s.ip}, ${s.userAgent.slice(0, 300)})
    returning id, operator_id, created_at, last_seen_at, expires_at`;
  return row!;
}

export interface LiveSession extends SessionRow {
  email: string;
  role: string;
  disabled_at: Date | null;
}

/** The session with its operator, if it has not ended (expires_at is the earlier of the idle and absolute ends). */
export async function findLiveSession(db: Db, id: string, now: Date): Promise<LiveSession | undefined> {
  const [row] = await db<LiveSession[]>`
    select s.id, s.operator_id, s.created_at, s.last_seen_at, s.expires_at, o.email, o.role, o.disabled_at
    from operator_sessions s join operators o on o.id = s.operator_id
    where s.id = ${id} and s.expires_at > ${now}`;
  return row;
}

/** A request seen: the idle end moves, never past the absolute end. */
export async function touchSession(db: Db, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db`update operator_sessions set last_seen_at = ${now}, expires_at = ${expiresAt} where id = ${id}`;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db`delete from operator_sessions where id = ${id}`;
}

export async function deleteSessionsOf(db: Db, operatorId: string): Promise<void> {
  await db`delete from operator_sessions where operator_id = ${operatorId}`;
}

export async function deleteEndedSessions(db: Db, now: Date): Promise<void> {
  await db`delete from operator_sessions where expires_at <= ${now}`;
}

// ---- Failed sign-ins ----

export async function countSignInFailures(db: Db, key: string, since: Date): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from operator_sign_in_failures where key = ${key} and at > ${since}`;
  return row!.n;
}

export async function recordSignInFailure(db: Db, key: string, now: Date): Promise<void> {
  await db`insert into operator_sign_in_failures (key, at) values (${key}, ${now})`;
}

export async function clearSignInFailures(db: Db, key: string, before: Date): Promise<void> {
  await db`delete from operator_sign_in_failures where key = ${key} or at < ${before}`;
}

export async function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  const [row] = await db<SessionRow[]>`select id, operator_id, created_at, last_seen_at, expires_at from operator_sessions where id = ${id}`;
  return row;
}
