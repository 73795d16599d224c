/**
 * The chain adapter: how a withdrawal reaches the TRON network. Implementations must be
 * idempotent by withdrawal id — a second send() for the same id (a retry after a timeout or a
 * worker crash) returns the first transfer's hash and never transfers again. A real adapter gets
 * that by building and signing the transaction deterministically once, storing its txid before
 * broadcasting, and asking the node for that txid before broadcasting again.
 */
export interface ChainTransfer {
  withdrawalId: string;
  toAddress: string;
  /** What arrives at the address (the withdrawal's net), USDT cents. */
  amount: bigint;
}

export interface ChainAdapter {
  /** `signal` aborts when the attempt is cancelled (timed out, worker shutting down): stop waiting then. */
  send(transfer: ChainTransfer, signal?: AbortSignal): Promise<{ txHash: string }>;
}

/** The network refused the transfer for good (bad address on chain, frozen contract …): do not retry. */
export class ChainRejected extends Error {
  override readonly name = 'ChainRejected';
}

/** A temporary failure (node unreachable, rate limit, timeout): retry later with the same withdrawal id. */
export class ChainUnavailable extends Error {
  override readonly name = 'ChainUnavailable';
}
