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
import { addressesToWatch, depositStatuses, markDepositDropped, ownedDepositAddresses, pendingDepositsTo, saveWatchCursor, type WatchedAddress } from '../../db/queries/chain-watch';
import { ingestObservedDeposit, type WalletDepositRow } from '../../db/queries/wallet-deposits';
import { DomainError } from '../../domain/errors';
import { USDT_DECIMALS, USDT_UNITS_PER_CENT } from '../../domain/tron-tx';
import { trc20TransfersIn, type Trc20Query, type Trc20Transfer, type TronTransactionInfo } from './trongrid';
import type { Tron } from './tron';
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

export function tronDepositWatcher(sql: Sql, tron: Tron, log: Logger) {
  const { client, config } = tron;
  const required = config.TRON_CONFIRMATIONS;

  async function pageAll(address: string, query: Trc20Query, signal: AbortSignal | undefined, beat: () => void): Promise<{ rows: Trc20Transfer[]; complete: boolean }> {
    const rows: Trc20Transfer[] = [];
    let fingerprint: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await client.trc20Transfers(address, { ...query, onlyTo: true, contract: tron.usdtContract, limit: 200, fingerprint }, signal);
      beat();
      rows.push(...answer.transfers);
      if (!answer.fingerprint) return { rows, complete: true };
      fingerprint = answer.fingerprint;
    }
    log.warn({ address, pages: MAX_PAGES }, 'more transfers than one pass reads: the rest next pass');
    return { rows, complete: false };
  }

  return {
    async pass(options: { signal?: AbortSignal; beat?: () => void } = {}): Promise<ChainWatchPassResult> {
      const { signal, beat = () => undefined } = options;
      const result: ChainWatchPassResult = { addresses: 0, pending: 0, confirmed: 0, dropped: 0, ignored: 0, problems: 0, balances: 0 };
      const touched = new Set<string>();

      const problem = async (txHash: string, message: string) => {
        result.problems++;
        log.warn({ txHash }, message);
        await raiseAlert(sql, { kind: 'deposit_needs_operator', subject: txHash, message: `deposit transaction ${txHash}: ${message}` });
      };

      /** One transfer into the intake (its own transaction). */
      const intake = async (address: string, txHash: string, cents: bigint, confirmations: number, sighting: Sighting) => {
        try {
          const outcome = await sql.begin((tx) =>
            ingestObservedDeposit(tx, { txHash, toAddress: address, amount: cents, confirmations, chainUnits: sighting.units, blockAt: sighting.blockTimestamp }, required),
          );
          if (outcome.kind !== 'recorded') return;
          touched.add(address);
          if (outcome.credited) result.confirmed++;
          else if (outcome.deposit.status === 'PENDING' && confirmations === 0) result.pending++;
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          await problem(txHash, `not taken in (${error.message}); amount ${sighting.units} units to ${address}`);
        }
      };

      /** The receipt decides: CONFIRMED (credited), still PENDING, or a failure. */
      const settle = async (address: string, txHash: string, sighting: Sighting, head: Head, recorded: WalletDepositRow | undefined, known?: TronTransactionInfo) => {
        const info = known ?? (await client.transactionInfo(txHash, signal));
        beat();
        if (!info) {
          if (!recorded) await intake(address, txHash, sighting.units / USDT_UNITS_PER_CENT, 0, sighting);
          return;
        }
        const depth = head.number - info.blockNumber;
        if (info.receiptResult !== 'SUCCESS' || info.failed) {
          // A failed transaction moved nothing; final once its block is.
          if (depth >= BigInt(required) && recorded && (await markDepositDropped(sql, recorded.id))) result.dropped++;
          return;
        }
        const transfers = trc20TransfersIn(info, tron.usdtContract);
        const ours = await ownedDepositAddresses(sql, [...new Set(transfers.map((x) => x.to))]);
        if (ours.size > 1) {
          await problem(txHash, `one transaction pays ${ours.size} deposit addresses of the gateway (${[...ours].join(', ')}): not credited automatically — credit by hand`);
          return;
        }
        const units = transfers.filter((x) => x.to === address).reduce((sum, x) => sum + x.value, 0n);
        if (units === 0n) {
          await problem(txHash, `the indexer lists a USDT transfer to ${address}, the receipt has none: not credited`);
          return;
        }
        const cents = units / USDT_UNITS_PER_CENT;
        if (cents === 0n) {
          result.ignored++;
          return;
        }
        const confirmations = depth > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(depth);
        await intake(address, txHash, cents, confirmations, { units, blockTimestamp: Number(info.blockTimestamp) || sighting.blockTimestamp });
      };

      /** A PENDING deposit the lists no longer confirm: its receipt, or is it gone? */
      const checkPending = async (deposit: WalletDepositRow, listed: boolean, head: Head) => {
        const info = await client.transactionInfo(deposit.tx_hash, signal);
        const sighting = { units: deposit.chain_units ?? deposit.amount * USDT_UNITS_PER_CENT, blockTimestamp: deposit.block_at?.getTime() ?? deposit.created_at.getTime() };
        if (info) return settle(deposit.address, deposit.tx_hash, sighting, head, deposit, info);
        if (listed || (await client.transaction(deposit.tx_hash, signal))) return;
        if (head.timestamp - sighting.blockTimestamp > config.TRON_DEPOSIT_DROP_AFTER_MS && (await markDepositDropped(sql, deposit.id))) {
          result.dropped++;
          log.warn({ txHash: deposit.tx_hash, depositId: deposit.id }, 'deposit dropped: its transaction left the chain before it was final');
        }
      };

      const watch = async (watched: WatchedAddress, head: Head) => {
        const { address } = watched;
        const since = Math.max(watched.cursor_ms, watched.created_ms) - config.TRON_DEPOSIT_OVERLAP_MS;
        const [unconfirmed, confirmed] = await Promise.all([
          pageAll(address, { confirmation: 'unconfirmed' }, signal, beat),
          pageAll(address, { confirmation: 'confirmed', minTimestamp: Math.max(0, since) }, signal, beat),
        ]);
        const group = (rows: Trc20Transfer[]) => {
          const map = new Map<string, Sighting>();
          for (const row of rows) {
            const usdt = row.token === tron.usdtContract && row.to === address && row.type === 'Transfer' && row.decimals === USDT_DECIMALS && row.value > 0n;
            if (!usdt) {
              result.ignored++;
              continue;
            }
            const seen = map.get(row.txHash);
            map.set(row.txHash, { units: (seen?.units ?? 0n) + row.value, blockTimestamp: Math.max(seen?.blockTimestamp ?? 0, row.blockTimestamp) });
          }
          return map;
        };
        const final = group(confirmed.rows);
        const fresh = group(unconfirmed.rows.filter((r) => !final.has(r.txHash)));
        const statuses = await depositStatuses(sql, [...final.keys(), ...fresh.keys()]);
        const pending = await pendingDepositsTo(sql, address);
        const pendingByHash = new Map(pending.map((d) => [d.tx_hash, d]));
        for (const [txHash, sighting] of final) {
          if (statuses.get(txHash) === 'CONFIRMED') continue; // the overlap reads it again: nothing to do
          if (sighting.units < USDT_UNITS_PER_CENT && !statuses.has(txHash)) {
            result.ignored++; // dust: not worth a receipt
            continue;
          }
          await settle(address, txHash, sighting, head, pendingByHash.get(txHash));
        }
        for (const [txHash, sighting] of fresh) {
          const status = statuses.get(txHash);
          if (status === 'PENDING' || status === 'CONFIRMED') continue;
          if (sighting.units < USDT_UNITS_PER_CENT) {
            result.ignored++;
            continue;
          }
          await intake(address, txHash, sighting.units / USDT_UNITS_PER_CENT, 0, sighting);
        }
        for (const deposit of pending) {
          if (!final.has(deposit.tx_hash)) await checkPending(deposit, fresh.has(deposit.tx_hash), head);
        }
        const newest = Math.max(watched.cursor_ms, ...confirmed.rows.map((r) => r.blockTimestamp));
        await saveWatchCursor(sql, address, confirmed.complete ? newest : watched.cursor_ms);
        result.addresses++;
        beat();
      };

      const head = await client.nowBlock(signal);
      const addresses = await addressesToWatch(sql, config.TRON_COLD_ADDRESS_POLL_SECONDS, MAX_ADDRESSES_PER_PASS);
      await inPool(addresses, PARALLEL, (a) => watch(a, head));
      result.balances = await refreshBalances([...touched], signal, beat);
      return result;
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
      if (account.balanceSun < config.TRON_HOT_WALLET_MIN_TRX_SUN) {
        const sun = account.balanceSun;
        await raiseAlert(sql, {
          kind: 'hot_wallet_low_trx',
          subject: address,
          message: `the hot wallet ${address} holds ${sun / 1_000_000n}.${(sun % 1_000_000n).toString().padStart(6, '0')} TRX, below TRON_HOT_WALLET_MIN_TRX_SUN: withdrawals burn TRX for energy — top it up or stake for energy`,
        });
      } else {
        await resolveAlerts(sql, address, 'hot_wallet_low_trx');
      }
    });
    return read;
  }
}
