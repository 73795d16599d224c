/** Operator accounts, their sessions and sign-in attempts. */
import type { Db } from '../sql';

export interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  role: string;
  totp_secret_sealed: string | null;
  /** The last TOTP time step accepted for the account: no code of it or before it is accepted again. */
  totp_last_step: bigint | null;
  /** Moves on with every credential change; a session works only while it matches the one it was made with. */
  credential_version: number;
  disabled_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  /** When and from where the account last signed in (null and '' before its first sign-in). */
  last_sign_in_at: Date | null;
  last_sign_in_address: string;
  /** The account must set up an authenticator before anything else (an invited account). */
  totp_required: boolean;
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
  o: { id: string; email: string; passwordHash: string; role: string; createdBy: string; totpRequired?: boolean },
): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`
    insert into operators (id, email, password_hash, role, created_by, totp_required)
    values (${o.id}, ${o.email}, ${o.passwordHash}, ${o.role}, ${o.createdBy}, ${o.totpRequired ?? false})
    on conflict (email) do nothing
    returning *`;
  return row;
}

/** A sign-in: when and from which client address (written in the transaction that makes the session). */
export async function recordSignIn(db: Db, id: string, at: Date, address: string): Promise<void> {
  await db`update operators set last_sign_in_at = ${at}, last_sign_in_address = ${address.slice(0, 100)} where id = ${id}`;
}

export async function updateOperator(
  db: Db,
  id: string,
  changes: { role?: string; disabled_at?: Date | null; password_hash?: string; totp_secret_sealed?: string | null; totp_last_step?: number | null },
): Promise<OperatorRow> {
  const [row] = await db<OperatorRow[]>`
    update operators set ${db(changes as Record<string, unknown>, ...(Object.keys(changes) as (keyof typeof changes)[]))}, updated_at = now()
    where id = ${id} returning *`;
  return row!;
}

/** A new password or TOTP secret: the version moves on, so every session made before it stops working. */
export async function bumpCredentialVersion(db: Db, id: string): Promise<number> {
  const [row] = await db<{ credential_version: number }[]>`
    update operators set credential_version = credential_version + 1, updated_at = now() where id = ${id} returning credential_version`;
  return row!.credential_version;
}

/**
 * Uses a TOTP time step: only if it is later than the last one used (one statement, so two
 * requests with one code cannot both pass). False: the code was used already.
 */
export async function useTotpStep(db: Db, id: string, step: number): Promise<boolean> {
  const rows = await db`update operators set totp_last_step = ${step} where id = ${id} and (totp_last_step is null or totp_last_step < ${step}) returning id`;
  return rows.length === 1;
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return db<OperatorRow[]>`select * from operators order by created_at, id`;
}

/** Who these accounts are (email, role, whether disabled), by id; ids that are no account's (a JWT's sub) are left out. */
export async function operatorNames(db: Db, ids: readonly string[]): Promise<Map<string, { email: string; role: string; disabled: boolean }>> {
  const unique = [...new Set(ids)].filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id));
  if (unique.length === 0) return new Map();
  const rows = await db<{ id: string; email: string; role: string; disabled: boolean }[]>`
    select id, email, role, disabled_at is not null as disabled from operators where id = any(${unique}::uuid[])`;
  return new Map(rows.map((r) => [r.id, { email: r.email, role: r.role, disabled: r.disabled }]));
}

// ---- Sessions ----

export interface SessionRow {
  id: string;
  operator_id: string;
  credential_version: number;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  db: Db,
  s: { id: string; operatorId: string; credentialVersion: number; expiresAt: Date; ip: string; userAgent: string; now: Date },
): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`
    insert into operator_sessions (id, operator_id, credential_version, created_at, last_seen_at, expires_at, ip, user_agent)
    values (${s.id}, ${s.operatorId}, ${s.credentialVersion}, ${s.now}, ${s.now}, ${s.expiresAt}, ${s.ip}, ${s.userAgent.slice(0, 300)})
    returning id, operator_id, credential_version, created_at, last_seen_at, expires_at`;
  return row!;
}

export interface LiveSession extends SessionRow {
  email: string;
  role: string;
  disabled_at: Date | null;
  /** The account must set up an authenticator and has not yet: the session may do nothing else. */
  enrolment_pending: boolean;
}

/**
 * The session with its operator, if it has not ended (expires_at is the earlier of the idle and
 * absolute ends) and was made with the account's current credential (a password or TOTP change
 * since ends it, even one that raced the sign-in).
 */
export async function findLiveSession(db: Db, id: string, now: Date): Promise<LiveSession | undefined> {
  const [row] = await db<LiveSession[]>`
    select s.id, s.operator_id, s.credential_version, s.created_at, s.last_seen_at, s.expires_at, o.email, o.role, o.disabled_at,
      (o.totp_required and o.totp_secret_sealed is null) as enrolment_pending
    from operator_sessions s join operators o on o.id = s.operator_id
    where s.id = ${id} and s.expires_at > ${now} and s.credential_version = o.credential_version`;
  return row;
}

/** A request seen: the idle end moves, never past the absolute end. */
export async function touchSession(db: Db, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db`update operator_sessions set last_seen_at = ${now}, expires_at = ${expiresAt} where id = ${id}`;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db`delete from operator_sessions where id = ${id}`;
}

/** Ends the account's sessions, but `keep` (the session making the change), which moves to `credentialVersion`. */
export async function deleteSessionsOf(db: Db, operatorId: string, keep?: { sessionId: string; credentialVersion: number }): Promise<number> {
  const ended = await db`delete from operator_sessions where operator_id = ${operatorId} and id <> ${keep?.sessionId ?? ''} returning id`;
  if (keep) await db`update operator_sessions set credential_version = ${keep.credentialVersion} where id = ${keep.sessionId} and operator_id = ${operatorId}`;
  return ended.length;
}

export async function deleteEndedSessions(db: Db, now: Date): Promise<void> {
  await db`delete from operator_sessions where expires_at <= ${now}`;
}

// ---- Sign-in attempts ----

export interface AttemptLimits {
  perPair: number;
  perEmail: number;
  perAddress: number;
  unknownHashes: number;
}

export type Reservation = { id: string; hashed: boolean } | { refused: 'pair' | 'email' | 'address' };

/**
 * Reserves one attempt before its password is hashed: under advisory locks on its email, its
 * address and (unknown emails) the global decoy budget — always taken in that order, so two
 * reservations never wait on each other crosswise — counts the failures and the attempts still
 * being checked in the window, and either refuses (which limit) or writes the attempt as pending.
 * Parallel guesses therefore count one another: the eleventh of thirty is refused before any hash.
 */
export async function reserveAttempt(
  tx: Db,
  a: { emailKey: string; operatorId: string | null; address: string; kind: 'sign_in' | 'confirm'; since: Date; now: Date; limits: AttemptLimits },
): Promise<Reservation> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`operator-sign-in:email:${a.emailKey}`}, 0))`;
  await tx`select pg_advisory_xact_lock(hashtextextended(${`operator-sign-in:address:${a.address}`}, 0))`;
  const [counts] = await tx<{ pair: number; email: number; address: number }[]>`
    select count(*) filter (where email_key = ${a.emailKey} and address = ${a.address})::int as pair,
           count(*) filter (where email_key = ${a.emailKey})::int as email,
           count(*) filter (where address = ${a.address})::int as address
    from operator_sign_in_attempts
    where (email_key = ${a.emailKey} or address = ${a.address}) and at > ${a.since} and outcome in ('pending', 'failed')`;
  if (counts!.pair >= a.limits.perPair) return { refused: 'pair' };
  if (counts!.email >= a.limits.perEmail) return { refused: 'email' };
  if (counts!.address >= a.limits.perAddress) return { refused: 'address' };
  let hashed = true;
  if (a.operatorId === null) {
    await tx`select pg_advisory_xact_lock(hashtextextended('operator-sign-in:unknown', 0))`;
    const [decoys] = await tx<{ n: number }[]>`
      select count(*)::int as n from operator_sign_in_attempts where operator_id is null and hashed and at > ${a.since}`;
    hashed = decoys!.n < a.limits.unknownHashes;
  }
  const [row] = await tx<{ id: string }[]>`
    insert into operator_sign_in_attempts (at, email_key, operator_id, address, kind, hashed)
    values (${a.now}, ${a.emailKey}, ${a.operatorId}, ${a.address}, ${a.kind}, ${hashed})
    returning id::text`;
  return { id: row!.id, hashed };
}

/** The attempt's outcome: failed (with why), succeeded, or refused (no hash slot: nothing was checked). */
export async function finishAttempt(db: Db, id: string, outcome: 'failed' | 'succeeded' | 'refused', reason: string, now: Date): Promise<void> {
  await db`update operator_sign_in_attempts set outcome = ${outcome}, reason = ${reason}, finished_at = ${now} where id = ${id}::bigint`;
}

export async function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  const [row] = await db<
    SessionRow[]
  >`select id, operator_id, credential_version, created_at, last_seen_at, expires_at from operator_sessions where id = ${id}`;
  return row;
}

// ---- Invitations ----

export interface InvitationRow {
  id: string;
  token_hash: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  operator_id: string | null;
  revoked_at: Date | null;
}

/** A new invitation of an email; the email's live one (not accepted, not revoked) is revoked in the same transaction. */
export async function insertInvitation(
  tx: Db,
  i: { id: string; tokenHash: string; email: string; role: string; invitedBy: string; expiresAt: Date },
): Promise<{ invitation: InvitationRow; revoked: number }> {
  const revoked = await tx`
    update operator_invitations set revoked_at = now() where email = ${i.email} and accepted_at is null and revoked_at is null returning id`;
  const [row] = await tx<InvitationRow[]>`
    insert into operator_invitations (id, token_hash, email, role, invited_by, expires_at)
    values (${i.id}, ${i.tokenHash}, ${i.email}, ${i.role}, ${i.invitedBy}, ${i.expiresAt})
    returning *`;
  return { invitation: row!, revoked: revoked.length };
}

export async function findInvitationByToken(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await db<InvitationRow[]>`select * from operator_invitations where token_hash = ${tokenHash}`;
  return row;
}

/** The invitation under its row lock: two acceptances of one link take turns, the second sees it used. */
export async function lockInvitationByToken(tx: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await tx<InvitationRow[]>`select * from operator_invitations where token_hash = ${tokenHash} for update`;
  return row;
}

export async function lockInvitation(tx: Db, id: string): Promise<InvitationRow | undefined> {
  const [row] = await tx<InvitationRow[]>`select * from operator_invitations where id = ${id} for update`;
  return row;
}

export async function markInvitationAccepted(tx: Db, id: string, operatorId: string): Promise<InvitationRow> {
  const [row] = await tx<InvitationRow[]>`
    update operator_invitations set accepted_at = now(), operator_id = ${operatorId} where id = ${id} returning *`;
  return row!;
}

export async function revokeInvitation(tx: Db, id: string): Promise<InvitationRow> {
  const [row] = await tx<InvitationRow[]>`update operator_invitations set revoked_at = now() where id = ${id} returning *`;
  return row!;
}

/** Invitations not accepted and not revoked (expired ones too, until invited again), newest first. */
export async function listOpenInvitations(db: Db): Promise<InvitationRow[]> {
  return db<InvitationRow[]>`
    select * from operator_invitations where accepted_at is null and revoked_at is null order by created_at desc limit 200`;
}
