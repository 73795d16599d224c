/**
 * The bank device protocol's signature (domain/crypto/device-signature.ts): what one key signs
 * verifies with its public key and nothing else — not another key, method, path, timestamp or body
 * byte; malformed signatures and keys are refused without a throw; a notification's hash frames
 * its parts, so no two different notifications share one by concatenation.
 */
import test from 'ava';
import fc from 'fast-check';
import {
  decodeDevicePublicKey,
  deviceSignatureValid,
  deviceTimestampFresh,
  encodeDeviceKey,
  newDeviceKeyPair,
  notificationHash,
  signDeviceRequest,
} from '../../domain/crypto/device-signature';

const keys = newDeviceKeyPair(new Uint8Array(32).fill(7));
const other = newDeviceKeyPair(new Uint8Array(32).fill(8));

test('a signature verifies for exactly the request it signed', (t) => {
  fc.assert(
    fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom('POST', 'GET'), (body, timestamp, method) => {
      const request = { timestamp, method, target: '/api/v1/p2p/device/notifications', body };
      const signature = signDeviceRequest(keys.secretKey, request);
      return (
        deviceSignatureValid(keys.publicKey, signature, request) &&
        !deviceSignatureValid(other.publicKey, signature, request) &&
        !deviceSignatureValid(keys.publicKey, signature, { ...request, body: `${body} ` }) &&
        !deviceSignatureValid(keys.publicKey, signature, { ...request, timestamp: timestamp + 1 }) &&
        !deviceSignatureValid(keys.publicKey, signature, { ...request, target: '/api/v1/p2p/device/heartbeat' }) &&
        !deviceSignatureValid(keys.publicKey, signature, { ...request, method: method === 'POST' ? 'GET' : 'POST' })
      );
    }),
    { numRuns: 200 },
  );
  t.pass();
});

test('malformed signatures and keys are refused, never thrown', (t) => {
  const request = { timestamp: 1, method: 'POST', target: '/x', body: '{}' };
  for (const bad of ['', '!!!', 'a'.repeat(86), Buffer.alloc(64).toString('base64url'), 'x'.repeat(10_000)]) {
    t.false(deviceSignatureValid(keys.publicKey, bad, request), bad.slice(0, 20));
  }
  t.is(decodeDevicePublicKey('short'), undefined);
  t.is(decodeDevicePublicKey('@'.repeat(43)), undefined);
  t.deepEqual(decodeDevicePublicKey(encodeDeviceKey(keys.publicKey)), keys.publicKey);
});

test('the timestamp window is 300 seconds either way', (t) => {
  t.true(deviceTimestampFresh(1000, 1300));
  t.true(deviceTimestampFresh(1300, 1000));
  t.false(deviceTimestampFresh(1000, 1301));
  t.false(deviceTimestampFresh(Number.NaN, 1000));
});

test("a notification's hash tells apart notifications whose joined parts are the same", (t) => {
  const base = { deviceId: 'd', receivedAt: '2026-11-29T08:00:00.000Z' };
  const a = notificationHash({ ...base, sender: 'T-Bank', text: 'x' });
  const b = notificationHash({ ...base, sender: 'T-Ban', text: 'kx' });
  t.notDeepEqual(a, b);
  t.deepEqual(a, notificationHash({ ...base, sender: 'T-Bank', text: 'x' }));
});
