import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface RingKey {
  /** Written into each sealed value, so a value finds its key after a rotation. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/**
 * The secret box's sibling with key ids, for data at rest that outlives a key (card, phone and
 * IBAN numbers): AES-256-GCM, stored as "k1:<key id>:<iv b64>:<tag b64>:<ciphertext b64>".
 * The first key seals; every listed key opens, found by the id in the value, so a key rotates by
 * putting the new one first and keeping the old one listed until no row is sealed under it.
 * The associated data binds a value to its row and column (and to the key id), so a value copied
 * to another row or column does not open.
 */
export class KeyRing {
  private readonly keys: Map<string, Buffer>;
  private readonly current: RingKey;

  constructor(keys: RingKey[]) {
    if (keys.length === 0) throw new Error('the key ring needs at least one key');
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new Error(`key ${id} must be 32 bytes`);
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`key id "${id}" must be of [A-Za-z0-9._-]`);
    }
    this.current = keys[0]!;
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  seal(plaintext: string, associatedData: string): string {
    const { id, key } = this.current;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${id}|${associatedData}`));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['k1', id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
  }

  open(sealed: string, associatedData: string): string {
    const [version, id, iv, tag, ciphertext] = sealed.split(':');
    if (version !== 'k1' || !id || !iv || !tag || ciphertext === undefined) throw new Error('unknown sealed format');
    const key = this.keys.get(id);
    if (!key) throw new Error(`key ${id} is not configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(`${id}|${associatedData}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }
}
