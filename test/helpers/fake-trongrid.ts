/**
 * A fake TronGrid: a real local HTTP server speaking the endpoints activities/chain/trongrid.ts
 * uses, with the documented JSON shapes (java-tron HTTP API, TronGrid v1), over an in-memory
 * chain: accounts with TRX and TRC-20 balances, blocks that advance (by hand with mine(), or on a
 * timer), transactions in a pool until mined, TRC-20 transfers unconfirmed until `confirmations`
 * blocks are on top of them, receipts. Broadcasts are verified like a node does (the JSON
 * raw_data re-serialized, the signature must recover owner_address) and deduplicated by txid.
 *
 * The solidified node's view (/walletsolidity/…) answers only for blocks with `confirmations`
 * blocks on top (java-tron's solidity HTTP interface); it can be stalled (stallSolidity: it stops
 * at the block it has, as a lagging solidity node does).
 *
 * Failure modes, switchable per test: rateLimit (429 bursts, Retry-After), serverError (5xx),
 * slow answers, malformed answers, drop() of an unconfirmed transfer, failNextReceipt
 * (OUT_OF_ENERGY / REVERT), swallowNextBroadcast (accepted, never mined), tamperNextBuild (a
 * triggersmartcontract answer whose bytes say something else than asked, behind an honest JSON),
 * and a full node that lies (a lagging backend, or a bad one): headAhead (its head's time far
 * ahead of the real one), hide (`{}` for a transaction that is mined), reportFailed (a failed
 * receipt for a transaction that succeeded); the solidified view tells the truth.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  addressBytes,
  addressFromBytes,
  decodeTransferCall,
  encodeRawData,
  encodeTransferCall,
  normalizeTronAddress,
  rawDataToJson,
  recoverTronSigner,
  signTxid,
  toHex,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_SMART_CONTRACT_TYPE_URL,
  txidOf,
  USDT_MAINNET_CONTRACT,
  type TronRawData,
} from '../../domain/tron/transaction';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import type { Json } from './api';

export type Tamper = 'recipient' | 'amount' | 'contract' | 'selector' | 'owner' | 'fee_limit' | 'call_value' | 'expired' | 'extra_field';
export type ReceiptResult = 'SUCCESS' | 'OUT_OF_ENERGY' | 'REVERT';

export interface Token {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

interface Account {
  trxSun: bigint;
  tokens: Map<string, bigint>;
  createTime: number;
}

interface Block {
  number: number;
  id: string;
  timestamp: number;
  txids: string[];
}

interface ChainTx {
  txid: string;
  raw: TronRawData;
  rawDataHex: string;
  signature: string[];
  /** A transfer sent by the test (someone paying us), not broadcast through the API. */
  injected: boolean;
  block?: number;
  receipt?: ReceiptResult;
  feeSun: bigint;
  energy: bigint;
  forcedReceipt?: ReceiptResult;
}

interface TransferEvent {
  txid: string;
  token: string;
  from: string;
  to: string;
  value: bigint;
  block: number;
  timestamp: number;
  index: number;
}

interface Request {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Fault =
  | { kind: 'status'; status: number; body: string; headers: Record<string, string>; path?: string; remaining: number }
  | { kind: 'slow'; ms: number; path?: string; remaining: number }
  | { kind: 'hold'; path?: string; remaining: number };

const hexToBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const utf8Hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
/** A deterministic valid address for a name (tests: other people's wallets, a fake token). */
export const addressFor = (name: string) => tronAddressFromPrivateKey(sha256(new TextEncoder().encode(`fake-trongrid:${name}`)));

export const FAKE_USDT: Token = { address: addressFor('counterfeit-usdt'), symbol: 'USDT', name: 'Tether USD', decimals: 6 };
const USDT: Token = { address: USDT_MAINNET_CONTRACT, symbol: 'USDT', name: 'Tether USD', decimals: 6 };

export interface FakeTronGridOptions {
  /** Blocks on top of a transaction's block before it counts as confirmed (solidified). Default 2. */
  confirmations?: number;
  /** Mine a block every so often; by hand (mine()) when omitted. */
  blockIntervalMs?: number;
  /** Energy cost of a TRC-20 transfer, in sun burnt from the owner's TRX. Default 13 TRX. */
  transferFeeSun?: bigint;
  tokens?: Token[];
  /** How long a transaction the node builds stays valid, from its head. Default 60 s, as TronGrid's. */
  lifetimeMs?: number;
}

export async function startFakeTronGrid(options: FakeTronGridOptions = {}) {
  const confirmations = options.confirmations ?? 2;
  const lifetimeMs = options.lifetimeMs ?? 60_000;
  const transferFeeSun = options.transferFeeSun ?? 13_000_000n;
  const tokens = new Map<string, Token>([USDT, FAKE_USDT, ...(options.tokens ?? [])].map((t) => [t.address, t]));
  const accounts = new Map<string, Account>();
  const blocks: Block[] = [];
  const pool: string[] = [];
  const txs = new Map<string, ChainTx>();
  const events: TransferEvent[] = [];
  const broadcasts = new Map<string, number>();
  const requests: Request[] = [];
  const faults: Fault[] = [];
  const seed = toHex(randomBytes(8));
  let tamperNext: Tamper | undefined;
  let forcedReceipt: ReceiptResult | undefined;
  let swallowNext = false;
  /** The full node's lies (its /wallet/ answers only; the solidified view is not affected). */
  let headAheadMs = 0;
  const hidden = new Set<string>();
  const reportedFailed = new Map<string, ReceiptResult>();
  /** The solidified head stays at this block while set (a lagging solidity node). */
  let solidStalledAt: number | undefined;

  const account = (address: string) => {
    let a = accounts.get(address);
    if (!a) {
      a = { trxSun: 0n, tokens: new Map(), createTime: Date.now() };
      accounts.set(address, a);
    }
    return a;
  };
  const head = () => blocks[blocks.length - 1]!;
  const isConfirmed = (blockNumber: number) => head().number - blockNumber >= confirmations;
  /** The newest block the solidity node has: `confirmations` below the head, or where it stalled. */
  const solidHead = () => Math.min(head().number - confirmations, solidStalledAt ?? Number.MAX_SAFE_INTEGER);

  function newBlock(): Block {
    const prev = blocks[blocks.length - 1];
    const number = prev ? prev.number + 1 : 1;
    const timestamp = Math.max(Date.now(), (prev?.timestamp ?? 0) + 1);
    const id = number.toString(16).padStart(16, '0') + toHex(sha256(new TextEncoder().encode(`${seed}:${number}`))).slice(16);
    const block = { number, id, timestamp, txids: [] as string[] };
    blocks.push(block);
    return block;
  }
  newBlock();

  /** Runs a mined transaction against the balances: its receipt and, on success, its Transfer event. */
  function execute(tx: ChainTx, block: Block) {
    const t = tx.raw.trigger;
    const owner = addressFromBytes(t.ownerAddress)!;
    const token = addressFromBytes(t.contractAddress)!;
    const call = decodeTransferCall(t.data);
    const from = account(owner);
    let receipt: ReceiptResult = tx.forcedReceipt ?? 'SUCCESS';
    if (tx.injected) {
      tx.feeSun = 0n;
    } else if (receipt === 'OUT_OF_ENERGY' || transferFeeSun > tx.raw.feeLimit || transferFeeSun > from.trxSun) {
      receipt = 'OUT_OF_ENERGY';
      tx.feeSun = [from.trxSun, tx.raw.feeLimit, transferFeeSun].reduce((a, b) => (a < b ? a : b));
    } else {
      tx.feeSun = transferFeeSun;
    }
    from.trxSun -= tx.feeSun;
    tx.energy = receipt === 'OUT_OF_ENERGY' ? tx.feeSun / 100n : transferFeeSun / 100n;
    if (receipt === 'SUCCESS') {
      const balance = from.tokens.get(token) ?? 0n;
      if ('problem' in call || (!tx.injected && balance < call.units)) receipt = 'REVERT';
      else {
        from.tokens.set(token, balance >= call.units ? balance - call.units : 0n); // an injected payer outside the test mints what it lacks
        const to = account(call.to);
        to.tokens.set(token, (to.tokens.get(token) ?? 0n) + call.units);
        events.push({
          txid: tx.txid,
          token,
          from: owner,
          to: call.to,
          value: call.units,
          block: block.number,
          timestamp: block.timestamp,
          index: events.length,
        });
      }
    }
    tx.receipt = receipt;
    tx.block = block.number;
  }

  /**
   * A real node dates a new transaction's expiry from its newest block, which on a live chain is at
   * most a block interval (3 s) old. Here blocks come only when a test mines, so the head can be
   * minutes old on a loaded machine: the fake dates from the head as a live chain would have it.
   */
  function liveHeadTime(h: { timestamp: number }): number {
    return Math.max(h.timestamp, Date.now() - 3_000);
  }

  /** Mines `count` blocks; the first takes every pooled transaction that has not expired. */
  function mine(count = 1) {
    for (let i = 0; i < count; i++) {
      const block = newBlock();
      for (const txid of pool.splice(0)) {
        const tx = txs.get(txid)!;
        if (tx.raw.expiration <= BigInt(block.timestamp)) {
          txs.delete(txid); // expired in the pool: never on chain
          continue;
        }
        block.txids.push(txid);
        execute(tx, block);
      }
    }
    return head().number;
  }

  /** Signs and pools a transfer from `fromKey` (someone paying one of our addresses), as a wallet would. */
  function injectTransfer(input: { to: string; units: bigint; token?: Token | string; fromKey?: Uint8Array; receipt?: ReceiptResult }) {
    const key = input.fromKey ?? secp256k1.utils.randomSecretKey();
    const token = typeof input.token === 'string' ? input.token : (input.token ?? USDT).address;
    const h = head();
    const raw: TronRawData = {
      refBlockBytes: hexToBytes(h.number.toString(16).padStart(16, '0').slice(12)),
      refBlockHash: hexToBytes(h.id.slice(16, 32)),
      expiration: BigInt(liveHeadTime(h) + lifetimeMs),
      timestamp: BigInt(Date.now()),
      feeLimit: 30_000_000n,
      contractType: TRIGGER_SMART_CONTRACT,
      typeUrl: TRIGGER_SMART_CONTRACT_TYPE_URL,
      trigger: {
        ownerAddress: addressBytes(tronAddressFromPrivateKey(key)),
        contractAddress: addressBytes(token),
        data: encodeTransferCall(input.to, input.units),
        callValue: 0n,
        callTokenValue: 0n,
        tokenId: 0n,
      },
    };
    const bytes = encodeRawData(raw);
    const txid = txidOf(bytes);
    txs.set(txid, {
      txid,
      raw,
      rawDataHex: toHex(bytes),
      signature: [signTxid(txid, key)],
      injected: true,
      feeSun: 0n,
      energy: 0n,
      forcedReceipt: input.receipt,
    });
    pool.push(txid);
    return txid;
  }

  /** Takes an unconfirmed transaction off the chain (a fork, a dropped pool entry): it was never there. */
  function drop(txid: string) {
    const tx = txs.get(txid);
    if (!tx) throw new Error(`unknown transaction ${txid}`);
    if (tx.block !== undefined && isConfirmed(tx.block)) throw new Error('a confirmed transaction cannot be dropped');
    const at = pool.indexOf(txid);
    if (at >= 0) pool.splice(at, 1);
    if (tx.block !== undefined) {
      const block = blocks.find((b) => b.number === tx.block)!;
      block.txids = block.txids.filter((id) => id !== txid);
      for (let i = events.length - 1; i >= 0; i--) {
        const e = events[i]!;
        if (e.txid !== txid) continue;
        const to = account(e.to);
        to.tokens.set(e.token, (to.tokens.get(e.token) ?? 0n) - e.value);
        const from = account(e.from);
        from.tokens.set(e.token, (from.tokens.get(e.token) ?? 0n) + e.value);
        events.splice(i, 1);
      }
      account(addressFromBytes(tx.raw.trigger.ownerAddress)!).trxSun += tx.feeSun;
    }
    txs.delete(txid);
  }

  // -------------------------------------------------------------------------------------------
  // Building (triggersmartcontract) and broadcasting
  // -------------------------------------------------------------------------------------------
  function tamper(raw: TronRawData, how: Tamper): TronRawData {
    const t = { ...raw.trigger };
    const out = { ...raw, trigger: t };
    const call = decodeTransferCall(t.data);
    const units = 'problem' in call ? 1n : call.units;
    switch (how) {
      case 'recipient':
        t.data = encodeTransferCall(addressFor('attacker'), units);
        break;
      case 'amount':
        t.data = encodeTransferCall('problem' in call ? addressFor('attacker') : call.to, units * 10n);
        break;
      case 'contract':
        t.contractAddress = addressBytes(FAKE_USDT.address);
        break;
      case 'selector':
        t.data = Uint8Array.from([...keccak_256(new TextEncoder().encode('approve(address,uint256)')).subarray(0, 4), ...t.data.subarray(4)]);
        break;
      case 'owner':
        t.ownerAddress = addressBytes(addressFor('someone-else'));
        break;
      case 'fee_limit':
        out.feeLimit = raw.feeLimit * 100n;
        break;
      case 'call_value':
        t.callValue = 1_000_000n;
        break;
      case 'expired':
        out.expiration = BigInt(Date.now() - 1000);
        break;
      case 'extra_field':
        break;
    }
    return out;
  }

  function trigger(body: Record<string, unknown>) {
    const owner = normalizeTronAddress(String(body.owner_address ?? ''));
    const contract = normalizeTronAddress(String(body.contract_address ?? ''));
    const fail = (code: string, message: string) => ({ result: { result: false, code, message: utf8Hex(message) } });
    if (!owner || !contract) return fail('OTHER_ERROR', "class java.security.InvalidParameterException : owner_address isn't set.");
    if (!tokens.has(contract)) return fail('CONTRACT_VALIDATE_ERROR', 'No contract or not a valid smart contract');
    if (!accounts.has(owner)) return fail('CONTRACT_VALIDATE_ERROR', `account [${owner}] does not exist`);
    const selector = keccak_256(new TextEncoder().encode(String(body.function_selector ?? ''))).subarray(0, 4);
    const data = body.data !== undefined ? hexToBytes(String(body.data)) : Uint8Array.from([...selector, ...hexToBytes(String(body.parameter ?? ''))]);
    const h = head();
    const raw: TronRawData = {
      refBlockBytes: hexToBytes(h.number.toString(16).padStart(16, '0').slice(12)),
      refBlockHash: hexToBytes(h.id.slice(16, 32)),
      expiration: BigInt(liveHeadTime(h) + lifetimeMs),
      timestamp: BigInt(Date.now()),
      feeLimit: BigInt(Number(body.fee_limit ?? 0)),
      contractType: TRIGGER_SMART_CONTRACT,
      typeUrl: TRIGGER_SMART_CONTRACT_TYPE_URL,
      trigger: {
        ownerAddress: addressBytes(owner),
        contractAddress: addressBytes(contract),
        data,
        callValue: BigInt(Number(body.call_value ?? 0)),
        callTokenValue: 0n,
        tokenId: 0n,
      },
    };
    const how = tamperNext;
    tamperNext = undefined;
    const built = how ? tamper(raw, how) : raw;
    let bytes = encodeRawData(built);
    if (how === 'extra_field') bytes = Uint8Array.from([...bytes, 0x52, 0x02, 0x68, 0x69]); // raw.data (field 10) = "hi"
    // The nasty node: the JSON says what was asked, the bytes (what gets signed) say something else.
    return { result: { result: true }, transaction: { visible: false, txID: txidOf(bytes), raw_data: rawDataToJson(raw), raw_data_hex: toHex(bytes) } };
  }

  /** The node's own JsonFormat.merge of raw_data, for the one contract type the wallet sends. */
  function rawFromJson(json: unknown): TronRawData {
    const r = json as Record<string, Json>;
    const c = r.contract?.[0];
    const v = c?.parameter?.value;
    const hexField = (x: unknown) => {
      if (typeof x !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(x)) throw new Error('bad hex');
      return hexToBytes(x);
    };
    const intField = (x: unknown) => {
      if (x === undefined) return 0n;
      if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) throw new Error('bad int64');
      return BigInt(x);
    };
    if (!Array.isArray(r.contract) || r.contract.length !== 1 || c.type !== 'TriggerSmartContract' || !v) throw new Error('bad contract');
    const known = new Set(['contract', 'ref_block_bytes', 'ref_block_hash', 'expiration', 'timestamp', 'fee_limit']);
    if (Object.keys(r).some((k) => !known.has(k))) throw new Error('unsupported raw_data field');
    return {
      refBlockBytes: hexField(r.ref_block_bytes),
      refBlockHash: hexField(r.ref_block_hash),
      expiration: intField(r.expiration),
      timestamp: intField(r.timestamp),
      feeLimit: intField(r.fee_limit),
      contractType: TRIGGER_SMART_CONTRACT,
      typeUrl: String(c.parameter.type_url ?? TRIGGER_SMART_CONTRACT_TYPE_URL),
      trigger: {
        ownerAddress: hexField(v.owner_address),
        contractAddress: hexField(v.contract_address),
        data: hexField(v.data ?? ''),
        callValue: intField(v.call_value),
        callTokenValue: intField(v.call_token_value),
        tokenId: intField(v.token_id),
      },
    };
  }

  function broadcast(body: Record<string, unknown>) {
    let raw: TronRawData;
    try {
      raw = rawFromJson(body.raw_data);
    } catch {
      return { Error: 'class java.lang.NullPointerException : null' };
    }
    const bytes = encodeRawData(raw);
    const txid = txidOf(bytes);
    broadcasts.set(txid, (broadcasts.get(txid) ?? 0) + 1);
    const refuse = (code: string, message: string) => ({ result: false, code, message: utf8Hex(message), txid });
    const signatures = Array.isArray(body.signature) ? body.signature.map(String) : [];
    const owner = addressFromBytes(raw.trigger.ownerAddress);
    if (signatures.length !== 1 || !owner || recoverTronSigner(txid, signatures[0]!) !== owner) return refuse('SIGERROR', 'validate signature error');
    if (txs.has(txid)) return refuse('DUP_TRANSACTION_ERROR', 'dup transaction');
    if (raw.expiration <= BigInt(Date.now())) return refuse('TRANSACTION_EXPIRATION_ERROR', 'transaction expired');
    const ref = blocks.find(
      (b) => b.id.slice(16, 32) === toHex(raw.refBlockHash) && b.number.toString(16).padStart(16, '0').slice(12) === toHex(raw.refBlockBytes),
    );
    if (!ref) return refuse('TAPOS_ERROR', 'Tapos check error');
    if (!accounts.has(owner)) return refuse('CONTRACT_VALIDATE_ERROR', `Validate TriggerSmartContract error, no OwnerAccount.`);
    if (!tokens.has(addressFromBytes(raw.trigger.contractAddress) ?? '')) return refuse('CONTRACT_VALIDATE_ERROR', 'No contract or not a valid smart contract');
    if (swallowNext) {
      swallowNext = false;
      return { result: true, code: 'SUCCESS', txid };
    }
    txs.set(txid, { txid, raw, rawDataHex: toHex(bytes), signature: signatures, injected: false, feeSun: 0n, energy: 0n, forcedReceipt });
    forcedReceipt = undefined;
    pool.push(txid);
    return { result: true, code: 'SUCCESS', txid };
  }

  // -------------------------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------------------------
  const onChain = (txid: string) => {
    const tx = txs.get(txid);
    return tx && tx.block !== undefined ? tx : undefined;
  };
  /** The full node's view (`solid`: the solidity node's, only solidified blocks): the transaction, unless hidden. */
  const visibleTx = (txid: string, solid: boolean) => {
    const tx = onChain(txid);
    if (!tx) return undefined;
    if (solid) return tx.block! <= solidHead() ? tx : undefined;
    return hidden.has(txid) ? undefined : tx;
  };

  function transactionInfo(txid: string, solid = false) {
    const tx = visibleTx(txid, solid);
    if (!tx) return {};
    const block = blocks.find((b) => b.number === tx.block)!;
    const receipt = (!solid && reportedFailed.get(txid)) || tx.receipt;
    const info: Record<string, unknown> = {
      id: txid,
      fee: Number(tx.feeSun),
      blockNumber: block.number,
      blockTimeStamp: block.timestamp,
      contractResult: [receipt === 'SUCCESS' ? '0000000000000000000000000000000000000000000000000000000000000001' : ''],
      contract_address: toHex(tx.raw.trigger.contractAddress),
      receipt: { energy_fee: Number(tx.feeSun), energy_usage_total: Number(tx.energy), net_usage: 345, result: receipt },
    };
    if (receipt !== 'SUCCESS') {
      info.result = 'FAILED';
      if (receipt === 'REVERT') info.resMessage = utf8Hex('REVERT opcode executed');
    } else {
      const call = decodeTransferCall(tx.raw.trigger.data);
      if (!('problem' in call)) {
        const topic = (address: string) => toHex(addressBytes(address).subarray(1)).padStart(64, '0');
        info.log = [
          {
            address: toHex(tx.raw.trigger.contractAddress.subarray(1)),
            topics: ['ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', topic(addressFromBytes(tx.raw.trigger.ownerAddress)!), topic(call.to)],
            data: call.units.toString(16).padStart(64, '0'),
          },
        ];
      }
    }
    return info;
  }

  function transactionById(txid: string, solid = false) {
    const tx = visibleTx(txid, solid);
    if (!tx) return {};
    return { ret: [{ contractRet: tx.receipt }], signature: tx.signature, txID: txid, raw_data: rawDataToJson(tx.raw), raw_data_hex: tx.rawDataHex };
  }

  function accountAnswer(text: string) {
    const address = normalizeTronAddress(text);
    const a = address ? accounts.get(address) : undefined;
    const meta = { at: Date.now(), page_size: a ? 1 : 0 };
    if (!address || !a) return { data: [], success: true, meta };
    const row: Record<string, unknown> = { address: toHex(addressBytes(address)), create_time: a.createTime, account_resource: {} };
    if (a.trxSun !== 0n) row.balance = Number(a.trxSun);
    const trc20 = [...a.tokens].filter(([, v]) => v !== 0n).map(([token, v]) => ({ [token]: v.toString() }));
    if (trc20.length > 0) row.trc20 = trc20;
    return { data: [row], success: true, meta };
  }

  const fingerprintOf = (e: TransferEvent) => Buffer.from(JSON.stringify([e.timestamp, e.index])).toString('base64url');
  /** Newest first (TronGrid's default order, block_timestamp desc). */
  const newestFirst = (a: TransferEvent, b: TransferEvent) => b.timestamp - a.timestamp || b.index - a.index;

  function trc20Answer(text: string, query: URLSearchParams): { status: number; body: unknown } {
    const address = normalizeTronAddress(text);
    if (!address) return { status: 400, body: { success: false, error: 'Invalid address', statusCode: 400 } };
    const contract = query.get('contract_address');
    const token = contract ? normalizeTronAddress(contract) : undefined;
    const flag = (name: string) => query.get(name) === 'true';
    if (flag('only_confirmed') && flag('only_unconfirmed'))
      return { status: 400, body: { success: false, error: 'only_confirmed and only_unconfirmed cannot be combined', statusCode: 400 } };
    const limit = Math.min(200, Math.max(1, Number(query.get('limit') ?? 20) || 20));
    const min = Number(query.get('min_timestamp') ?? query.get('min_block_timestamp') ?? 0);
    const max = Number(query.get('max_timestamp') ?? query.get('max_block_timestamp') ?? Number.MAX_SAFE_INTEGER);
    let rows = events
      .filter((e) => (flag('only_to') ? e.to === address : flag('only_from') ? e.from === address : e.to === address || e.from === address))
      .filter((e) => !token || e.token === token)
      .filter((e) => e.timestamp >= min && e.timestamp <= max)
      .filter((e) => (flag('only_confirmed') ? isConfirmed(e.block) : flag('only_unconfirmed') ? !isConfirmed(e.block) : true))
      .sort(newestFirst);
    const fingerprint = query.get('fingerprint');
    if (fingerprint) {
      let after: [number, number];
      try {
        after = JSON.parse(Buffer.from(fingerprint, 'base64url').toString('utf8')) as [number, number];
      } catch {
        return { status: 400, body: { success: false, error: 'invalid fingerprint', statusCode: 400 } };
      }
      rows = rows.filter((e) => e.timestamp < after[0] || (e.timestamp === after[0] && e.index < after[1]));
    }
    const page = rows.slice(0, limit);
    const meta: Record<string, unknown> = { at: Date.now(), page_size: page.length };
    if (rows.length > limit) {
      meta.fingerprint = fingerprintOf(page[page.length - 1]!);
      const next = new URLSearchParams(query);
      next.set('fingerprint', meta.fingerprint as string);
      meta.links = { next: `http://fake-trongrid/v1/accounts/${address}/transactions/trc20?${next}` };
    }
    const data = page.map((e) => {
      const info = tokens.get(e.token)!;
      return {
        transaction_id: e.txid,
        token_info: { symbol: info.symbol, address: info.address, decimals: info.decimals, name: info.name },
        block_timestamp: e.timestamp,
        from: e.from,
        to: e.to,
        type: 'Transfer',
        value: e.value.toString(),
      };
    });
    return { status: 200, body: { data, success: true, meta } };
  }

  function nowBlock() {
    const h = head();
    const prev = blocks[blocks.length - 2];
    return {
      blockID: h.id,
      block_header: {
        raw_data: {
          number: h.number,
          txTrieRoot: toHex(sha256(new TextEncoder().encode(h.txids.join(',')))),
          witness_address: toHex(addressBytes(addressFor('witness'))),
          parentHash: prev?.id ?? '0'.repeat(64),
          version: 32,
          timestamp: h.timestamp + headAheadMs,
        },
        witness_signature: '00'.repeat(65),
      },
    };
  }

  // -------------------------------------------------------------------------------------------
  // HTTP
  // -------------------------------------------------------------------------------------------
  function route(method: string, url: URL, body: string): { status: number; body: unknown } {
    const ok = (b: unknown) => ({ status: 200, body: b });
    let json: Record<string, unknown> = {};
    if (method === 'POST' && body.trim()) {
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return ok({ Error: 'class org.tron.json.JSONException : malformed JSON' });
      }
    }
    const value = String(json.value ?? '').toLowerCase();
    const account = /^\/v1\/accounts\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && account) return ok(accountAnswer(account[1]!));
    const trc20 = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20$/.exec(url.pathname);
    if (method === 'GET' && trc20) return trc20Answer(trc20[1]!, url.searchParams);
    if (method !== 'POST') return { status: 405, body: { Error: 'method not allowed' } };
    switch (url.pathname) {
      case '/wallet/getnowblock':
        return ok(nowBlock());
      case '/wallet/triggersmartcontract':
        return ok(trigger(json));
      case '/wallet/broadcasttransaction':
        return ok(broadcast(json));
      case '/wallet/gettransactioninfobyid':
        return ok(transactionInfo(value));
      case '/wallet/gettransactionbyid':
        return ok(transactionById(value));
      case '/walletsolidity/gettransactioninfobyid':
        return ok(transactionInfo(value, true));
      case '/walletsolidity/gettransactionbyid':
        return ok(transactionById(value, true));
      default:
        return { status: 404, body: { Error: 'this API is unavailable due to config' } };
    }
  }

  async function answer(res: ServerResponse, method: string, url: URL, body: string) {
    const fault = faults.find((f) => f.remaining > 0 && (!f.path || url.pathname.startsWith(f.path)));
    if (fault) fault.remaining--;
    if (fault?.kind === 'slow') await sleep(fault.ms);
    // Held: never answered and never acted on, however long the caller waits; the request ends with its connection.
    if (fault?.kind === 'hold') return;
    if (res.destroyed) return;
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(fault.body);
      return;
    }
    const out = route(method, url, body);
    res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
  }

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake-trongrid');
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body });
      void answer(res, req.method ?? 'GET', url, body).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const timer = options.blockIntervalMs ? setInterval(() => mine(), options.blockIntervalMs) : undefined;
  timer?.unref();

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    chain: {
      confirmations,
      head: () => ({ ...head() }),
      mine,
      /** Mines until `txid`'s block has `confirmations` blocks on top. */
      confirm(txid: string) {
        if (!onChain(txid)) mine();
        const tx = onChain(txid);
        if (!tx) throw new Error(`${txid} did not make it into a block`);
        while (!isConfirmed(tx.block!)) mine();
      },
      /** Sets an account's TRX (sun) and/or token balances (creating the account). */
      fund(address: string, balances: { trxSun?: bigint; usdtUnits?: bigint; token?: Token; units?: bigint }) {
        const a = account(address);
        if (balances.trxSun !== undefined) a.trxSun = balances.trxSun;
        if (balances.usdtUnits !== undefined) a.tokens.set(USDT.address, balances.usdtUnits);
        if (balances.token && balances.units !== undefined) a.tokens.set(balances.token.address, balances.units);
      },
      balances(address: string) {
        const a = accounts.get(address);
        return { trxSun: a?.trxSun ?? 0n, usdtUnits: a?.tokens.get(USDT.address) ?? 0n };
      },
      transferIn: injectTransfer,
      drop,
      /** How often each txid was broadcast (duplicates included). */
      broadcasts,
      transaction: (txid: string) => {
        const tx = txs.get(txid);
        return tx && { block: tx.block, receipt: tx.receipt, pooled: pool.includes(txid), to: decodeTransferCall(tx.raw.trigger.data) };
      },
    },
    faults: {
      /** The next `count` requests (to `path`, when given) get `status` (429 by default), with Retry-After when given. */
      rateLimit(count: number, options: { retryAfter?: string; status?: number; body?: string; path?: string } = {}) {
        const headers: Record<string, string> = options.retryAfter === undefined ? {} : { 'retry-after': options.retryAfter };
        faults.push({
          kind: 'status',
          status: options.status ?? 429,
          body: options.body ?? '{"Error":"Too Many Requests"}',
          headers,
          path: options.path,
          remaining: count,
        });
      },
      serverError(count: number, status = 503, path?: string) {
        faults.push({
          kind: 'status',
          status,
          body: '<html><body>503 Service Temporarily Unavailable</body></html>',
          headers: { 'content-type': 'text/html' },
          path,
          remaining: count,
        });
      },
      /** The next `count` answers are HTTP 200 with this (not JSON, by default) body. */
      malformed(count: number, body = '<html>this API is closed because this node is a lite fullnode</html>', path?: string) {
        faults.push({ kind: 'status', status: 200, body, headers: {}, path, remaining: count });
      },
      slow(ms: number, count = 1, path?: string) {
        faults.push({ kind: 'slow', ms, path, remaining: count });
      },
      /** The next `count` requests (to `path`) are never answered nor acted on: a request on the wire when its caller dies, on any clock. */
      hold(count = 1, path?: string) {
        faults.push({ kind: 'hold', path, remaining: count });
      },
      tamperNextBuild(how: Tamper) {
        tamperNext = how;
      },
      failNextReceipt(result: ReceiptResult = 'OUT_OF_ENERGY') {
        forcedReceipt = result;
      },
      /** The next broadcast is answered "accepted" and then lost: it never reaches a block. */
      swallowNextBroadcast() {
        swallowNext = true;
      },
      /** The full node's head claims a time `ms` ahead of the real one (its number stays true): a node whose clock runs ahead. */
      headAhead(ms: number) {
        headAheadMs = ms;
      },
      /** The full node answers `{}` (gettransactioninfobyid, gettransactionbyid) for `txid`, mined or not: a lagging or lying backend. */
      hide(txid: string) {
        hidden.add(txid);
      },
      /** The full node's receipt of `txid` says `result` (and FAILED) whatever really happened; the solidity node tells the truth. */
      reportFailed(txid: string, result: Exclude<ReceiptResult, 'SUCCESS'> = 'OUT_OF_ENERGY') {
        reportedFailed.set(txid, result);
      },
      /** The solidity node stops where it is: it answers `{}` for every later block until resumeSolidity() (or clear()). */
      stallSolidity() {
        solidStalledAt = solidHead();
      },
      resumeSolidity() {
        solidStalledAt = undefined;
      },
      /** Every fault and lie off: the node tells the truth again. */
      clear() {
        faults.length = 0;
        tamperNext = undefined;
        forcedReceipt = undefined;
        swallowNext = false;
        headAheadMs = 0;
        hidden.clear();
        reportedFailed.clear();
        solidStalledAt = undefined;
      },
    },
    async close() {
      if (timer) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeTronGrid = Awaited<ReturnType<typeof startFakeTronGrid>>;
