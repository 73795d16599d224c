/**
 * The chain adapter: how a withdrawal reaches the TRON network. Implementations must be
 * idempotent by withdrawal id — a second send() for the same id (a retry after a timeout or a
 * worker crash) returns the first transfer's hash and never transfers again. A real adapter gets
 * that by building and signing the transaction once, storing it with its txid before
 * broadcasting, and rebroadcasting those stored bytes on a retry.
 *
 * Two shapes: the simulator's send() is final (the transfer is done when it answers). The
 * TronGrid adapter's send() only submits and answers `checkInMs`: the withdrawal workflow then
 * asks transferStatus() after that long (a durable timer), until the transaction is final.
 */
export interface ChainTransfer {
  withdrawalId: string;
  toAddress: string;
  /** What arrives at the address (the withdrawal's net), USDT cents. */
  amount: bigint;
}

export interface SentTransfer {
  txHash: string;
  /** Set when the transfer is only submitted: ask transferStatus() after this many ms. Absent: final. */
  checkInMs?: number;
}

/** Where a submitted withdrawal's transfer stands. */
export type TransferStatus =
  /** In a block at the required depth with receipt SUCCESS: done. */
  | { state: 'confirmed'; txHash: string }
  /** Not final yet (in the pool, or in a block below the depth): ask again after checkInMs. */
  | { state: 'pending'; txHash: string; checkInMs: number }
  /** The transaction is dead (failed on chain, or expired off chain; nothing moved): submit again (a new one) after afterMs. */
  | { state: 'resubmit'; afterMs: number; reason: string }
  /** Too many dead transactions: give up. Nothing ever moved, so the hold may be returned. */
  | { state: 'refused'; reason: string };

export interface ChainAdapter {
  /** `signal` aborts when the attempt is cancelled (timed out, worker shutting down): stop waiting then. */
  send(transfer: ChainTransfer, signal?: AbortSignal): Promise<SentTransfer>;
  /** Only for adapters whose send() answers checkInMs. */
  transferStatus?(transfer: ChainTransfer, signal?: AbortSignal): Promise<TransferStatus>;
}

/** The network refused the transfer for good (bad address on chain, frozen contract …): do not retry. */
export class ChainRejected extends Error {
  override readonly name = 'ChainRejected';
}

/** A temporary failure (node unreachable, rate limit, timeout): retry later with the same withdrawal id. */
export class ChainUnavailable extends Error {
  override readonly name = 'ChainUnavailable';
}
