import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
// Pinned by every @temporalio package at the SDK's own version; the default import is the
// CommonJS interop form.
import proto from '@temporalio/proto';
import type { Config, PayloadKey } from '../config';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

/** The metadata of an encrypted payload: the encoding, the key it was sealed with, the format. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES256GCM-v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

/**
 * AES-256-GCM codec for every Temporal payload (workflow inputs and results, activity inputs and
 * results, signals, updates, queries, memos). The whole original payload — its metadata too, so
 * not even the converter's encoding shows — is serialised as protobuf and sealed:
 *   data = iv (12) ‖ tag (16) ‖ ciphertext, associated data = the key id.
 * The first key encrypts; any listed key decrypts, found by the id in the payload's metadata.
 * A payload without the encrypted encoding (written before encryption was on, or with it off)
 * passes through untouched; an encrypted one that does not authenticate is refused.
 */
export class PayloadEncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly current: PayloadKey;

  constructor(
    keys: PayloadKey[],
    private readonly options: { encrypt: boolean } = { encrypt: true },
  ) {
    if (keys.length === 0) throw new Error('the payload codec needs at least one key');
    for (const { id, key } of keys) if (key.length !== 32) throw new Error(`payload key ${id} must be 32 bytes`);
    this.current = keys[0]!;
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    if (!this.options.encrypt) return payloads;
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  private seal(payload: Payload): Payload {
    const { id, key } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(id));
    const ciphertext = Buffer.concat([cipher.update(ProtoPayload.encode(payload).finish()), cipher.final()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(id),
        [CIPHER_METADATA]: Buffer.from(CIPHER),
      },
      data: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]),
    };
  }

  private open(payload: Payload): Payload {
    if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
    const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
    const cipherName = text(payload.metadata?.[CIPHER_METADATA]);
    if (cipherName !== CIPHER) throw new PayloadDecryptionError(`unknown payload cipher ${cipherName ?? '(none)'}`);
    const key = keyId === undefined ? undefined : this.keys.get(keyId);
    if (!key) throw new PayloadDecryptionError(`payload key ${keyId ?? '(none)'} is not configured (TEMPORAL_PAYLOAD_KEYS)`);
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError('encrypted payload is truncated');
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(keyId!));
      decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(`encrypted payload does not authenticate under key ${keyId}`);
    }
    const inner = ProtoPayload.decode(plain);
    return { metadata: inner.metadata, data: inner.data };
  }
}

/** The one payload codec of the deployment: the worker, every client and the codec endpoint use it. */
export function payloadCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): PayloadEncryptionCodec {
  return new PayloadEncryptionCodec(config.TEMPORAL_PAYLOAD_KEYS, { encrypt: config.TEMPORAL_PAYLOAD_ENCRYPTION });
}

export function temporalDataConverter(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): DataConverter {
  return { payloadCodecs: [payloadCodec(config)] };
}
