/**
 * TRON transactions for USDT (TRC-20) withdrawals: the bytes a node builds, the check that they
 * say exactly what we asked for, the txid, and the signature. Pure code (no I/O, no clock: the
 * caller passes `now`), built only on audited libraries: secp256k1 (@noble/curves), sha-256
 * (@noble/hashes). The protobuf handled here is the fixed, tiny subset a TriggerSmartContract
 * transaction uses, read and written strictly by hand so that no second parser can see
 * something else in the same bytes (see decodeRawData).
 *
 * What is signed: a TRON transaction is `Transaction { raw raw_data = 1; repeated bytes
 * signature = 2; … }`. The txid is sha256 of the serialized `raw_data` alone, and the signature
 * is secp256k1 over that 32-byte txid (no further hashing), written as 65 bytes r ‖ s ‖ v with
 * the recovery id v ∈ {0, 1} (nodes also accept 27/28). A node broadcasting the transaction
 * re-serializes `raw_data` from its JSON and checks that the signature recovers an address that
 * holds the owner permission of `owner_address` — so what we sign must be exactly the bytes we
 * checked, and what we broadcast must serialize back to them (toBroadcastTransaction).
 *
 *   message raw {                               (core/Tron.proto, Transaction.raw)
 *     bytes ref_block_bytes = 1;   bytes ref_block_hash = 4;   int64 expiration = 8;
 *     repeated Contract contract = 11;   int64 timestamp = 14;   int64 fee_limit = 18;
 *     (also: ref_block_num = 3, auths = 9, data = 10, scripts = 12 — refused here)
 *   }
 *   message Contract { ContractType type = 1; google.protobuf.Any parameter = 2;
 *                      (provider = 3, ContractName = 4, Permission_id = 5 — refused) }
 *   message Any { string type_url = 1; bytes value = 2; }
 *   message TriggerSmartContract {              (core/contract/smart_contract.proto)
 *     bytes owner_address = 1; bytes contract_address = 2; int64 call_value = 3;
 *     bytes data = 4; int64 call_token_value = 5; int64 token_id = 6;
 *   }
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeTronAddress, isTronAddress, TRON_MAINNET_PREFIX, tronAddressFromPrivateKey, tronAddressFromPublicKey, tronAddressToHex } from './address';

/** Tether USD on TRON mainnet (the default of TRON_USDT_CONTRACT). */
export const USDT_MAINNET_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** keccak-256("transfer(address,uint256)")[0..4]. */
const TRANSFER_SELECTOR = 'a9059cbb';
export const TRANSFER_FUNCTION = 'transfer(address,uint256)';
/** Transaction.Contract.ContractType.TriggerSmartContract. */
export const TRIGGER_SMART_CONTRACT = 31;
export const TRIGGER_SMART_CONTRACT_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
/** A node refuses an expiration more than 24 h after the transaction's reference block. */
const MAX_TRANSACTION_LIFETIME_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// Units. USDT on TRON has 6 decimals (1 USDT = 1 000 000 units); the gateway keeps USDT in cents
// (2 decimals, domain/money.ts). So 1 cent = 10^(6−2) = 10 000 on-chain units, exactly:
//   units = cents × 10 000              (always exact)
//   cents = units / 10 000              (exact only when units is a multiple of 10 000)
// A withdrawal is built from cents, so it is always exact. A deposit of, say, 1.234567 USDT is
// not a whole number of cents: usdtUnitsToCents refuses it (undefined) and the caller decides
// what to do with it (splitUsdtUnits gives the whole cents and the remainder).
// ---------------------------------------------------------------------------------------------
export const USDT_DECIMALS = 6;
export const USDT_UNITS_PER_CENT = 10_000n;

export function centsToUsdtUnits(cents: bigint): bigint {
  if (cents < 0n) throw new RangeError('a USDT amount cannot be negative');
  return cents * USDT_UNITS_PER_CENT;
}

/** Whole cents for an on-chain USDT amount, or undefined when it is not a whole number of cents. */
export function usdtUnitsToCents(units: bigint): bigint | undefined {
  if (units < 0n || units % USDT_UNITS_PER_CENT !== 0n) return undefined;
  return units / USDT_UNITS_PER_CENT;
}

/** An on-chain USDT amount as whole cents plus the units below one cent (0 ≤ remainder < 10 000). */
export function splitUsdtUnits(units: bigint): { cents: bigint; remainderUnits: bigint } {
  if (units < 0n) throw new RangeError('a USDT amount cannot be negative');
  return { cents: units / USDT_UNITS_PER_CENT, remainderUnits: units % USDT_UNITS_PER_CENT };
}

// ---------------------------------------------------------------------------------------------
// Hex and addresses
// ---------------------------------------------------------------------------------------------
export const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export function fromHex(hex: string, what = 'hex'): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new TronTransactionMismatch('encoding', `${what} is not an even-length hex string`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** 'T…' address → its 21 bytes (0x41 ‖ account id). */
export function addressBytes(address: string): Uint8Array {
  return Uint8Array.from(Buffer.from(tronAddressToHex(address), 'hex'));
}

/** 21 bytes (0x41 ‖ account id) → 'T…', or undefined when they are not a mainnet address. */
export function addressFromBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length !== 21 || bytes[0] !== TRON_MAINNET_PREFIX) return undefined;
  return encodeTronAddress(bytes);
}

/** A TRON address in the hex form nodes use ('41' ‖ 40 hex) or Base58 → 'T…', or undefined. */
export function normalizeTronAddress(text: string): string | undefined {
  if (isTronAddress(text)) return text;
  if (/^41[0-9a-fA-F]{40}$/.test(text)) return addressFromBytes(Uint8Array.from(Buffer.from(text, 'hex')));
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// ABI: transfer(address to, uint256 amount) = selector ‖ 32-byte word with the 20-byte account id
// left-padded with zeros ‖ 32-byte big-endian amount. 68 bytes.
// ---------------------------------------------------------------------------------------------
const WORD = 32;

function uint256(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 256n) throw new RangeError('uint256 out of range');
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(WORD * 2, '0'), 'hex'));
}

/** The ABI parameters of transfer(to, units), without the selector (what triggersmartcontract's `parameter` takes). */
export function encodeTransferParameters(to: string, units: bigint): Uint8Array {
  const word = new Uint8Array(WORD);
  word.set(addressBytes(to).subarray(1), WORD - 20);
  return concat([word, uint256(units)]);
}

export function encodeTransferCall(to: string, units: bigint): Uint8Array {
  return concat([fromHex(TRANSFER_SELECTOR), encodeTransferParameters(to, units)]);
}

/** transfer(to, units) call data → its recipient and amount, or the reason it is not exactly that. */
export function decodeTransferCall(data: Uint8Array): { to: string; units: bigint } | { problem: 'selector' | 'recipient' | 'amount'; detail: string } {
  if (data.length < 4 || toHex(data.subarray(0, 4)) !== TRANSFER_SELECTOR) {
    return { problem: 'selector', detail: `call data does not start with transfer(address,uint256) (${TRANSFER_SELECTOR})` };
  }
  if (data.length !== 4 + 2 * WORD) return { problem: 'amount', detail: `transfer call data is ${data.length} bytes, not 68` };
  const word = data.subarray(4, 4 + WORD);
  if (word.subarray(0, WORD - 20).some((b) => b !== 0)) return { problem: 'recipient', detail: 'address word is not a left-padded 20-byte account id' };
  const payload = new Uint8Array(21);
  payload[0] = TRON_MAINNET_PREFIX;
  payload.set(word.subarray(WORD - 20), 1);
  const units = BigInt(`0x${toHex(data.subarray(4 + WORD))}`);
  return { to: encodeTronAddress(payload), units };
}

// ---------------------------------------------------------------------------------------------
// Protobuf (the subset above): varints and length-delimited fields only.
// ---------------------------------------------------------------------------------------------
const VARINT = 0;
const LENGTH_DELIMITED = 2;
type WireKind = 'varint' | 'bytes';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function encodeVarint(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new RangeError('varint out of range');
  const out: number[] = [];
  let v = value;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Uint8Array.from(out);
}

function readVarint(bytes: Uint8Array, start: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let at = start; at < bytes.length && at < start + 10; at++) {
    const byte = bytes[at]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) {
      if (value >= 1n << 64n) break;
      return { value, next: at + 1 };
    }
    shift += 7n;
  }
  throw new TronTransactionMismatch('encoding', 'truncated or oversized varint');
}

/** Field number → its value; a field outside `spec`, a wrong wire type or a repeated field is refused. */
function readMessage(bytes: Uint8Array, spec: Record<number, WireKind>, what: string): Map<number, bigint | Uint8Array> {
  const fields = new Map<number, bigint | Uint8Array>();
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    at = tag.next;
    const field = Number(tag.value >> 3n);
    const wire = Number(tag.value & 7n);
    const kind = spec[field];
    if (!kind) throw new TronTransactionMismatch('encoding', `${what} has an unexpected field ${field}`);
    if (fields.has(field)) throw new TronTransactionMismatch('encoding', `${what} repeats field ${field}`);
    if (kind === 'varint') {
      if (wire !== VARINT) throw new TronTransactionMismatch('encoding', `${what} field ${field} has wire type ${wire}`);
      const v = readVarint(bytes, at);
      fields.set(field, v.value);
      at = v.next;
    } else {
      if (wire !== LENGTH_DELIMITED) throw new TronTransactionMismatch('encoding', `${what} field ${field} has wire type ${wire}`);
      const length = readVarint(bytes, at);
      const end = length.next + Number(length.value);
      if (length.value > BigInt(bytes.length) || end > bytes.length) throw new TronTransactionMismatch('encoding', `${what} field ${field} runs past the end`);
      fields.set(field, bytes.subarray(length.next, end));
      at = end;
    }
  }
  return fields;
}

const varintField = (field: number, value: bigint) => (value === 0n ? new Uint8Array(0) : concat([encodeVarint(BigInt(field << 3) | 0n), encodeVarint(value)]));
const bytesField = (field: number, value: Uint8Array) =>
  value.length === 0 ? new Uint8Array(0) : concat([encodeVarint(BigInt((field << 3) | LENGTH_DELIMITED)), encodeVarint(BigInt(value.length)), value]);

interface TriggerSmartContract {
  ownerAddress: Uint8Array;
  contractAddress: Uint8Array;
  data: Uint8Array;
  callValue: bigint;
  callTokenValue: bigint;
  tokenId: bigint;
}

/** Transaction.raw of a single TriggerSmartContract. Times are milliseconds since the epoch; fee_limit is in sun. */
export interface TronRawData {
  refBlockBytes: Uint8Array;
  refBlockHash: Uint8Array;
  expiration: bigint;
  timestamp: bigint;
  feeLimit: bigint;
  contractType: number;
  typeUrl: string;
  trigger: TriggerSmartContract;
}

/** The canonical serialization: fields in number order, defaults (0, empty) omitted — what java-tron writes. */
export function encodeRawData(raw: TronRawData): Uint8Array {
  const t = raw.trigger;
  const trigger = concat([
    bytesField(1, t.ownerAddress),
    bytesField(2, t.contractAddress),
    varintField(3, t.callValue),
    bytesField(4, t.data),
    varintField(5, t.callTokenValue),
    varintField(6, t.tokenId),
  ]);
  const any = concat([bytesField(1, new TextEncoder().encode(raw.typeUrl)), bytesField(2, trigger)]);
  const contract = concat([varintField(1, BigInt(raw.contractType)), bytesField(2, any)]);
  return concat([
    bytesField(1, raw.refBlockBytes),
    bytesField(4, raw.refBlockHash),
    varintField(8, raw.expiration),
    bytesField(11, contract),
    varintField(14, raw.timestamp),
    varintField(18, raw.feeLimit),
  ]);
}

const asBytes = (v: bigint | Uint8Array | undefined) => (v instanceof Uint8Array ? Uint8Array.from(v) : new Uint8Array(0));
const asInt = (v: bigint | Uint8Array | undefined) => (typeof v === 'bigint' ? v : 0n);

/**
 * Transaction.raw bytes → its fields, strictly: only the fields listed at the top, each at most
 * once, one contract, and the bytes must be exactly the canonical encoding of what was read (no
 * non-minimal varints, no explicit defaults, nothing a more lenient parser could read
 * differently). Anything else is a TronTransactionMismatch('encoding').
 */
export function decodeRawData(bytes: Uint8Array): TronRawData {
  const raw = readMessage(bytes, { 1: 'bytes', 4: 'bytes', 8: 'varint', 11: 'bytes', 14: 'varint', 18: 'varint' }, 'raw_data');
  const contractBytes = raw.get(11);
  if (!(contractBytes instanceof Uint8Array)) throw new TronTransactionMismatch('encoding', 'raw_data has no contract');
  const contract = readMessage(contractBytes, { 1: 'varint', 2: 'bytes' }, 'contract');
  const any = readMessage(asBytes(contract.get(2)), { 1: 'bytes', 2: 'bytes' }, 'contract parameter');
  const trigger = readMessage(asBytes(any.get(2)), { 1: 'bytes', 2: 'bytes', 3: 'varint', 4: 'bytes', 5: 'varint', 6: 'varint' }, 'contract value');
  const contractType = asInt(contract.get(1));
  if (contractType > 0xffffn) throw new TronTransactionMismatch('type', `contract type ${contractType}`);
  const decoded: TronRawData = {
    refBlockBytes: asBytes(raw.get(1)),
    refBlockHash: asBytes(raw.get(4)),
    expiration: asInt(raw.get(8)),
    timestamp: asInt(raw.get(14)),
    feeLimit: asInt(raw.get(18)),
    contractType: Number(contractType),
    typeUrl: new TextDecoder('utf-8', { fatal: false }).decode(asBytes(any.get(1))),
    trigger: {
      ownerAddress: asBytes(trigger.get(1)),
      contractAddress: asBytes(trigger.get(2)),
      callValue: asInt(trigger.get(3)),
      data: asBytes(trigger.get(4)),
      callTokenValue: asInt(trigger.get(5)),
      tokenId: asInt(trigger.get(6)),
    },
  };
  if (toHex(encodeRawData(decoded)) !== toHex(bytes)) throw new TronTransactionMismatch('encoding', 'raw_data is not in canonical protobuf form');
  return decoded;
}

/** The txid: hex sha256 of the serialized raw_data. */
export const txidOf = (rawData: Uint8Array) => toHex(sha256(rawData));

// ---------------------------------------------------------------------------------------------
// The check before signing
// ---------------------------------------------------------------------------------------------
export type TransferMismatchReason =
  | 'encoding'
  | 'type'
  | 'owner'
  | 'contract'
  | 'selector'
  | 'recipient'
  | 'amount'
  | 'call_value'
  | 'fee_limit'
  | 'expired'
  | 'expiration'
  | 'txid';

/** The bytes a node built are not exactly the transfer we asked for: never sign them. */
export class TronTransactionMismatch extends Error {
  override readonly name = 'TronTransactionMismatch';
  constructor(
    readonly reason: TransferMismatchReason,
    detail: string,
  ) {
    super(`refused to sign: ${detail}`);
  }
}

export interface ExpectedUsdtTransfer {
  /** The hot wallet (the only owner we sign for). */
  owner: string;
  /** The configured USDT contract. */
  usdtContract: string;
  to: string;
  /** USDT cents (what arrives at `to`). */
  amountCents: bigint;
  /** The configured fee_limit, sun. */
  feeLimit: bigint;
  /** The caller's clock, ms since the epoch. */
  now: number;
  /** The transaction must stay valid at least this long after `now` (default 30 s). */
  minRemainingMs?: number;
}

declare const checkedBrand: unique symbol;
/** A transaction that passed checkUsdtTransfer: the only thing signUsdtTransfer signs. */
export interface CheckedUsdtTransfer {
  readonly [checkedBrand]: true;
  readonly txid: string;
  readonly rawDataHex: string;
  readonly raw: TronRawData;
  readonly to: string;
  readonly units: bigint;
  /** ms since the epoch. */
  readonly expiration: number;
}

/**
 * The check before signing: `rawDataHex` (as a node returned it from triggersmartcontract) must
 * encode exactly transfer(expected.to, expected.amountCents × 10^4) on expected.usdtContract,
 * owned by expected.owner, with our fee_limit, no TRX or TRC-10 attached, still valid for a while
 * and not beyond a node's 24 h limit. `nodeTxid`, when given, must be sha256 of those bytes.
 * The node's JSON `raw_data` is never read: only these bytes are signed and broadcast.
 */
export function checkUsdtTransfer(rawDataHex: string, expected: ExpectedUsdtTransfer, nodeTxid?: string): CheckedUsdtTransfer {
  if (expected.amountCents <= 0n) throw new RangeError('a withdrawal amount must be positive');
  const bytes = fromHex(rawDataHex, 'raw_data_hex');
  const raw = decodeRawData(bytes);
  const t = raw.trigger;
  if (raw.contractType !== TRIGGER_SMART_CONTRACT || raw.typeUrl !== TRIGGER_SMART_CONTRACT_TYPE_URL) {
    throw new TronTransactionMismatch('type', `contract is type ${raw.contractType} (${raw.typeUrl}), not TriggerSmartContract`);
  }
  const owner = addressFromBytes(t.ownerAddress);
  if (owner !== expected.owner) throw new TronTransactionMismatch('owner', `owner is ${owner ?? toHex(t.ownerAddress)}, not the hot wallet ${expected.owner}`);
  const contract = addressFromBytes(t.contractAddress);
  if (contract !== expected.usdtContract) {
    throw new TronTransactionMismatch('contract', `contract is ${contract ?? toHex(t.contractAddress)}, not USDT ${expected.usdtContract}`);
  }
  const call = decodeTransferCall(t.data);
  if ('problem' in call) throw new TronTransactionMismatch(call.problem, call.detail);
  if (call.to !== expected.to) throw new TronTransactionMismatch('recipient', `recipient is ${call.to}, not ${expected.to}`);
  const units = centsToUsdtUnits(expected.amountCents);
  if (call.units !== units) throw new TronTransactionMismatch('amount', `amount is ${call.units} units, not ${units} (${expected.amountCents} cents)`);
  if (t.callValue !== 0n || t.callTokenValue !== 0n || t.tokenId !== 0n) {
    throw new TronTransactionMismatch('call_value', 'the call carries TRX or a TRC-10 token');
  }
  if (raw.feeLimit !== expected.feeLimit) throw new TronTransactionMismatch('fee_limit', `fee_limit is ${raw.feeLimit} sun, not ${expected.feeLimit}`);
  const minRemaining = BigInt(expected.minRemainingMs ?? 30_000);
  const now = BigInt(expected.now);
  if (raw.expiration <= now + minRemaining)
    throw new TronTransactionMismatch('expired', `transaction expires at ${raw.expiration}, too soon after ${expected.now}`);
  if (raw.expiration > now + BigInt(MAX_TRANSACTION_LIFETIME_MS))
    throw new TronTransactionMismatch('expiration', `expiration ${raw.expiration} is more than 24 h away`);
  if (raw.refBlockBytes.length !== 2 || raw.refBlockHash.length !== 8)
    throw new TronTransactionMismatch('encoding', 'reference block fields have the wrong length');
  const txid = txidOf(bytes);
  if (nodeTxid !== undefined && nodeTxid.toLowerCase() !== txid)
    throw new TronTransactionMismatch('txid', `node's txID ${nodeTxid} is not sha256 of raw_data (${txid})`);
  return { txid, rawDataHex: toHex(bytes), raw, to: call.to, units, expiration: Number(raw.expiration) } as CheckedUsdtTransfer;
}

// ---------------------------------------------------------------------------------------------
// Signatures
// ---------------------------------------------------------------------------------------------
function txidBytes(txid: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(txid)) throw new RangeError('a txid is 64 lower-case hex characters');
  return Uint8Array.from(Buffer.from(txid, 'hex'));
}

/** The hot wallet's private key (32 bytes hex) → its key bytes, refused when not a valid secp256k1 key. */
export function parsePrivateKey(hex: string): Uint8Array {
  const key = /^[0-9a-fA-F]{64}$/.test(hex) ? Uint8Array.from(Buffer.from(hex, 'hex')) : undefined;
  if (!key || !secp256k1.utils.isValidSecretKey(key)) throw new RangeError('a TRON private key is 32 bytes of hex, in [1, n)');
  return key;
}

/**
 * secp256k1 over the txid itself (RFC 6979 deterministic k, low S), as TRON's 65 bytes
 * r ‖ s ‖ v (v = recovery id 0 or 1), hex. Deterministic: the same txid and key always give the
 * same signature, so a rebroadcast after a crash is byte-for-byte the first one.
 */
export function signTxid(txid: string, privateKey: Uint8Array): string {
  const recovered = secp256k1.sign(txidBytes(txid), privateKey, { prehash: false, format: 'recovered' }); // v ‖ r ‖ s
  return toHex(concat([recovered.subarray(1), recovered.subarray(0, 1)]));
}

/** Signs a checked transfer, after making sure the key is the owner's. */
export function signUsdtTransfer(checked: CheckedUsdtTransfer, privateKey: Uint8Array): string {
  const owner = addressFromBytes(checked.raw.trigger.ownerAddress);
  if (tronAddressFromPrivateKey(privateKey) !== owner) throw new TronTransactionMismatch('owner', `the signing key is not the key of ${owner}`);
  return signTxid(checked.txid, privateKey);
}

/** The address whose key made `signature` (65 bytes r ‖ s ‖ v, v ∈ {0, 1, 27, 28}) over `txid`, or undefined. */
export function recoverTronSigner(txid: string, signature: string): string | undefined {
  if (!/^[0-9a-fA-F]{130}$/.test(signature)) return undefined;
  const bytes = Uint8Array.from(Buffer.from(signature, 'hex'));
  const v = bytes[64]! >= 27 ? bytes[64]! - 27 : bytes[64]!;
  if (v !== 0 && v !== 1) return undefined;
  try {
    const publicKey = secp256k1.recoverPublicKey(concat([Uint8Array.of(v), bytes.subarray(0, 64)]), txidBytes(txid.toLowerCase()), { prehash: false });
    return tronAddressFromPublicKey(publicKey);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// What /wallet/broadcasttransaction takes: the JSON form of the same raw_data, built from the
// checked bytes (never from the node's JSON), with visible=false (addresses in hex). java-tron
// re-serializes this JSON; because the bytes are canonical, it gets the same bytes back.
// ---------------------------------------------------------------------------------------------
export interface BroadcastTransaction {
  visible: false;
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature: string[];
}

function safeNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} is beyond 2^53`);
  return Number(value);
}

/** raw_data as the node's JSON (visible=false): what broadcasttransaction re-serializes. */
export function rawDataToJson(raw: TronRawData): Record<string, unknown> {
  const t = raw.trigger;
  const value: Record<string, unknown> = {
    data: toHex(t.data),
    owner_address: toHex(t.ownerAddress),
    contract_address: toHex(t.contractAddress),
  };
  if (t.callValue !== 0n) value.call_value = safeNumber(t.callValue, 'call_value');
  if (t.callTokenValue !== 0n) value.call_token_value = safeNumber(t.callTokenValue, 'call_token_value');
  if (t.tokenId !== 0n) value.token_id = safeNumber(t.tokenId, 'token_id');
  const json: Record<string, unknown> = {
    contract: [
      { parameter: { value, type_url: raw.typeUrl }, type: raw.contractType === TRIGGER_SMART_CONTRACT ? 'TriggerSmartContract' : String(raw.contractType) },
    ],
    ref_block_bytes: toHex(raw.refBlockBytes),
    ref_block_hash: toHex(raw.refBlockHash),
    expiration: safeNumber(raw.expiration, 'expiration'),
  };
  if (raw.feeLimit !== 0n) json.fee_limit = safeNumber(raw.feeLimit, 'fee_limit');
  if (raw.timestamp !== 0n) json.timestamp = safeNumber(raw.timestamp, 'timestamp');
  return json;
}

export function toBroadcastTransaction(checked: CheckedUsdtTransfer, signature: string): BroadcastTransaction {
  return { visible: false, txID: checked.txid, raw_data: rawDataToJson(checked.raw), raw_data_hex: checked.rawDataHex, signature: [signature] };
}
