import test from 'ava';
import { pbkdf2Sync } from 'node:crypto';
import fc from 'fast-check';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { DEV_WALLET_HD_SEED, loadConfig } from '../../config';
import {
  encodeTronAddress,
  isTronAddress,
  TRON_ACCOUNT_PATH,
  TronAddressDeriver,
  tronAddressFromPrivateKey,
  tronAddressFromPublicKey,
  tronAddressProblem,
  tronAddressToHex,
} from '../../domain/tron/address';

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const bip39Seed = (mnemonic: string) => pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512').toString('hex');

// Published key → address vectors (values only): Trust Wallet wallet-core TronAddress tests, Trust
// core's TronAddressTests (after the tronprotocol documentation) and TRON's developer docs (account page).
const PRIVATE_KEY_VECTORS: [string, string][] = [
  ['2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54', 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC'],
  ['BE88DF1D0BF30A923CB39C3BB953178BAAF3726E8D3CE81E7C8462E046E0D835', 'THRF3GuPnvvPzKoaT8pJex5XHmo8NNbCb3'],
  ['3d2eebd74075e98a55190b062ddd552c5f43f4b8379a1a1bcc8847a1c379a5e3', 'THyw5GEQrRFjBxjpiQrSkthzkN92BZY2sJ'],
];
const PUBLIC_KEY_VECTORS: [string, string][] = [
  [
    '0404B604296010A55D40000B798EE8454ECCC1F8900E70B1ADF47C9887625D8BAE3866351A6FA0B5370623268410D33D345F63344121455849C9C28F9389ED9731',
    'TDpBe64DqirkKWj6HWuR1pWgmnhw2wDacE',
  ],
  [
    '04aee772c640a56bfd434cc6c41b661467f0fac8ad922cd0d6f37a25a9faab506c9d687d8d4ad0957ca8a07b15db6b39ab2fa56cc81b49f2f92d44e1cdd2f4f266',
    'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT',
  ],
];
// Hex form ('41' ‖ 20 bytes) ↔ Base58Check.
const HEX_VECTORS: [string, string][] = [
  ['411a6ac17c82ad141ebc524a9ffc94965848f35279', 'TCNtTa1rveKkovHR2ebABu4K66U6ocUCZX'],
  ['412eb90f8356345c903d9f85e58d1b8177890adfb6', 'TEEFn7rQqx4Xc3GL1Bx27A155xAj7w5W7a'],
  ['4149a5f0cda413ab723fff9baf956329ecfe5d1a23', 'TGgd7pXdZALo9GyT4pmF2tT6JRf7ETWVcL'],
];
// BIP44 m/44'/195'/0'/0/<i> of the BIP39 test mnemonic "abandon … about" (the development seed), as
// hardware and software wallets derive it (index 0 is the Ledger TRON app's test case).
const HD_VECTORS: { mnemonic: string; addresses: string[] }[] = [
  {
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    addresses: [
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
      'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
      'TRhVWK5XEDkQBDevcdCWW7RW51aRncty4W',
      'TT2X2yyubp7qpAWYYNE5JQWBtoZ7ikQFsY',
    ],
  },
];

test('known private keys give their published addresses', (t) => {
  for (const [key, address] of PRIVATE_KEY_VECTORS) {
    t.is(tronAddressFromPrivateKey(hex(key)), address);
    t.true(isTronAddress(address));
  }
});

test('known public keys (uncompressed, and the same key compressed) give their published addresses', (t) => {
  for (const [key, address] of PUBLIC_KEY_VECTORS) {
    t.is(tronAddressFromPublicKey(hex(key)), address);
    const bytes = hex(key);
    const compressed = new Uint8Array(33);
    compressed[0] = (bytes[64]! & 1) === 1 ? 0x03 : 0x02;
    compressed.set(bytes.subarray(1, 33), 1);
    t.is(tronAddressFromPublicKey(compressed), address);
  }
});

test('hex form and Base58Check agree both ways', (t) => {
  for (const [h, address] of HEX_VECTORS) {
    t.is(encodeTronAddress(hex(h)), address);
    t.is(tronAddressToHex(address), h);
  }
});

test("HD derivation on m/44'/195'/0'/0/i matches published wallet addresses, from the seed and from the account xpub", (t) => {
  for (const { mnemonic, addresses } of HD_VECTORS) {
    const seed = bip39Seed(mnemonic);
    const fromSeed = TronAddressDeriver.fromSeedHex(seed);
    const xpub = HDKey.fromMasterSeed(hex(seed)).derive(TRON_ACCOUNT_PATH).publicExtendedKey;
    const fromXpub = TronAddressDeriver.fromAccountXpub(xpub);
    addresses.forEach((address, i) => {
      t.is(fromSeed.address(i), address, `${mnemonic} #${i}`);
      t.is(fromXpub.address(i), address, `${mnemonic} #${i} (xpub)`);
    });
  }
  t.is(bip39Seed(HD_VECTORS[0]!.mnemonic), DEV_WALLET_HD_SEED, 'the development seed is the public abandon…about test seed');
});

test('every generated address is a valid mainnet address whose checksum verifies; indexes never collide', (t) => {
  const deriver = TronAddressDeriver.fromSeedHex(DEV_WALLET_HD_SEED);
  const check = createBase58check(sha256);
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const address = deriver.address(i);
    t.regex(address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const payload = check.decode(address); // throws on a bad checksum
    t.is(payload.length, 21);
    t.is(payload[0], 0x41);
    t.is(tronAddressProblem(address), undefined);
    seen.add(address);
  }
  t.is(seen.size, 200);
});

test('the xpub must be account level and public; bad seeds are refused', (t) => {
  const root = HDKey.fromMasterSeed(hex(DEV_WALLET_HD_SEED));
  t.throws(() => TronAddressDeriver.fromAccountXpub(root.publicExtendedKey), { message: /depth 3/ });
  t.throws(() => TronAddressDeriver.fromAccountXpub(root.derive(TRON_ACCOUNT_PATH).privateExtendedKey), { message: /public/ });
  t.throws(() => TronAddressDeriver.fromSeedHex('abc'));
  t.throws(() => TronAddressDeriver.fromSeedHex('zz'.repeat(32)));
});

test('invalid addresses are refused, each with its reason', (t) => {
  const good = 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC';
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
  t.is(tronAddressProblem(''), 'empty');
  // wrong length
  t.is(tronAddressProblem(good.slice(0, 33)), 'length');
  t.is(tronAddressProblem(`${good}a`), 'length');
  t.is(tronAddressProblem('T'), 'length');
  // base58 alphabet violations: 0, O, I, l, non-ASCII, spaces, a 0x prefix
  for (const bad of [
    'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDe0',
    'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeO',
    'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeI',
    'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDel',
    'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDé',
    ` ${good}`,
    `${good} `,
    '0x411a6ac17c82ad141ebc524a9ffc94965848f35279',
  ]) {
    t.is(tronAddressProblem(bad), 'alphabet', bad);
  }
  // bad checksum: any single changed character
  t.is(tronAddressProblem(flip(good, 33)), 'checksum');
  t.is(tronAddressProblem(flip(good, 10)), 'checksum');
  t.is(tronAddressProblem(good.toLowerCase()), 'checksum'); // base58 is case-sensitive
  // wrong prefix with a valid checksum: a Bitcoin P2PKH address (version 0x00) and a 0x40 payload
  t.is(tronAddressProblem('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'), 'prefix');
  const check = createBase58check(sha256);
  const other = check.encode(hex('401a6ac17c82ad141ebc524a9ffc94965848f35279'));
  t.is(other.length, 34);
  t.is(tronAddressProblem(other), 'prefix');
  // a TRON testnet-style 0xa0 payload is not even the right length
  t.not(tronAddressProblem(check.encode(hex('a01a6ac17c82ad141ebc524a9ffc94965848f35279'))), undefined);
  // a valid checksum over the wrong payload length
  t.is(tronAddressProblem(check.encode(hex(`41${'11'.repeat(21)}`))), 'length');
});

test('property: any 20-byte account id round-trips; any single-character change is refused', (t) => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      fc.nat({ max: 32 }),
      fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'),
      (id, pos, ch) => {
        const payload = new Uint8Array(21);
        payload[0] = 0x41;
        payload.set(id, 1);
        const address = encodeTronAddress(payload);
        if (!isTronAddress(address) || tronAddressToHex(address) !== Buffer.from(payload).toString('hex')) return false;
        const i = pos + 1;
        if (address[i] === ch) return true;
        const changed = address.slice(0, i) + ch + address.slice(i + 1);
        return !isTronAddress(changed);
      },
    ),
    { numRuns: 300 },
  );
  t.pass();
});

test('production refuses the development seed', (t) => {
  const prod = {
    NODE_ENV: 'production',
    JWT_SECRET: 'a-real-secret-of-enough-length',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    TEMPORAL_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
    CHAIN_ADAPTER: 'trongrid',
    TRON_API_URL: 'https://api.trongrid.io',
  };
  t.throws(() => loadConfig(prod), { message: /WALLET_XPUB/ });
  t.throws(() => loadConfig({ ...prod, WALLET_HD_SEED: DEV_WALLET_HD_SEED.toUpperCase() }), { message: /WALLET_XPUB/ });
  t.notThrows(() => loadConfig({ ...prod, WALLET_HD_SEED: '11'.repeat(32) }));
  const xpub = HDKey.fromMasterSeed(hex('22'.repeat(32))).derive(TRON_ACCOUNT_PATH).publicExtendedKey;
  t.notThrows(() => loadConfig({ ...prod, WALLET_XPUB: xpub }));
  t.throws(() => loadConfig({ ...prod, WALLET_XPUB: 'xpub-garbage' }), { message: /WALLET_XPUB/ });
});

test('chain settings: the simulator is the default and refused in production; trongrid needs TRON_API_URL; the development hot wallet key is refused in production', async (t) => {
  const { DEV_TRON_HOT_WALLET_KEY, tronHotWalletKey } = await import('../../config');
  const dev = loadConfig({ NODE_ENV: 'development' });
  t.is(dev.CHAIN_ADAPTER, 'simulated');
  t.is(dev.TRON_USDT_CONTRACT, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  t.is(dev.TRON_FEE_LIMIT_SUN, 50_000_000n);
  t.is(tronHotWalletKey(dev), DEV_TRON_HOT_WALLET_KEY, 'outside production an unset key is the development key');
  t.throws(() => loadConfig({ CHAIN_ADAPTER: 'trongrid' }), { message: /TRON_API_URL must be set/ });
  t.throws(() => loadConfig({ CHAIN_ADAPTER: 'ethereum' }), { message: /CHAIN_ADAPTER/ });
  t.throws(() => loadConfig({ CHAIN_ADAPTER: 'trongrid', TRON_API_URL: 'x' }), { message: /TRON_API_URL/ });
  t.throws(() => loadConfig({ TRON_HOT_WALLET_KEY: 'ab'.repeat(31) }), { message: /TRON_HOT_WALLET_KEY/ });
  t.throws(() => loadConfig({ TRON_USDT_CONTRACT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T' }), { message: /TRON_USDT_CONTRACT/ });

  const prod = {
    NODE_ENV: 'production',
    JWT_SECRET: 'a-real-secret-of-enough-length',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    TEMPORAL_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
    WALLET_HD_SEED: '11'.repeat(32),
  };
  t.throws(() => loadConfig(prod), { message: /CHAIN_ADAPTER=simulated is for development and tests only/ });
  const real = { ...prod, CHAIN_ADAPTER: 'trongrid', TRON_API_URL: 'https://api.trongrid.io' };
  t.throws(() => loadConfig({ ...real, TRON_HOT_WALLET_KEY: DEV_TRON_HOT_WALLET_KEY }), { message: /TRON_HOT_WALLET_KEY must be set in production/ });
  t.throws(() => loadConfig({ ...real, TRON_HOT_WALLET_KEY: DEV_TRON_HOT_WALLET_KEY.toUpperCase() }), { message: /TRON_HOT_WALLET_KEY/ });
  // The API needs no key; a worker without one refuses when it builds its chain.
  const api = loadConfig(real);
  t.throws(() => tronHotWalletKey(api), { message: /TRON_HOT_WALLET_KEY must be set in production/ });
  const worker = loadConfig({ ...real, TRON_HOT_WALLET_KEY: '33'.repeat(32) });
  t.is(tronHotWalletKey(worker), '33'.repeat(32));
});
