/**
 * A paired bank device's requests (docs/bank-notifications.md, "Device protocol"): X-Device-Id,
 * X-Device-Timestamp and X-Device-Signature, an Ed25519 signature over the timestamp, method,
 * path and query and the body's hash (domain/crypto/device-signature.ts), verified with the public
 * key the device registered at pairing. A revoked device is refused with its own words, so the
 * device can tell its owner to pair again. Replays are refused by the body's sequence number (the
 * service, in the transaction of the effect); the timestamp window bounds how long a request
 * could be held back before it is sent.
 *
 * The pairing request proves the key differently: it carries the new public key in its body and is
 * signed by that key (no X-Device-Id yet), so a pairing code alone, seen on a screen, pairs nothing
 * the holder of the code did not also hold the key of; the code itself is spent by the pairing.
 */
import type { Context } from 'koa';
import { PermissionDenied, TooManyInFlight, Unauthenticated } from '../../domain/errors';
import { decodeDevicePublicKey, deviceSignatureValid, deviceTimestampFresh } from '../../domain/crypto/device-signature';
import { deviceGate, findDevice } from '../../db/queries/bank-devices';
import type { AppDeps } from '../deps';
import type { AuthOptions, AuthScheme, Identity } from './authenticate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function signedRequest(ctx: Context, deps: AppDeps, needsId: boolean) {
  const timestampHeader = ctx.get('X-Device-Timestamp');
  const signature = ctx.get('X-Device-Signature');
  const deviceId = ctx.get('X-Device-Id');
  if (!timestampHeader || !signature || (needsId && !deviceId)) {
    throw new Unauthenticated(`missing device signature headers (${needsId ? 'X-Device-Id, ' : ''}X-Device-Timestamp, X-Device-Signature)`);
  }
  const timestamp = /^\d{1,12}$/.test(timestampHeader) ? Number(timestampHeader) : Number.NaN;
  if (!deviceTimestampFresh(timestamp, Math.floor(deps.now() / 1000))) throw new Unauthenticated('X-Device-Timestamp is outside the window of 300 seconds');
  return { timestamp, signature, deviceId };
}

const requestOf = (ctx: Context, timestamp: number) => ({
  timestamp,
  method: ctx.method,
  target: ctx.originalUrl,
  body: (ctx.state.rawBody as string | Buffer | undefined) ?? '',
});

export const deviceAuth: AuthScheme = {
  security: [{ DeviceId: [], DeviceTimestamp: [], DeviceSignature: [] }],
  errors: [401, 403, 429],
  async authenticate(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity> {
    const { timestamp, signature, deviceId } = signedRequest(ctx, deps, true);
    const device = UUID.test(deviceId) ? await findDevice(deps.sql, deviceId) : undefined;
    if (!device || device.status === 'PAIRING' || !device.public_key) throw new Unauthenticated('unknown device');
    if (device.status === 'REVOKED') throw new Unauthenticated('this device was revoked: pair it again from the trader app');
    await options.readBody();
    if (!deviceSignatureValid(device.public_key, signature, requestOf(ctx, timestamp))) throw new Unauthenticated('invalid device signature');
    // A trader who may not work (suspended, not yet approved) confirms nothing through its device either; a device that floods is slowed.
    const gate = await deviceGate(deps.sql, device.id);
    if (gate.trader_status !== 'ACTIVE') throw new PermissionDenied(`the device's trader is ${gate.trader_status}: its devices are refused until it is ACTIVE`);
    if (gate.last_minute >= deps.config.DEVICE_MESSAGES_PER_MINUTE) {
      throw new TooManyInFlight(`more than ${deps.config.DEVICE_MESSAGES_PER_MINUTE} notifications from this device in a minute: send the rest later`);
    }
    return { kind: 'device', deviceId: device.id, traderId: device.trader_id };
  },
};

/** Public in the OpenAPI sense (its credential is the one-time code in the body), with the key's proof in the headers. */
export const devicePairingAuth: AuthScheme = {
  security: [],
  errors: [401],
  async authenticate(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity> {
    const { timestamp, signature } = signedRequest(ctx, deps, false);
    await options.readBody();
    const body = ctx.state.body as { public_key?: unknown } | undefined;
    const key = typeof body?.public_key === 'string' ? decodeDevicePublicKey(body.public_key) : undefined;
    // A malformed key is the body's fault (400, from the schema); a well-formed one must have signed the request.
    if (key && !deviceSignatureValid(key, signature, requestOf(ctx, timestamp))) {
      throw new Unauthenticated('invalid device signature: the pairing request is signed with the key it registers');
    }
    return { kind: 'public' };
  },
};
