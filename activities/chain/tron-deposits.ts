/**
 * The deposit watcher on TRON (CHAIN_ADAPTER=trongrid): one pass over the gateway's deposit
 * addresses, run as an activity by the chain-watch workflow (docs/tron.md, "Deposits").
 *
 * Per address: the USDT (TRC-20) transfers to it — unconfirmed, and confirmed since its cursor
 * minus TRON_DEPOSIT_OVERLAP_MS — each list paged with the indexer's fingerprint to its end. Rows
 * of another contract (a counterfeit "USDT" has the same symbol), to another address, or not a
 * Transfer are ignored. A transfer first seen unconfirmed is recorded PENDING (its tx hash claimed
 * for the merchant). It becomes CONFIRMED — credited once, p2p.finance.deposit_confirmed — only on
 * the node's receipt: SUCCESS with TRON_CONFIRMATIONS blocks on top, the amount taken from the
 * receipt's Transfer logs of the USDT contract to that address (the indexer only says where to
 * look). A PENDING transfer that is on no list and in no block while the node's head is
 * TRON_DEPOSIT_DROP_AFTER_MS past its block, or whose receipt failed, is DROPPED: never credited.
 *
 * Idempotent: the tx hash (canonical) is claimed once in chain_credits and the deposit row is
 * unique by it, so the overlap, a page read twice, a pass retried after a crash or a restarted
 * worker credit nothing twice. Decisions (docs/tron.md): a transaction paying two or more of the
 * gateway's addresses is left to an operator (alert deposit_needs_operator); several transfers to
 * one address in one transaction are one deposit of their sum; an amount with a fraction of a cent
 * is credited in whole cents (the rest stays on chain, recorded in chain_units); a transfer below
 * one cent (address-poisoning dust) is ignored.
 */
import type { Logger } from 'pino';
import type { Sql } from '../../db/sql';
import { raiseAlert, resolveAlerts } from '../../db/queries/alerts';
import { isBalanceStale, saveChainBalance, staleBalanceAddresses } from '../../db/queries/chain-balances';
import {
  addressesToWatch,
  depositStatuses,
  markDepositDropped,
  ownedDepositAddresses,
  pendingDepositsTo,
  saveWatchCursor,
  type WatchedAddress,
} from '../../db/queries/chain-watch';
import { ingestObservedDeposit, type WalletDepositRow } from '../../db/queries/wallet-deposits';
import { DomainError } from '../../domain/errors';
import { USDT_DECIMALS, USDT_UNITS_PER_CENT } from '../../domain/tron/transaction';
import { trc20TransfersIn, type Trc20Query, type Trc20Transfer, type TronTransactionInfo } from './trongrid';
import { raiseLowTrxAlert, type Tron } from './tron';
import type { ChainWatchPassResult } from '../../workflows/contracts/chain-watch';

/** Pages of 200 rows read per list and address in one pass (the rest next pass; the cursor then stays). */
const MAX_PAGES = 25;
/** Addresses polled per pass at most (least recently polled first), and in parallel. */
const MAX_ADDRESSES_PER_PASS = 2_000;
const PARALLEL = 4;
/** Balances read per pass at most. */
const MAX_BALANCES_PER_PASS = 50;

interface Sighting {
  units: bigint;
  blockTimestamp: number;
}

type Head = { number: bigint; timestamp: number };

async function inPool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** What every pass works with. */
interface Watcher {
  sql: Sql;
  tron: Tron;
  log: Logger;
}

/**
 * One pass over the addresses: its tally (the pass result) and the addresses credited or seen
 * pending (their balances are read at the end). Per address, `watch` reads the lists, then takes
 * each transfer to its decision: `intake` (record or credit), `settle` (the receipt decides) or
 * `checkPending` (a PENDING one the lists no longer show).
 */
class DepositPass {
  readonly result: ChainWatchPassResult = { addresses: 0, pending: 0, confirmed: 0, dropped: 0, ignored: 0, problems: 0, balances: 0 };
  readonly touched = new Set<string>();

  constructor(
    private readonly w: Watcher,
    private readonly signal: AbortSignal | undefined,
    private readonly beat: () => void,
  ) {}

  /** One address: its new transfers recorded or credited, its PENDING ones settled, its cursor moved on. */
  async watch(watched: WatchedAddress, head: Head): Promise<void> {
    const { address } = watched;
    const { final, fresh, confirmed } = await this.sightings(watched);
    const statuses = await depositStatuses(this.w.sql, [...final.keys(), ...fresh.keys()]);
    const pending = await pendingDepositsTo(this.w.sql, address);
    const pendingByHash = new Map(pending.map((d) => [d.tx_hash, d]));
    for (const [txHash, sighting] of final) {
      if (statuses.get(txHash) === 'CONFIRMED') continue; // the overlap reads it again: nothing to do
      if (sighting.units < USDT_UNITS_PER_CENT && !statuses.has(txHash)) {
        this.result.ignored++; // dust: not worth a receipt
        continue;
      }
      await this.settle(address, txHash, sighting, head, pendingByHash.get(txHash));
    }
    for (const [txHash, sighting] of fresh) {
      const status = statuses.get(txHash);
      if (status === 'PENDING' || status === 'CONFIRMED') continue;
      if (sighting.units < USDT_UNITS_PER_CENT) {
        this.result.ignored++;
        continue;
      }
      await this.intake(address, txHash, sighting.units / USDT_UNITS_PER_CENT, 0, sighting);
    }
    for (const deposit of pending) {
      if (!final.has(deposit.tx_hash)) await this.checkPending(deposit, fresh.has(deposit.tx_hash), head);
    }
    const newest = Math.max(watched.cursor_ms, ...confirmed.rows.map((r) => r.blockTimestamp));
    await saveWatchCursor(this.w.sql, address, confirmed.complete ? newest : watched.cursor_ms);
    this.result.addresses++;
    this.beat();
  }

  /**
   * The USDT transfers to the address, by transaction: `final` from the confirmed list since its
   * cursor (minus the overlap), `fresh` from the unconfirmed list (those not final yet).
   */
  private async sightings(watched: WatchedAddress) {
    const { tron } = this.w;
    const { address } = watched;
    const since = Math.max(watched.cursor_ms, watched.created_ms) - tron.config.TRON_DEPOSIT_OVERLAP_MS;
    const [unconfirmed, confirmed] = await Promise.all([
      this.pageAll(address, { confirmation: 'unconfirmed' }),
      this.pageAll(address, { confirmation: 'confirmed', minTimestamp: Math.max(0, since) }),
    ]);
    const group = (rows: Trc20Transfer[]) => {
      const map = new Map<string, Sighting>();
      for (const row of rows) {
        const usdt = row.token === tron.usdtContract && row.to === address && row.type === 'Transfer' && row.decimals === USDT_DECIMALS && row.value > 0n;
        if (!usdt) {
          this.result.ignored++;
          continue;
        }
        const seen = map.get(row.txHash);
        map.set(row.txHash, { units: (seen?.units ?? 0n) + row.value, blockTimestamp: Math.max(seen?.blockTimestamp ?? 0, row.blockTimestamp) });
      }
      return map;
    };
    const final = group(confirmed.rows);
    const fresh = group(unconfirmed.rows.filter((r) => !final.has(r.txHash)));
    return { final, fresh, confirmed };
  }

  /** One list of the address, paged with the indexer's fingerprint to its end (MAX_PAGES at most). */
  private async pageAll(address: string, query: Trc20Query): Promise<{ rows: Trc20Transfer[]; complete: boolean }> {
    const { tron, log } = this.w;
    const rows: Trc20Transfer[] = [];
    let fingerprint: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await tron.client.trc20Transfers(address, { ...query, onlyTo: true, contract: tron.usdtContract, limit: 200, fingerprint }, this.signal);
      this.beat();
      rows.push(...answer.transfers);
      if (!answer.fingerprint) return { rows, complete: true };
      fingerprint = answer.fingerprint;
    }
    log.warn({ address, pages: MAX_PAGES }, 'more transfers than one pass reads: the rest next pass');
    return { rows, complete: false };
  }

  /** One transfer into the intake (its own transaction). */
  private async intake(address: string, txHash: string, cents: bigint, confirmations: number, sighting: Sighting): Promise<void> {
    try {
      const outcome = await this.w.sql.begin((tx) =>
        ingestObservedDeposit(
          tx,
          { txHash, toAddress: address, amount: cents, confirmations, chainUnits: sighting.units, blockAt: sighting.blockTimestamp },
          this.w.tron.config.TRON_CONFIRMATIONS,
        ),
      );
      if (outcome.kind !== 'recorded') return;
      this.touched.add(address);
      if (outcome.credited) this.result.confirmed++;
      else if (outcome.deposit.status === 'PENDING' && confirmations === 0) this.result.pending++;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.problem(txHash, `not taken in (${error.message}); amount ${sighting.units} units to ${address}`);
    }
  }

  /** The receipt decides: CONFIRMED (credited), still PENDING, or a failure. */
  private async settle(
    address: string,
    txHash: string,
    sighting: Sighting,
    head: Head,
    recorded: WalletDepositRow | undefined,
    known?: TronTransactionInfo,
  ): Promise<void> {
    const { sql, tron } = this.w;
    const required = tron.config.TRON_CONFIRMATIONS;
    const info = known ?? (await tron.client.transactionInfo(txHash, this.signal));
    this.beat();
    if (!info) {
      if (!recorded) await this.intake(address, txHash, sighting.units / USDT_UNITS_PER_CENT, 0, sighting);
      return;
    }
    const depth = head.number - info.blockNumber;
    if (info.receiptResult !== 'SUCCESS' || info.failed) {
      // A failed transaction moved nothing; final once its block is.
      if (depth >= BigInt(required) && recorded && (await markDepositDropped(sql, recorded.id))) this.result.dropped++;
      return;
    }
    const transfers = trc20TransfersIn(info, tron.usdtContract);
    const ours = await ownedDepositAddresses(sql, [...new Set(transfers.map((x) => x.to))]);
    if (ours.size > 1) {
      await this.problem(
        txHash,
        `one transaction pays ${ours.size} deposit addresses of the gateway (${[...ours].join(', ')}): not credited automatically — credit by hand`,
      );
      return;
    }
    const units = transfers.filter((x) => x.to === address).reduce((sum, x) => sum + x.value, 0n);
    if (units === 0n) {
      await this.problem(txHash, `the indexer lists a USDT transfer to ${address}, the receipt has none: not credited`);
      return;
    }
    const cents = units / USDT_UNITS_PER_CENT;
    if (cents === 0n) {
      this.result.ignored++;
      return;
    }
    const confirmations = depth > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(depth);
    await this.intake(address, txHash, cents, confirmations, { units, blockTimestamp: Number(info.blockTimestamp) || sighting.blockTimestamp });
  }

  /** A PENDING deposit the lists no longer confirm: its receipt, or is it gone? */
  private async checkPending(deposit: WalletDepositRow, listed: boolean, head: Head): Promise<void> {
    const { sql, tron, log } = this.w;
    const info = await tron.client.transactionInfo(deposit.tx_hash, this.signal);
    const sighting = {
      units: deposit.chain_units ?? deposit.amount * USDT_UNITS_PER_CENT,
      blockTimestamp: deposit.block_at?.getTime() ?? deposit.created_at.getTime(),
    };
    if (info) return this.settle(deposit.address, deposit.tx_hash, sighting, head, deposit, info);
    if (listed || (await tron.client.transaction(deposit.tx_hash, this.signal))) return;
    if (head.timestamp - sighting.blockTimestamp > tron.config.TRON_DEPOSIT_DROP_AFTER_MS && (await markDepositDropped(sql, deposit.id))) {
      this.result.dropped++;
      log.warn({ txHash: deposit.tx_hash, depositId: deposit.id }, 'deposit dropped: its transaction left the chain before it was final');
    }
  }

  private async problem(txHash: string, message: string): Promise<void> {
    this.result.problems++;
    this.w.log.warn({ txHash }, message);
    await raiseAlert(this.w.sql, { kind: 'deposit_needs_operator', subject: txHash, message: `deposit transaction ${txHash}: ${message}` });
  }
}

export function tronDepositWatcher(sql: Sql, tron: Tron, log: Logger) {
  const { client, config } = tron;

  return {
    /** One pass: the node's head, the addresses due, each watched (PARALLEL at a time), then the balances of those touched and stale. */
    async pass(options: { signal?: AbortSignal; beat?: () => void } = {}): Promise<ChainWatchPassResult> {
      const { signal, beat = () => undefined } = options;
      const run = new DepositPass({ sql, tron, log }, signal, beat);
      const head = await client.nowBlock(signal);
      const addresses = await addressesToWatch(sql, config.TRON_COLD_ADDRESS_POLL_SECONDS, MAX_ADDRESSES_PER_PASS);
      await inPool(addresses, PARALLEL, (a) => run.watch(a, head));
      run.result.balances = await refreshBalances([...run.touched], signal, beat);
      return run.result;
    },
  };

  /** Cached on-chain balances: the merchants' current addresses (stale ones, and those just paid) and the hot wallet. */
  async function refreshBalances(touched: string[], signal: AbortSignal | undefined, beat: () => void): Promise<number> {
    const due = await staleBalanceAddresses(sql, config.TRON_BALANCE_REFRESH_SECONDS, MAX_BALANCES_PER_PASS, touched);
    const hotDue = await isBalanceStale(sql, tron.hotWallet, config.TRON_BALANCE_REFRESH_SECONDS);
    let read = 0;
    await inPool(hotDue ? [...due, tron.hotWallet] : due, PARALLEL, async (address) => {
      const account = await client.getAccount(address, signal);
      const usdtUnits = account.trc20.get(tron.usdtContract) ?? 0n;
      await saveChainBalance(sql, { address, usdtUnits, trxSun: account.balanceSun });
      read++;
      beat();
      if (address !== tron.hotWallet) return;
      if (!(await raiseLowTrxAlert(sql, tron, account.balanceSun))) await resolveAlerts(sql, address, 'hot_wallet_low_trx');
    });
    return read;
  }
}
