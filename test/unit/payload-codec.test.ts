import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { DEV_PAYLOAD_KEYS, loadConfig, parsePayloadKeys } from '../../config';
import { isLoopback } from '../../api/codec';
import { temporalConnectionOptions } from '../../temporal/connection';
import { displayCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, payloadCodec, PayloadDecryptionError, PayloadEncryptionCodec } from '../../temporal/payload-codec';

const key = (id: string) => ({ id, key: randomBytes(32) });
const CARD = '2200999988887777';
const input = () => defaultPayloadConverter.toPayload({ card_number: CARD, holder_name: 'Isolated Holder', amount: '150000' });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

test('a payload round-trips, and nothing of it (data or encoding) shows in the sealed form', async (t) => {
  const codec = new PayloadEncryptionCodec([key('k1')]);
  const [sealed] = await codec.encode([input()]);
  t.is(text(sealed!.metadata!.encoding), ENCRYPTED_ENCODING);
  t.is(text(sealed!.metadata![KEY_ID_METADATA]), 'k1');
  t.false(Buffer.from(sealed!.data!).includes(CARD));
  t.false(Buffer.from(sealed!.data!).includes('json/plain'));
  const [opened] = await codec.decode([sealed!]);
  t.deepEqual(defaultPayloadConverter.fromPayload(opened!), { card_number: CARD, holder_name: 'Isolated Holder', amount: '150000' });
  t.is(text(opened!.metadata!.encoding), 'json/plain');
  const [again] = await codec.encode([input()]);
  t.notDeepEqual(Buffer.from(again!.data!), Buffer.from(sealed!.data!)); // a fresh IV each time
});

test('after a rotation, payloads sealed under the old key still open; new ones use the new key', async (t) => {
  const old = key('2025-01');
  const next = key('2025-07');
  const [sealedBefore] = await new PayloadEncryptionCodec([old]).encode([input()]);
  const rotated = new PayloadEncryptionCodec([next, old]);
  t.deepEqual(defaultPayloadConverter.fromPayload((await rotated.decode([sealedBefore!]))[0]!), defaultPayloadConverter.fromPayload(input()));
  const [sealedAfter] = await rotated.encode([input()]);
  t.is(text(sealedAfter!.metadata![KEY_ID_METADATA]), '2025-07');
  // Once the old key is dropped from the list, its payloads no longer open: keep it while histories need it.
  await t.throwsAsync(new PayloadEncryptionCodec([next]).decode([sealedBefore!]), { instanceOf: PayloadDecryptionError, message: /2025-01 is not configured/ });
});

test('a tampered payload, a swapped key id or a wrong key is refused', async (t) => {
  const k1 = key('k1');
  const codec = new PayloadEncryptionCodec([k1, key('k2')]);
  const [sealed] = await codec.encode([input()]);
  for (const index of [0, 12, 30, sealed!.data!.length - 1]) {
    const data = Buffer.from(sealed!.data!);
    data[index] = data[index]! ^ 0x01; // iv, tag, ciphertext
    await t.throwsAsync(codec.decode([{ ...sealed!, data }]), { instanceOf: PayloadDecryptionError });
  }
  const swapped: Payload = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('k2') } };
  await t.throwsAsync(codec.decode([swapped]), { instanceOf: PayloadDecryptionError });
  const sameIdOtherKey = new PayloadEncryptionCodec([{ id: 'k1', key: randomBytes(32) }]);
  await t.throwsAsync(sameIdOtherKey.decode([sealed!]), { instanceOf: PayloadDecryptionError });
  await t.throwsAsync(codec.decode([{ ...sealed!, data: Buffer.alloc(10) }]), { instanceOf: PayloadDecryptionError });
});

test('with a key and encryption on, a payload that is not encrypted is refused; only with encryption off does it pass', async (t) => {
  const plain = input();
  // What a client without the key sends (a plain-JSON signal or update): the worker's codec refuses it.
  const codec = new PayloadEncryptionCodec([key('k1')]);
  await t.throwsAsync(codec.decode([plain]), { instanceOf: PayloadDecryptionError, message: /not encrypted \(encoding json\/plain\)/ });
  await t.throwsAsync(codec.decode([{ metadata: {}, data: Buffer.from('{}') }]), { instanceOf: PayloadDecryptionError, message: /not encrypted/ });
  // One plain payload among sealed ones fails the lot.
  const [sealedOne] = await codec.encode([input()]);
  await t.throwsAsync(codec.decode([sealedOne!, plain]), { instanceOf: PayloadDecryptionError });
  const deployment = payloadCodec({ TEMPORAL_PAYLOAD_ENCRYPTION: true, TEMPORAL_PAYLOAD_KEYS: [key('k1')] });
  await t.throwsAsync(deployment.decode([plain]), { instanceOf: PayloadDecryptionError });
  // The codec endpoint shows a plain payload of a history as it is (display only).
  const display = displayCodec({ TEMPORAL_PAYLOAD_ENCRYPTION: true, TEMPORAL_PAYLOAD_KEYS: [key('k1')] });
  t.is((await display.decode([plain]))[0], plain);

  // Encryption off (development only): nothing is sealed, plain payloads pass…
  const off = new PayloadEncryptionCodec([key('k1')], { encrypt: false });
  const [written] = await off.encode([plain]);
  t.is(written, plain);
  t.is((await off.decode([plain]))[0], plain);
  // …and what was sealed while it was on still opens.
  const current = key('k1');
  const [sealed] = await new PayloadEncryptionCodec([current]).encode([plain]);
  const [opened] = await new PayloadEncryptionCodec([current], { encrypt: false }).decode([sealed!]);
  t.deepEqual(defaultPayloadConverter.fromPayload(opened!), defaultPayloadConverter.fromPayload(plain));
});

test('TEMPORAL_PAYLOAD_KEYS: first key encrypts; bad keys, duplicate ids and the dev key in production are refused', (t) => {
  const a = randomBytes(32).toString('base64');
  const b = randomBytes(32).toString('base64');
  const keys = parsePayloadKeys(` new:${a} , old:${b}`);
  t.deepEqual(
    keys.map((k) => k.id),
    ['new', 'old'],
  );
  t.true(keys[0]!.key.equals(Buffer.from(a, 'base64')));
  t.throws(() => parsePayloadKeys(`k:${randomBytes(16).toString('base64')}`), { message: /32 bytes/ });
  t.throws(() => parsePayloadKeys(`k:${a},k:${b}`), { message: /distinct/ });
  t.throws(() => parsePayloadKeys(a), { message: /<id>:/ });
  t.throws(() => parsePayloadKeys(''), { message: /at least one/ });
  t.throws(() => loadConfig({ TEMPORAL_PAYLOAD_KEYS: 'nonsense' }), { message: /TEMPORAL_PAYLOAD_KEYS/ });

  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: 'a-production-secret-of-length',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WALLET_HD_SEED: '11'.repeat(32),
    CHAIN_ADAPTER: 'trongrid',
    TRON_API_URL: 'https://api.trongrid.io',
    TRON_HOT_WALLET_KEY: '22'.repeat(32),
  };
  t.throws(() => loadConfig(production), { message: /TEMPORAL_PAYLOAD_KEYS must be set in production/ });
  t.throws(() => loadConfig({ ...production, TEMPORAL_PAYLOAD_KEYS: `new:${a},${DEV_PAYLOAD_KEYS}` }), { message: /TEMPORAL_PAYLOAD_KEYS/ });
  const prod = loadConfig({ ...production, TEMPORAL_PAYLOAD_KEYS: `new:${a}` });
  t.true(prod.TEMPORAL_PAYLOAD_ENCRYPTION);
  t.false(prod.CODEC_LOOPBACK_WITHOUT_AUTH);
  t.throws(() => loadConfig({ ...production, TEMPORAL_PAYLOAD_KEYS: `new:${a}`, CODEC_LOOPBACK_WITHOUT_AUTH: 'true' }), { message: /development only/ });
  // Production never takes plain payloads: encryption cannot be turned off there.
  t.throws(() => loadConfig({ ...production, TEMPORAL_PAYLOAD_KEYS: `new:${a}`, TEMPORAL_PAYLOAD_ENCRYPTION: 'false' }), {
    message: /TEMPORAL_PAYLOAD_ENCRYPTION=false is refused in production/,
  });
  t.true(loadConfig({ NODE_ENV: 'development' }).CODEC_LOOPBACK_WITHOUT_AUTH);
  t.false(loadConfig({ NODE_ENV: 'test' }).CODEC_LOOPBACK_WITHOUT_AUTH);
});

test('TLS to Temporal: plain when unset; CA, client pair and server name from files when set', (t) => {
  t.deepEqual(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' })), { address: 'temporal:7233' });
  t.deepEqual(temporalConnectionOptions(loadConfig({ TEMPORAL_TLS: 'true', TEMPORAL_TLS_CA: '' })).tls, {});
  const dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  for (const name of ['ca.pem', 'client.pem', 'client.key']) writeFileSync(join(dir, name), `-----${name}-----`);
  const options = temporalConnectionOptions(
    loadConfig({
      TEMPORAL_TLS_CA: join(dir, 'ca.pem'),
      TEMPORAL_TLS_CERT: join(dir, 'client.pem'),
      TEMPORAL_TLS_KEY: join(dir, 'client.key'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    }),
  );
  t.is(String(options.tls!.serverRootCACertificate), '-----ca.pem-----');
  t.is(String(options.tls!.clientCertPair!.crt), '-----client.pem-----');
  t.is(String(options.tls!.clientCertPair!.key), '-----client.key-----');
  t.is(options.tls!.serverNameOverride, 'temporal.internal');
  t.throws(() => loadConfig({ TEMPORAL_TLS_CERT: join(dir, 'client.pem') }), { message: /go together/ });
});

test('loopback detection takes only this machine', (t) => {
  for (const ip of ['127.0.0.1', '127.10.0.3', '::1', '::ffff:127.0.0.1']) t.true(isLoopback(ip), ip);
  for (const ip of [undefined, '10.0.0.1', '::ffff:10.0.0.1', '192.168.1.127', '::2', '1127.0.0.1']) t.false(isLoopback(ip), String(ip));
});
