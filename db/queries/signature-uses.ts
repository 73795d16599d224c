/**
 * signature_uses: the memory of the replay rule (api/auth/replay.ts). A row (signature, route)
 * is claimed once, serialised by the primary key, and kept until its timestamp leaves the window.
 */
import type { Db } from '../sql';

export interface SignatureClaim {
  signature: string;
  /** The route in its canonical spelling ('' claims the signature for any body-less request). */
  route: string;
  expiresAt: Date;
  /** Claim (signature, ''). */
  claimsBodyless: boolean;
  /** Claim (signature, route). */
  claimsRoute: boolean;
}

/** One statement: whether this request was the first to claim (signature, '') and (signature, route). */
export async function claimSignature(db: Db, c: SignatureClaim): Promise<{ first_seen: boolean; first_use: boolean }> {
  const [row] = await db<{ first_seen: boolean; first_use: boolean }[]>`
    with seen as (
      insert into signature_uses (signature, route, expires_at)
      select ${c.signature}, '', ${c.expiresAt} where ${c.claimsBodyless}
      on conflict do nothing returning 1),
    used as (
      insert into signature_uses (signature, route, expires_at)
      select ${c.signature}, ${c.route.slice(0, 2000)}, ${c.expiresAt} where ${c.claimsRoute}
      on conflict do nothing returning 1)
    select exists (select 1 from seen) as first_seen, exists (select 1 from used) as first_use`;
  return row!;
}

/**
 * Claims a signature for one family of routes (`<prefix><family>`) and tells whether another
 * family of the same prefix holds it too. Both claimed under a race: both see the other.
 */
export async function claimSignatureFamily(db: Db, c: { signature: string; prefix: string; family: string; expiresAt: Date }): Promise<boolean> {
  const route = `${c.prefix}${c.family}`;
  await db`
    insert into signature_uses (signature, route, expires_at) values (${c.signature}, ${route}, ${c.expiresAt})
    on conflict do nothing`;
  const [other] = await db`
    select 1 from signature_uses where signature = ${c.signature} and route like ${`${c.prefix}%`} and route <> ${route} limit 1`;
  return other !== undefined;
}

/** Forgets signatures whose timestamps have left the window, a batch at a time. */
export async function pruneSignatureUses(db: Db): Promise<void> {
  await db`
    delete from signature_uses where ctid in (
      select ctid from signature_uses where expires_at < now() limit 5000)`;
}
