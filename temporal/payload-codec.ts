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
const CIPHER_METADATA = 'encryption-cipher';
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
 * An encrypted payload that does not authenticate is refused, and so — while encryption is on —
 * is a payload that is not encrypted at all: a key proves who wrote a payload, so a plain one
 * (a signal or update sent to the frontend by anyone without the key, an approval with a forged
 * actor) never reaches a workflow. The workflow task fails instead (WorkflowTaskFailed with this
 * error, retried; docs/operations.md, "Temporal payloads"). Only with encryption off
 * (TEMPORAL_PAYLOAD_ENCRYPTION=false, refused in production) does a plain payload pass through.
 */
export class PayloadEncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly current: PayloadKey;

  /** Whether decode lets a payload without the encrypted encoding through (by default: only with encryption off). */
  private readonly acceptPlain: boolean;

  constructor(
    keys: PayloadKey[],
    private readonly options: { encrypt: boolean; acceptPlain?: boolean } = { encrypt: true },
  ) {
    this.acceptPlain = options.acceptPlain ?? !options.encrypt;
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
    if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) {
      if (this.acceptPlain) return payload;
      throw new PayloadDecryptionError(
        `payload is not encrypted (encoding ${text(payload.metadata?.[METADATA_ENCODING_KEY]) ?? '(none)'}): refused while TEMPORAL_PAYLOAD_ENCRYPTION is on`,
      );
    }
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

/** The one payload codec of the deployment: the worker and every client use it (plain payloads refused while encryption is on). */
export function payloadCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): PayloadEncryptionCodec {
  return new PayloadEncryptionCodec(config.TEMPORAL_PAYLOAD_KEYS, { encrypt: config.TEMPORAL_PAYLOAD_ENCRYPTION });
}

/**
 * The same keys for the codec endpoint (api/codec.ts), which shows payloads to operators: a plain
 * payload in a history (one the workers refused) is shown as it is, not refused with the page.
 */
export function displayCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): PayloadEncryptionCodec {
  return new PayloadEncryptionCodec(config.TEMPORAL_PAYLOAD_KEYS, { encrypt: config.TEMPORAL_PAYLOAD_ENCRYPTION, acceptPlain: true });
}

export function temporalDataConverter(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): DataConverter {
  return { payloadCodecs: [payloadCodec(config)] };
}
