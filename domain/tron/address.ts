/**
 * TRON mainnet addresses (TRC-20 deposits and withdrawals), built only from audited libraries:
 * secp256k1 (@noble/curves), keccak-256 and sha-256 (@noble/hashes), Base58Check (@scure/base)
 * and BIP32 (@scure/bip32). No hand-written cryptography.
 *
 *   uncompressed secp256k1 public key (65 bytes, 0x04 ‖ X ‖ Y)
 *   → keccak-256 of X ‖ Y → last 20 bytes → 0x41 ‖ those 20 bytes (21 bytes)
 *   → Base58Check (checksum: first 4 bytes of sha256(sha256(payload))) → 'T' + 33 characters
 *
 * Deposit addresses are derived on BIP44 path m/44'/195'/0'/0/<index> (195 = TRON's coin type)
 * from the account-level extended public key m/44'/195'/0', so the gateway only ever needs public
 * key material: with WALLET_XPUB it never sees a private key at all; with WALLET_HD_SEED the
 * account xpub is computed once and the private nodes are dropped.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';

/** Mainnet address version byte; every mainnet address therefore starts with 'T'. */
export const TRON_MAINNET_PREFIX = 0x41;
/** BIP44 coin type of TRON (SLIP-0044). */
const TRON_COIN_TYPE = 195;
export const TRON_ACCOUNT_PATH = `m/44'/${TRON_COIN_TYPE}'/0'`;

const base58check = createBase58check(sha256);
const BASE58_ALPHABET = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** The 21-byte payload (0x41 ‖ 20-byte account id) → 'T…' address. */
export function encodeTronAddress(payload: Uint8Array): string {
  if (payload.length !== 21 || payload[0] !== TRON_MAINNET_PREFIX) throw new RangeError('a TRON address payload is 0x41 followed by 20 bytes');
  return base58check.encode(payload);
}

/** A secp256k1 public key (compressed or uncompressed) → its mainnet TRON address. */
export function tronAddressFromPublicKey(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false); // 0x04 ‖ X ‖ Y
  const hash = keccak_256(uncompressed.subarray(1));
  const payload = new Uint8Array(21);
  payload[0] = TRON_MAINNET_PREFIX;
  payload.set(hash.subarray(12), 1);
  return encodeTronAddress(payload);
}

/** The address of a private key: the TRON hot wallet's (activities/chain/tron.ts) and test vectors. */
export function tronAddressFromPrivateKey(privateKey: Uint8Array): string {
  return tronAddressFromPublicKey(secp256k1.getPublicKey(privateKey, false));
}

export type TronAddressProblem = 'empty' | 'length' | 'alphabet' | 'checksum' | 'prefix';

const PROBLEM_TEXT: Record<TronAddressProblem, string> = {
  empty: 'address is required',
  length: "address must be 34 characters: 'T' followed by 33 base58 characters",
  alphabet: 'address contains characters outside the base58 alphabet (0, O, I and l are not used)',
  checksum: 'address checksum does not match (mistyped address?)',
  prefix: 'address is not a TRON mainnet address (version byte 0x41)',
};

/**
 * Why a string is not a valid mainnet TRON Base58Check address, or undefined when it is one.
 * Checked in order: length, alphabet, checksum, version byte — so a testnet or foreign-chain
 * address with a valid checksum reports `prefix`.
 */
export function tronAddressProblem(address: string): TronAddressProblem | undefined {
  if (address.length === 0) return 'empty';
  if (!BASE58_ALPHABET.test(address)) return 'alphabet';
  if (address.length !== 34) return 'length';
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return 'checksum';
  }
  if (payload.length !== 21) return 'length';
  if (payload[0] !== TRON_MAINNET_PREFIX) return 'prefix';
  return undefined;
}

export const describeTronAddressProblem = (problem: TronAddressProblem) => PROBLEM_TEXT[problem];
export const isTronAddress = (address: string) => tronAddressProblem(address) === undefined;

/** The hex form used by TRON nodes ('41' ‖ 20 bytes), for adapters that talk to a full node. */
export function tronAddressToHex(address: string): string {
  if (!isTronAddress(address)) throw new RangeError(`not a TRON address: ${address}`);
  return Buffer.from(base58check.decode(address)).toString('hex');
}

/**
 * Derives deposit addresses from the account-level public node m/44'/195'/0'. Built from either
 * an extended public key of that account (preferred in production) or an HD seed (hex).
 */
/**
 * A TRON transaction id in its one canonical form: 64 hex digits, lower case. The
 * same id written with capitals, surrounding spaces or a 0x prefix is the same transaction and
 * must claim the same credit; anything else is not a transaction id (undefined).
 */
export function canonicalTxHash(text: string): string | undefined {
  const hex = text.trim().toLowerCase().replace(/^0x/, '');
  return /^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
}

export class TronAddressDeriver {
  private readonly external: HDKey;

  private constructor(account: HDKey) {
    // Keep only public material: the external chain (…/0) as a neutered node.
    this.external = HDKey.fromExtendedKey(account.publicExtendedKey).deriveChild(0);
  }

  static fromSeedHex(seedHex: string): TronAddressDeriver {
    if (!/^[0-9a-fA-F]{32,128}$/.test(seedHex) || seedHex.length % 2 !== 0) {
      throw new RangeError('WALLET_HD_SEED must be 16 to 64 bytes of hex');
    }
    return new TronAddressDeriver(HDKey.fromMasterSeed(Uint8Array.from(Buffer.from(seedHex, 'hex'))).derive(TRON_ACCOUNT_PATH));
  }

  /** An account-level xpub (depth 3, m/44'/195'/0'). */
  static fromAccountXpub(xpub: string): TronAddressDeriver {
    const node = HDKey.fromExtendedKey(xpub);
    if (node.depth !== 3) throw new RangeError(`WALLET_XPUB must be the account key ${TRON_ACCOUNT_PATH} (depth 3), got depth ${node.depth}`);
    if (node.privateKey) throw new RangeError('WALLET_XPUB must be an extended public key, not a private one');
    return new TronAddressDeriver(node);
  }

  static fromConfig(config: { WALLET_XPUB?: string | undefined; WALLET_HD_SEED: string }): TronAddressDeriver {
    return config.WALLET_XPUB ? TronAddressDeriver.fromAccountXpub(config.WALLET_XPUB) : TronAddressDeriver.fromSeedHex(config.WALLET_HD_SEED);
  }

  /** The deposit address at m/44'/195'/0'/0/<index>; checked against its own checksum before use. */
  address(index: number): string {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError('address index must be in [0, 2^31)');
    const publicKey = this.external.deriveChild(index).publicKey;
    if (!publicKey) throw new Error('derivation produced no public key');
    const address = tronAddressFromPublicKey(publicKey);
    if (!isTronAddress(address)) throw new Error(`derived address ${address} fails its own checksum`);
    return address;
  }
}
