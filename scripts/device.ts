/**
 * npm run device -- COMMAND: a bank device on the command line, speaking the device protocol as a
 * phone app would (docs/bank-notifications.md), for demos and for trying the protocol by hand.
 *
 *   pair <pairing_uri or code>      pair with the code the trader app shows (its QR code's content):
 *                                   makes a key pair, keeps it in .data/devices/, signs the pairing
 *   heartbeat                       the device is alive (its requisites stay in the matcher)
 *   send <sender> <text>            forward a bank notification exactly as given
 *
 * The last paired device is the one used (DEVICE_ID picks another). The API is API_URL, else the
 * server the pairing URI names, else http://127.0.0.1:$PORT (3000).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeDeviceKey, newDeviceKeyPair, signDeviceRequest } from '../domain/crypto/device-signature';
import { DATA_DIR } from './stack';

const DEVICES_DIR = join(DATA_DIR, 'devices');
interface Stored {
  deviceId: string;
  server: string;
  secretKey: string;
  sequence: number;
  name: string;
}

const [command = '', ...args] = process.argv.slice(2);
const fallbackServer = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;

async function send(server: string, method: string, path: string, body: unknown, secretKey: Uint8Array, deviceId?: string) {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(new URL(path, server), {
    method,
    headers: {
      'Content-Type': 'application/json',
      'X-Device-Timestamp': String(timestamp),
      'X-Device-Signature': signDeviceRequest(secretKey, { timestamp, method, target: path, body: raw }),
      ...(deviceId ? { 'X-Device-Id': deviceId } : {}),
    },
    body: raw,
  });
  const text = await response.text();
  console.log(`${response.status} ${response.statusText}`);
  try {
    console.log(JSON.stringify(JSON.parse(text), null, 2));
  } catch {
    console.log(text);
  }
  return { status: response.status, text };
}

function current(): Stored {
  const files = readdirSync(DEVICES_DIR, { withFileTypes: true }).filter((f) => f.isFile() && f.name.endsWith('.json'));
  const wanted = process.env.DEVICE_ID;
  const chosen = wanted
    ? files.find((f) => f.name === `${wanted}.json`)
    : files
        .map((f) => ({ f, stored: JSON.parse(readFileSync(join(DEVICES_DIR, f.name), 'utf8')) as Stored & { pairedAt: number } }))
        .sort((a, b) => b.stored.pairedAt - a.stored.pairedAt)[0]?.f;
  if (!chosen) throw new Error('no paired device in .data/devices: run npm run device -- pair <code> first');
  return JSON.parse(readFileSync(join(DEVICES_DIR, chosen.name), 'utf8')) as Stored;
}

/** The device's next sequence number, kept with its key (the protocol's counter). */
function nextSequence(stored: Stored): number {
  stored.sequence += 1;
  writeFileSync(join(DEVICES_DIR, `${stored.deviceId}.json`), JSON.stringify({ ...stored, pairedAt: Date.now() }), { mode: 0o600 });
  return stored.sequence;
}

const secretOf = (stored: Stored) => Buffer.from(stored.secretKey, 'base64url');

switch (command) {
  case 'pair': {
    const given = args[0] ?? '';
    const uri = given.startsWith('gateway-device://') ? new URL(given) : undefined;
    const code = uri ? (uri.searchParams.get('code') ?? '') : given;
    const server = process.env.API_URL ?? uri?.searchParams.get('server') ?? fallbackServer;
    if (!code) throw new Error('usage: npm run device -- pair <pairing_uri or code>');
    const keys = newDeviceKeyPair();
    const answer = await send(
      server,
      'POST',
      '/api/v1/p2p/device/pairing',
      { pairing_code: code, public_key: encodeDeviceKey(keys.publicKey), app_version: 'cli' },
      keys.secretKey,
    );
    if (answer.status !== 201) process.exit(1);
    const paired = JSON.parse(answer.text) as { device_id: string; name: string; last_sequence: string };
    mkdirSync(DEVICES_DIR, { recursive: true });
    const stored: Stored & { pairedAt: number } = {
      deviceId: paired.device_id,
      server,
      secretKey: Buffer.from(keys.secretKey).toString('base64url'),
      sequence: Number(paired.last_sequence),
      name: paired.name,
      pairedAt: Date.now(),
    };
    writeFileSync(join(DEVICES_DIR, `${paired.device_id}.json`), JSON.stringify(stored), { mode: 0o600 });
    console.log(`paired "${paired.name}" (${paired.device_id}); its key is in .data/devices/. Pick its requisites in the trader app.`);
    break;
  }
  case 'heartbeat': {
    const stored = current();
    await send(stored.server, 'POST', '/api/v1/p2p/device/heartbeat', { sequence: nextSequence(stored) }, secretOf(stored), stored.deviceId);
    break;
  }
  case 'send': {
    const [sender, text] = args;
    if (!sender || !text) throw new Error('usage: npm run device -- send <sender> <text>   e.g. send T-Bank "Пополнение, счет RUB. 1 500 ₽. Иван И."');
    const stored = current();
    await send(
      stored.server,
      'POST',
      '/api/v1/p2p/device/notifications',
      { sequence: nextSequence(stored), sender, text, received_at: new Date().toISOString() },
      secretOf(stored),
      stored.deviceId,
    );
    break;
  }
  default:
    console.log('usage: npm run device -- pair <pairing_uri or code> | heartbeat | send <sender> <text>');
    process.exit(command ? 1 : 0);
}
