/** Deadlines of a deal's activities; the API passes them from configuration (DEAL_*_TIMEOUT_MS). */
export interface StepTimeouts {
  /** One deal step: a single short transaction. A step on a worker that died is retried after this. */
  stepMs?: number;
  /** The create step (matching + escrow), a local activity the create call waits for. */
  createMs?: number;
}
