/**
 * Accounts of every party (operators, merchant members, traders), their sessions, sign-in
 * attempts and invitations (db/migrations/00004_accounts.sql). One set of queries for every door:
 * what differs by party is the party argument (and, for a member, its merchant).
 */
import type { Party } from '../../domain/roles';
import type { Db } from '../sql';

export interface AccountRow {
  id: string;
  party: Party;
  /** The merchant of a member; null for operators and traders. */
  merchant_id: string | null;
  /** The trader of a trader's account; null otherwise. */
  trader_id: string | null;
  email: string;
  password_hash: string;
  role: string;
  totp_secret_sealed: string | null;
  /** The last TOTP time step accepted for the account: no code of it or before it is accepted again. */
  totp_last_step: bigint | null;
  /** Moves on with every credential change; a session works only while it matches the one it was made with. */
  credential_version: number;
  disabled_at: Date | null;
  /** A member its owner removed: kept for the trail, never listed or signed in again. */
  removed_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  /** When and from where the account last signed in (null and '' before its first sign-in). */
  last_sign_in_at: Date | null;
  last_sign_in_address: string;
  /** The account must set up an authenticator before anything else (an invited account). */
  totp_required: boolean;
}

/** An operator account: the console's rows of the one accounts table. */
export type OperatorRow = AccountRow & { party: 'operator' };

/** The live (not removed) account of this email at this party's door. */
export async function findAccountByEmail(db: Db, party: Party, email: string): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`select * from accounts where party = ${party} and email = ${email} and removed_at is null`;
  return row;
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`select * from accounts where id = ${id}`;
  return row;
}

export async function lockAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`select * from accounts where id = ${id} for no key update`;
  return row;
}

/** An operator account by id (a member's or trader's id is no operator). */
export async function findOperator(db: Db, id: string): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`select * from accounts where id = ${id} and party = 'operator'`;
  return row;
}

export async function lockOperator(db: Db, id: string): Promise<OperatorRow | undefined> {
  const [row] = await db<OperatorRow[]>`select * from accounts where id = ${id} and party = 'operator' for no key update`;
  return row;
}

export interface NewAccount {
  id: string;
  party: Party;
  merchantId?: string | null;
  traderId?: string | null;
  email: string;
  passwordHash: string;
  role: string;
  createdBy: string;
  totpRequired?: boolean;
}

/** Inserts an account; an email already taken at the party's door answers undefined. */
export async function insertAccount(db: Db, a: NewAccount): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`
    insert into accounts (id, party, merchant_id, trader_id, email, password_hash, role, created_by, totp_required)
    values (${a.id}, ${a.party}, ${a.merchantId ?? null}, ${a.traderId ?? null}, ${a.email}, ${a.passwordHash}, ${a.role}, ${a.createdBy},
            ${a.totpRequired ?? false})
    on conflict (party, email) where removed_at is null do nothing
    returning *`;
  return row;
}

/** A sign-in: when and from which client address (written in the transaction that makes the session). */
export async function recordSignIn(db: Db, id: string, at: Date, address: string): Promise<void> {
  await db`update accounts set last_sign_in_at = ${at}, last_sign_in_address = ${address.slice(0, 100)} where id = ${id}`;
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: {
    role?: string;
    disabled_at?: Date | null;
    removed_at?: Date | null;
    password_hash?: string;
    totp_secret_sealed?: string | null;
    totp_last_step?: number | null;
  },
): Promise<AccountRow> {
  const [row] = await db<AccountRow[]>`
    update accounts set ${db(changes as Record<string, unknown>, ...(Object.keys(changes) as (keyof typeof changes)[]))}, updated_at = now()
    where id = ${id} returning *`;
  return row!;
}

/** A new password or TOTP secret: the version moves on, so every session made before it stops working. */
export async function bumpCredentialVersion(db: Db, id: string): Promise<number> {
  const [row] = await db<{ credential_version: number }[]>`
    update accounts set credential_version = credential_version + 1, updated_at = now() where id = ${id} returning credential_version`;
  return row!.credential_version;
}

/**
 * Uses a TOTP time step: only if it is later than the last one used (one statement, so two
 * requests with one code cannot both pass). False: the code was used already.
 */
export async function useTotpStep(db: Db, id: string, step: number): Promise<boolean> {
  const rows = await db`update accounts set totp_last_step = ${step} where id = ${id} and (totp_last_step is null or totp_last_step < ${step}) returning id`;
  return rows.length === 1;
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return db<OperatorRow[]>`select * from accounts where party = 'operator' order by created_at, id`;
}

/** A merchant's team (not the removed), oldest first. */
export async function listMembers(db: Db, merchantId: string): Promise<AccountRow[]> {
  return db<AccountRow[]>`
    select * from accounts where party = 'merchant' and merchant_id = ${merchantId} and removed_at is null order by created_at, id`;
}

/**
 * A merchant's whole team under row locks, in id order: every change of a member's role, state
 * or presence takes them first, so two changes of one team take turns and each sees what the
 * other left (the last owner stays, whatever runs at once).
 */
export async function lockMembers(tx: Db, merchantId: string): Promise<AccountRow[]> {
  return tx<AccountRow[]>`
    select * from accounts where party = 'merchant' and merchant_id = ${merchantId} order by id for no key update`;
}

/** Who these accounts are (email, role, party, whether disabled), by id; ids that are no account's (a JWT's sub) are left out. */
export async function accountNames(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, { email: string; role: string; party: Party; merchant_id: string | null; disabled: boolean }>> {
  const unique = [...new Set(ids)].filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id));
  if (unique.length === 0) return new Map();
  const rows = await db<{ id: string; email: string; role: string; party: Party; merchant_id: string | null; disabled: boolean }[]>`
    select id, email, role, party, merchant_id, disabled_at is not null as disabled from accounts where id = any(${unique}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r]));
}

// ---- Sessions ----

export interface SessionRow {
  id: string;
  account_id: string;
  credential_version: number;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  db: Db,
  s: { id: string; accountId: string; credentialVersion: number; expiresAt: Date; ip: string; userAgent: string; now: Date },
): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`
    insert into account_sessions (id, account_id, credential_version, created_at, last_seen_at, expires_at, ip, user_agent)
    values (${s.id}, ${s.accountId}, ${s.credentialVersion}, ${s.now}, ${s.now}, ${s.expiresAt}, ${s.ip}, ${s.userAgent.slice(0, 300)})
    returning id, account_id, credential_version, created_at, last_seen_at, expires_at`;
  return row!;
}

export interface LiveSession extends SessionRow {
  party: Party;
  merchant_id: string | null;
  trader_id: string | null;
  email: string;
  role: string;
  disabled_at: Date | null;
  /** The account must set up an authenticator and has not yet: the session may do nothing else. */
  enrolment_pending: boolean;
}

/**
 * The session with its account, if it has not ended (expires_at is the earlier of the idle and
 * absolute ends) and was made with the account's current credential (a password or TOTP change
 * since ends it, even one that raced the sign-in).
 */
export async function findLiveSession(db: Db, id: string, now: Date): Promise<LiveSession | undefined> {
  const [row] = await db<LiveSession[]>`
    select s.id, s.account_id, s.credential_version, s.created_at, s.last_seen_at, s.expires_at,
      a.party, a.merchant_id, a.trader_id, a.email, a.role, a.disabled_at,
      (a.totp_required and a.totp_secret_sealed is null) as enrolment_pending
    from account_sessions s join accounts a on a.id = s.account_id
    where s.id = ${id} and s.expires_at > ${now} and s.credential_version = a.credential_version and a.removed_at is null`;
  return row;
}

/** A request seen: the idle end moves, never past the absolute end. */
export async function touchSession(db: Db, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db`update account_sessions set last_seen_at = ${now}, expires_at = ${expiresAt} where id = ${id}`;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db`delete from account_sessions where id = ${id}`;
}

/** Ends the account's sessions, but `keep` (the session making the change), which moves to `credentialVersion`. */
export async function deleteSessionsOf(db: Db, accountId: string, keep?: { sessionId: string; credentialVersion: number }): Promise<number> {
  const ended = await db`delete from account_sessions where account_id = ${accountId} and id <> ${keep?.sessionId ?? ''} returning id`;
  if (keep) await db`update account_sessions set credential_version = ${keep.credentialVersion} where id = ${keep.sessionId} and account_id = ${accountId}`;
  return ended.length;
}

export async function deleteEndedSessions(db: Db, now: Date): Promise<void> {
  await db`delete from account_sessions where expires_at <= ${now}`;
}

export async function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  const [row] = await db<SessionRow[]>`
    select id, account_id, credential_version, created_at, last_seen_at, expires_at from account_sessions where id = ${id}`;
  return row;
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
 * The email key is the door's (an HMAC of party and email, api/services/accounts.ts); the address
 * and the decoy budget are counted across every door.
 */
export async function reserveAttempt(
  tx: Db,
  a: {
    party: Party;
    emailKey: string;
    accountId: string | null;
    address: string;
    kind: 'sign_in' | 'confirm';
    since: Date;
    now: Date;
    limits: AttemptLimits;
  },
): Promise<Reservation> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`sign-in:email:${a.emailKey}`}, 0))`;
  await tx`select pg_advisory_xact_lock(hashtextextended(${`sign-in:address:${a.address}`}, 0))`;
  const [counts] = await tx<{ pair: number; email: number; address: number }[]>`
    select count(*) filter (where email_key = ${a.emailKey} and address = ${a.address})::int as pair,
           count(*) filter (where email_key = ${a.emailKey})::int as email,
           count(*) filter (where address = ${a.address})::int as address
    from sign_in_attempts
    where (email_key = ${a.emailKey} or address = ${a.address}) and at > ${a.since} and outcome in ('pending', 'failed')`;
  if (counts!.pair >= a.limits.perPair) return { refused: 'pair' };
  if (counts!.email >= a.limits.perEmail) return { refused: 'email' };
  if (counts!.address >= a.limits.perAddress) return { refused: 'address' };
  let hashed = true;
  if (a.accountId === null) {
    await tx`select pg_advisory_xact_lock(hashtextextended('sign-in:unknown', 0))`;
    const [decoys] = await tx<{ n: number }[]>`
      select count(*)::int as n from sign_in_attempts where account_id is null and hashed and at > ${a.since}`;
    hashed = decoys!.n < a.limits.unknownHashes;
  }
  const [row] = await tx<{ id: string }[]>`
    insert into sign_in_attempts (at, party, email_key, account_id, address, kind, hashed)
    values (${a.now}, ${a.party}, ${a.emailKey}, ${a.accountId}, ${a.address}, ${a.kind}, ${hashed})
    returning id::text`;
  return { id: row!.id, hashed };
}

/** The attempt's outcome: failed (with why), succeeded, or refused (no hash slot: nothing was checked). */
export async function finishAttempt(db: Db, id: string, outcome: 'failed' | 'succeeded' | 'refused', reason: string, now: Date): Promise<void> {
  await db`update sign_in_attempts set outcome = ${outcome}, reason = ${reason}, finished_at = ${now} where id = ${id}::bigint`;
}

// ---- Invitations ----

export interface InvitationRow {
  id: string;
  token_hash: string;
  party: Party;
  merchant_id: string | null;
  trader_id: string | null;
  email: string;
  role: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  account_id: string | null;
  revoked_at: Date | null;
}

/** Who invites: the operators (no scope), one merchant, one trader. Its invitations are its own. */
export interface InvitationScope {
  party: Party;
  merchantId?: string | null;
  traderId?: string | null;
}

const scopeWhere = (db: Db, s: InvitationScope) =>
  db`party = ${s.party} and merchant_id is not distinct from ${s.merchantId ?? null}::uuid and trader_id is not distinct from ${s.traderId ?? null}::uuid`;

/** A new invitation of an email; the inviter's live one of that email (not accepted, not revoked) is revoked in the same transaction. */
export async function insertInvitation(
  tx: Db,
  i: InvitationScope & { id: string; tokenHash: string; email: string; role: string; invitedBy: string; expiresAt: Date },
): Promise<{ invitation: InvitationRow; revoked: number }> {
  const revoked = await tx`
    update account_invitations set revoked_at = now()
    where ${scopeWhere(tx, i)} and email = ${i.email} and accepted_at is null and revoked_at is null returning id`;
  const [row] = await tx<InvitationRow[]>`
    insert into account_invitations (id, token_hash, party, merchant_id, trader_id, email, role, invited_by, expires_at)
    values (${i.id}, ${i.tokenHash}, ${i.party}, ${i.merchantId ?? null}, ${i.traderId ?? null}, ${i.email}, ${i.role}, ${i.invitedBy}, ${i.expiresAt})
    returning *`;
  return { invitation: row!, revoked: revoked.length };
}

export async function findInvitationByToken(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await db<InvitationRow[]>`select * from account_invitations where token_hash = ${tokenHash}`;
  return row;
}

/** The invitation under its row lock: two acceptances of one link take turns, the second sees it used. */
export async function lockInvitationByToken(tx: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await tx<InvitationRow[]>`select * from account_invitations where token_hash = ${tokenHash} for no key update`;
  return row;
}

/** The inviter's invitation under its row lock; another inviter's id is none (404). */
export async function lockInvitation(tx: Db, scope: InvitationScope, id: string): Promise<InvitationRow | undefined> {
  const [row] = await tx<InvitationRow[]>`select * from account_invitations where id = ${id} and ${scopeWhere(tx, scope)} for no key update`;
  return row;
}

export async function markInvitationAccepted(tx: Db, id: string, accountId: string): Promise<InvitationRow> {
  const [row] = await tx<InvitationRow[]>`
    update account_invitations set accepted_at = now(), account_id = ${accountId} where id = ${id} returning *`;
  return row!;
}

export async function revokeInvitation(tx: Db, id: string): Promise<InvitationRow> {
  const [row] = await tx<InvitationRow[]>`update account_invitations set revoked_at = now() where id = ${id} returning *`;
  return row!;
}

/** Withdraws the open invitations an account made (it left, was disabled, or may no longer invite): how many. */
export async function revokeInvitationsBy(tx: Db, inviter: string): Promise<number> {
  const rows = await tx`
    update account_invitations set revoked_at = now() where invited_by = ${inviter} and accepted_at is null and revoked_at is null returning id`;
  return rows.length;
}

/** The inviter's invitations not accepted and not revoked (expired ones too, until invited again), newest first. */
export async function listOpenInvitations(db: Db, scope: InvitationScope): Promise<InvitationRow[]> {
  return db<InvitationRow[]>`
    select * from account_invitations where ${scopeWhere(db, scope)} and accepted_at is null and revoked_at is null
    order by created_at desc limit 200`;
}
