import type { Db } from '../sql';
import { newApiToken, newId, newSigningSecret } from '../../domain/ids';
import type { SecretBox } from '../../domain/crypto/secret-box';

export interface AuthKeyRow {
  key_id: string;
  secret_sealed: string;
  grace_until: Date | null;
  merchant_id: string;
  tenant_id: string;
  disabled_at: Date | null;
  ip_whitelist: string[];
  rate_limit_per_minute: number | null;
  /** 'required': every request must carry a valid request-bound v2 signature. */
  signature_binding: 'optional' | 'required';
}

/** The key pair for a token with the merchant fields authentication needs, in one query. */
export async function findKeyForAuth(db: Db, token: string): Promise<AuthKeyRow | undefined> {
  if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
  const [row] = await db<AuthKeyRow[]>`
    select k.id as key_id, k.secret_sealed, k.grace_until, m.id as merchant_id, m.tenant_id,
           m.disabled_at, m.ip_whitelist, m.rate_limit_per_minute, m.signature_binding
    from api_keys k join merchants m on m.id = k.merchant_id
    where k.token = ${token}`;
  return row;
}

export async function findMerchantGate(db: Db, merchantId: string) {
  const [row] = await db<{ id: string; tenant_id: string; disabled_at: Date | null }[]>`
    select id, tenant_id, disabled_at from merchants where id = ${merchantId}`;
  return row;
}

export interface IssuedKeyPair {
  token: string;
  secret: string;
}

/**
 * Makes a new current key pair for the merchant and supersedes the previous one, which stays
 * valid (as a whole pair) for graceSeconds; 0 ends it at once. Must run in a transaction.
 * The merchant row lock serialises concurrent rotations: exactly one pair is current.
 */
export async function replaceKeyPair(tx: Db, secretBox: SecretBox, merchantId: string, graceSeconds: number): Promise<IssuedKeyPair | undefined> {
  const [merchant] = await tx`select id from merchants where id = ${merchantId} for no key update`;
  if (!merchant) return undefined;
  await tx`
    update api_keys
    set superseded_at = now(), grace_until = now() + make_interval(secs => ${graceSeconds})
    where merchant_id = ${merchantId} and superseded_at is null`;
  const id = newId();
  const token = newApiToken();
  const secret = newSigningSecret();
  await tx`
    insert into api_keys (id, merchant_id, token, secret_sealed)
    values (${id}, ${merchantId}, ${token}, ${secretBox.seal(secret, id)})`;
  return { token, secret };
}
