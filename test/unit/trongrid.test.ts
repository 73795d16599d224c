import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainRejected, ChainUnavailable } from '../../activities/chain/adapter';
import { buildUsdtTransfer, TronBadAnswer, TronGridClient, TronRateLimited, TronRefused, type TronGridOptions } from '../../activities/chain/trongrid';
import {
  addressBytes,
  encodeRawData,
  encodeTransferCall,
  parsePrivateKey,
  signTxid,
  signUsdtTransfer,
  toBroadcastTransaction,
  toHex,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_SMART_CONTRACT_TYPE_URL,
  TronTransactionMismatch,
  txidOf,
  USDT_MAINNET_CONTRACT,
  rawDataToJson,
  type BroadcastTransaction,
  type TransferMismatchReason,
  type TronRawData,
} from '../../domain/tron/transaction';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import { addressFor, FAKE_USDT, startFakeTronGrid, type Tamper } from '../helpers/fake-trongrid';

const HOT_KEY = parsePrivateKey('2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54');
const HOT = tronAddressFromPrivateKey(HOT_KEY);
const MERCHANT = addressFor('merchant-payout');
const DEPOSIT = addressFor('deposit-address-1');
const FEE_LIMIT = 30_000_000n;

async function setup(t: import('ava').ExecutionContext, options: Partial<TronGridOptions> = {}, fake: Parameters<typeof startFakeTronGrid>[0] = {}) {
  const node = await startFakeTronGrid(fake);
  t.teardown(() => node.close());
  node.chain.fund(HOT, { trxSun: 100_000_000n, usdtUnits: 1_000_000_000n });
  const client = new TronGridClient({ url: node.url, timeoutMs: 5_000, backoffMs: 20, ...options });
  return { node, client };
}

/** Build → check → sign → broadcast, as a withdrawal does. */
async function send(client: TronGridClient, cents: bigint, to = MERCHANT) {
  const checked = await buildUsdtTransfer(client, {
    owner: HOT,
    usdtContract: USDT_MAINNET_CONTRACT,
    to,
    amountCents: cents,
    feeLimit: FEE_LIMIT,
    now: Date.now(),
  });
  const body = toBroadcastTransaction(checked, signUsdtTransfer(checked, HOT_KEY));
  return { checked, body, result: await client.broadcast(body) };
}

test('balances: TRX and TRC-20 from /v1/accounts, zero for an address never activated; the API key goes as TRON-PRO-API-KEY', async (t) => {
  const { node, client } = await setup(t, { apiKey: 'k-123' });
  const account = await client.getAccount(HOT);
  t.true(account.exists);
  t.is(account.balanceSun, 100_000_000n);
  t.is(account.trc20.get(USDT_MAINNET_CONTRACT), 1_000_000_000n);
  const nobody = await client.getAccount(addressFor('never-used'));
  t.deepEqual({ exists: nobody.exists, sun: nobody.balanceSun, tokens: nobody.trc20.size }, { exists: false, sun: 0n, tokens: 0 });
  t.true(node.requests.every((r) => r.headers['tron-pro-api-key'] === 'k-123'));
  const { node: other, client: keyless } = await setup(t);
  await keyless.getAccount(HOT);
  t.is(other.requests[0]!.headers['tron-pro-api-key'], undefined);
  await t.throwsAsync(() => client.getAccount('not-an-address'), { instanceOf: RangeError });
});

test('a withdrawal: built, checked, signed, broadcast once, mined with a SUCCESS receipt; a rebroadcast by the same txid is a duplicate', async (t) => {
  const { node, client } = await setup(t);
  const { checked, body, result } = await send(client, 12_345n);
  t.deepEqual(result, { txid: checked.txid, duplicate: false });
  t.is(await client.transactionInfo(checked.txid), undefined, 'in the pool, in no block yet');
  t.is(await client.transaction(checked.txid), undefined);
  node.chain.mine();
  const info = await client.transactionInfo(checked.txid.toUpperCase());
  t.like(info, { txid: checked.txid, receiptResult: 'SUCCESS', failed: false, feeSun: 13_000_000n });
  const onChain = await client.transaction(checked.txid);
  t.like(onChain, { txid: checked.txid, rawDataHex: checked.rawDataHex, contractRet: 'SUCCESS' });
  t.deepEqual(await client.broadcast(body), { txid: checked.txid, duplicate: true });
  t.is(node.chain.broadcasts.get(checked.txid), 2);
  t.deepEqual(node.chain.balances(MERCHANT), { trxSun: 0n, usdtUnits: 123_450_000n });
  const head = await client.nowBlock();
  t.is(head.number, BigInt(node.chain.head().number));
  t.true(info!.blockNumber <= head.number);
});

test('the solidified node (/walletsolidity/gettransactioninfobyid) has a receipt only once its block is solidified, and is asked at TRON_SOLIDITY_API_URL when that is set', async (t) => {
  const { node, client } = await setup(t);
  const { checked } = await send(client, 1_000n);
  node.chain.mine();
  t.like(await client.transactionInfo(checked.txid), { receiptResult: 'SUCCESS' });
  t.is(await client.solidTransactionInfo(checked.txid), undefined, 'in a block, not solidified yet');
  node.chain.confirm(checked.txid);
  t.like(await client.solidTransactionInfo(checked.txid), { txid: checked.txid, receiptResult: 'SUCCESS', failed: false, feeSun: 13_000_000n });
  node.faults.reportFailed(checked.txid, 'REVERT'); // the full node lies; the solidified view does not
  t.like(await client.transactionInfo(checked.txid), { receiptResult: 'REVERT', failed: true });
  t.like(await client.solidTransactionInfo(checked.txid), { receiptResult: 'SUCCESS', failed: false });

  // An own java-tron node serves /walletsolidity on its own port: the client asks there, the rest at TRON_API_URL.
  const { node: solidity } = await setup(t);
  const split = new TronGridClient({ url: node.url, solidityUrl: solidity.url, timeoutMs: 5_000 });
  t.is(await split.solidTransactionInfo(checked.txid), undefined, 'that node has not got it');
  t.deepEqual(
    solidity.requests.map((r) => r.path),
    ['/walletsolidity/gettransactioninfobyid'],
  );
  t.like(await split.transactionInfo(checked.txid), { txid: checked.txid });
  t.is(solidity.requests.length, 1);
});

test('tampered builds are refused before anything is signed', async (t) => {
  const { node, client } = await setup(t);
  const cases: [Tamper, TransferMismatchReason][] = [
    ['recipient', 'recipient'],
    ['amount', 'amount'],
    ['contract', 'contract'],
    ['selector', 'selector'],
    ['owner', 'owner'],
    ['fee_limit', 'fee_limit'],
    ['call_value', 'call_value'],
    ['expired', 'expired'],
    ['extra_field', 'encoding'],
  ];
  for (const [how, reason] of cases) {
    node.faults.tamperNextBuild(how);
    const error = await t.throwsAsync(
      () =>
        buildUsdtTransfer(client, { owner: HOT, usdtContract: USDT_MAINNET_CONTRACT, to: MERCHANT, amountCents: 500n, feeLimit: FEE_LIMIT, now: Date.now() }),
      { instanceOf: TronTransactionMismatch },
    );
    t.is(error?.reason, reason, `${how}: ${error?.message}`);
  }
  t.false(node.requests.some((r) => r.path.startsWith('/wallet/broadcasttransaction')));
});

test('the node verifies what is broadcast: a signature by another key is SIGERROR, an expired transaction is refused as expired', async (t) => {
  const { node, client } = await setup(t);
  const checked = await buildUsdtTransfer(client, {
    owner: HOT,
    usdtContract: USDT_MAINNET_CONTRACT,
    to: MERCHANT,
    amountCents: 100n,
    feeLimit: FEE_LIMIT,
    now: Date.now(),
  });
  const stranger = parsePrivateKey('75065f100e38d3f3b4c5c4235834ba8216de62272a4f03532c44b31a5734360a');
  const forged = toBroadcastTransaction(checked, signTxid(checked.txid, stranger));
  const sig = await t.throwsAsync(() => client.broadcast(forged), { instanceOf: TronRefused });
  t.like(sig, { code: 'SIGERROR', nodeMessage: 'validate signature error', expired: false });
  t.true(sig instanceof ChainRejected);

  // A transaction whose window has passed (signed properly, built by hand from the head block).
  const head = node.chain.head();
  const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
  const raw: TronRawData = {
    refBlockBytes: hex(head.number.toString(16).padStart(16, '0').slice(12)),
    refBlockHash: hex(head.id.slice(16, 32)),
    expiration: BigInt(Date.now() - 1_000),
    timestamp: BigInt(Date.now() - 61_000),
    feeLimit: FEE_LIMIT,
    contractType: TRIGGER_SMART_CONTRACT,
    typeUrl: TRIGGER_SMART_CONTRACT_TYPE_URL,
    trigger: {
      ownerAddress: addressBytes(HOT),
      contractAddress: addressBytes(USDT_MAINNET_CONTRACT),
      data: encodeTransferCall(MERCHANT, 10_000n),
      callValue: 0n,
      callTokenValue: 0n,
      tokenId: 0n,
    },
  };
  const bytes = encodeRawData(raw);
  const txid = txidOf(bytes);
  const expired: BroadcastTransaction = {
    visible: false,
    txID: txid,
    raw_data: rawDataToJson(raw),
    raw_data_hex: toHex(bytes),
    signature: [signTxid(txid, HOT_KEY)],
  };
  const late = await t.throwsAsync(() => client.broadcast(expired), { instanceOf: TronRefused });
  t.like(late, { code: 'TRANSACTION_EXPIRATION_ERROR', expired: true });
});

test('a failed receipt is visible: forced OUT_OF_ENERGY, and a hot wallet without enough TRX for the energy', async (t) => {
  const { node, client } = await setup(t);
  node.faults.failNextReceipt('OUT_OF_ENERGY');
  const first = await send(client, 100n);
  node.chain.mine();
  t.like(await client.transactionInfo(first.checked.txid), { receiptResult: 'OUT_OF_ENERGY', failed: true });
  t.like(await client.transaction(first.checked.txid), { contractRet: 'OUT_OF_ENERGY' });
  t.is(node.chain.balances(MERCHANT).usdtUnits, 0n);

  node.chain.fund(HOT, { trxSun: 1_000_000n });
  const second = await send(client, 100n);
  node.chain.mine();
  t.like(await client.transactionInfo(second.checked.txid), { receiptResult: 'OUT_OF_ENERGY', failed: true, feeSun: 1_000_000n });

  node.chain.fund(HOT, { trxSun: 100_000_000n, usdtUnits: 0n });
  const third = await send(client, 100n);
  node.chain.mine();
  t.like(await client.transactionInfo(third.checked.txid), { receiptResult: 'REVERT', failed: true, message: 'REVERT opcode executed' });
});

test('deposits: unconfirmed then confirmed after N blocks, other tokens filtered by contract, a dropped transfer disappears', async (t) => {
  const { node, client } = await setup(t, {}, { confirmations: 3 });
  const real = node.chain.transferIn({ to: DEPOSIT, units: 50_000_000n });
  const counterfeit = node.chain.transferIn({ to: DEPOSIT, units: 70_000_000n, token: FAKE_USDT });
  const doomed = node.chain.transferIn({ to: DEPOSIT, units: 10_000n });
  node.chain.mine();
  const query = { onlyTo: true, contract: USDT_MAINNET_CONTRACT } as const;
  const unconfirmed = await client.trc20Transfers(DEPOSIT, { ...query, confirmation: 'unconfirmed' });
  t.deepEqual(unconfirmed.transfers.map((x) => x.txHash).sort(), [real, doomed].sort());
  t.is((await client.trc20Transfers(DEPOSIT, { ...query, confirmation: 'confirmed' })).transfers.length, 0);
  const everything = await client.trc20Transfers(DEPOSIT, { onlyTo: true });
  const fake = everything.transfers.find((x) => x.txHash === counterfeit);
  t.like(fake, { symbol: 'USDT', token: FAKE_USDT.address }, 'same symbol, another contract: only the contract tells them apart');

  node.chain.drop(doomed);
  t.is(await client.transaction(doomed), undefined);
  node.chain.mine(3);
  const confirmed = await client.trc20Transfers(DEPOSIT, { ...query, confirmation: 'confirmed' });
  t.is(confirmed.transfers.length, 1);
  t.like(confirmed.transfers[0], { txHash: real, to: DEPOSIT, value: 50_000_000n, decimals: 6, type: 'Transfer', token: USDT_MAINNET_CONTRACT });
  t.like(await client.transactionInfo(real), { receiptResult: 'SUCCESS' });
  t.is((await client.trc20Transfers(DEPOSIT, { ...query, confirmation: 'unconfirmed' })).transfers.length, 0);
  t.is((await client.getAccount(DEPOSIT)).trc20.get(USDT_MAINNET_CONTRACT), 50_000_000n);
});

test('paging with the fingerprint: every transfer exactly once, min_timestamp narrows the window', async (t) => {
  const { node, client } = await setup(t);
  const sent: string[] = [];
  for (let i = 0; i < 7; i++) {
    sent.push(node.chain.transferIn({ to: DEPOSIT, units: BigInt(i + 1) * 10_000n }));
    node.chain.mine();
  }
  const seen: string[] = [];
  let fingerprint: string | undefined;
  let pages = 0;
  do {
    const page = await client.trc20Transfers(DEPOSIT, { onlyTo: true, contract: USDT_MAINNET_CONTRACT, limit: 3, fingerprint });
    seen.push(...page.transfers.map((x) => x.txHash));
    fingerprint = page.fingerprint;
    pages++;
  } while (fingerprint);
  t.is(pages, 3);
  t.deepEqual([...seen].sort(), [...sent].sort());
  t.is(new Set(seen).size, 7);
  const paged = node.requests.filter((r) => r.path.includes('fingerprint='));
  t.is(paged.length, 2);
  t.true(paged.every((r) => r.path.includes('limit=3') && r.path.includes('only_to=true')));

  const all = (await client.trc20Transfers(DEPOSIT, { onlyTo: true })).transfers;
  const newest = Math.max(...all.map((x) => x.blockTimestamp));
  const recent = await client.trc20Transfers(DEPOSIT, { onlyTo: true, minTimestamp: newest });
  t.true(recent.transfers.length >= 1 && recent.transfers.every((x) => x.blockTimestamp >= newest));
});

test('429: retried with backoff, Retry-After honoured; too long a Retry-After or too many 429s become TronRateLimited (ChainUnavailable)', async (t) => {
  const { node, client } = await setup(t, { rateLimitRetries: 3, maxBackoffMs: 2_000 });
  node.faults.rateLimit(2);
  t.true((await client.getAccount(HOT)).exists);
  t.is(node.requests.length, 3);

  node.faults.rateLimit(1, { retryAfter: '1' });
  const started = Date.now();
  await client.nowBlock();
  t.true(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);

  node.faults.rateLimit(1, { retryAfter: '30' });
  const before = node.requests.length;
  const long = await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronRateLimited });
  t.is(long?.retryAfterMs, 30_000);
  t.true(long instanceof ChainUnavailable);
  t.is(node.requests.length, before + 1, 'a long Retry-After is passed up, not slept through');

  node.faults.rateLimit(10);
  await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronRateLimited });
  node.faults.clear();

  // TronGrid's key limiter answers 403 with a text body.
  node.faults.rateLimit(1, { status: 403, body: '{"Error":"The key exceeds the frequency limit(15), and the query server is suspended for 30s"}' });
  const suspended = await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronRateLimited });
  t.is(suspended?.retryAfterMs, 30_000);
});

test('5xx, a slow node, a dead node and a cancelled call are ChainUnavailable; 5xx is not retried here', async (t) => {
  // A deadline well above what a loaded machine takes to answer locally, well below the slow node's pause.
  const { node, client } = await setup(t, { timeoutMs: 1_500 });
  node.faults.serverError(1, 502);
  const before = node.requests.length;
  await t.throwsAsync(() => client.nowBlock(), { instanceOf: ChainUnavailable, message: /HTTP 502/ });
  t.is(node.requests.length, before + 1);
  t.truthy(await client.nowBlock());

  node.faults.slow(6_000, 1);
  await t.throwsAsync(() => client.nowBlock(), { instanceOf: ChainUnavailable, message: /no answer within 1500 ms/ });

  const controller = new AbortController();
  node.faults.slow(6_000, 1);
  const pending = client.nowBlock(controller.signal);
  setTimeout(() => controller.abort(), 50);
  await t.throwsAsync(pending, { instanceOf: ChainUnavailable, message: /abandoned/ });

  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const p = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const dead = new TronGridClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 500 });
  await t.throwsAsync(() => dead.nowBlock(), { instanceOf: ChainUnavailable });
});

test('answers that are not what the documentation says are TronBadAnswer (a ChainUnavailable), never trusted', async (t) => {
  const { node, client } = await setup(t, { maxResponseBytes: 64 * 1024 });
  node.faults.malformed(1);
  const lite = await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronBadAnswer, message: /not JSON/ });
  t.true(lite instanceof ChainUnavailable);

  node.faults.malformed(1, '{"Error":"class java.lang.NullPointerException : null"}');
  await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronBadAnswer, message: /node error/ });

  node.faults.malformed(1, '{"success":true,"data":[{"transaction_id":"not-a-hash","to":"T1"}]}');
  await t.throwsAsync(() => client.trc20Transfers(DEPOSIT), { instanceOf: TronBadAnswer, message: /unexpected answer/ });

  node.faults.malformed(1, `{"success":true,"data":[{"address":"${toHex(addressBytes(MERCHANT))}","balance":5}]}`);
  await t.throwsAsync(() => client.getAccount(HOT), { instanceOf: TronBadAnswer, message: /about/ });

  node.faults.malformed(1, '{"success":true,"data":[{"address":"41c53a7d3488cd47d41e72aeecd311efb4d64afb64","balance":-5}]}');
  await t.throwsAsync(() => client.getAccount(HOT), { instanceOf: TronBadAnswer });

  node.faults.malformed(1, `{"id":"${'ab'.repeat(32)}","blockNumber":1,"blockTimeStamp":1,"receipt":{"result":"SUCCESS"}}`);
  await t.throwsAsync(() => client.transactionInfo('cd'.repeat(32)), { instanceOf: TronBadAnswer, message: /about/ });

  const checked = await buildUsdtTransfer(client, {
    owner: HOT,
    usdtContract: USDT_MAINNET_CONTRACT,
    to: MERCHANT,
    amountCents: 1n,
    feeLimit: FEE_LIMIT,
    now: Date.now(),
  });
  node.faults.malformed(1, `{"result":true,"txid":"${'ef'.repeat(32)}"}`, '/wallet/broadcasttransaction');
  await t.throwsAsync(() => client.broadcast(toBroadcastTransaction(checked, signUsdtTransfer(checked, HOT_KEY))), {
    instanceOf: TronBadAnswer,
    message: /computed txid/,
  });

  node.faults.malformed(1, JSON.stringify({ pad: 'x'.repeat(100_000) }));
  await t.throwsAsync(() => client.nowBlock(), { instanceOf: TronBadAnswer, message: /over/ });

  // Integers beyond 2^53 keep their value (a balance in sun is int64).
  node.faults.malformed(1, `{"success":true,"data":[{"address":"${toHex(addressBytes(HOT))}","balance":9007199254740993}]}`);
  t.is((await client.getAccount(HOT)).balanceSun, 9_007_199_254_740_993n);
});

test('a build the node refuses is TronRefused with its decoded message; a busy node is only unavailable', async (t) => {
  const { node, client } = await setup(t);
  const refused = await t.throwsAsync(
    () => client.triggerTransfer({ owner: HOT, contract: addressFor('no-such-contract'), to: MERCHANT, units: 10_000n, feeLimit: FEE_LIMIT }),
    { instanceOf: TronRefused },
  );
  t.like(refused, { code: 'CONTRACT_VALIDATE_ERROR', nodeMessage: 'No contract or not a valid smart contract' });

  const checked = await buildUsdtTransfer(client, {
    owner: HOT,
    usdtContract: USDT_MAINNET_CONTRACT,
    to: MERCHANT,
    amountCents: 1n,
    feeLimit: FEE_LIMIT,
    now: Date.now(),
  });
  node.faults.malformed(
    1,
    `{"result":false,"code":"SERVER_BUSY","message":"${Buffer.from('Server busy').toString('hex')}","txid":"${checked.txid}"}`,
    '/wallet/broadcasttransaction',
  );
  const body = toBroadcastTransaction(checked, signUsdtTransfer(checked, HOT_KEY));
  const busy = await t.throwsAsync(() => client.broadcast(body), { instanceOf: ChainUnavailable, message: /SERVER_BUSY \(Server busy\)/ });
  t.false(busy instanceof ChainRejected);
  t.deepEqual(await client.broadcast(body), { txid: checked.txid, duplicate: false });
});
