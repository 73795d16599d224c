/**
 * The bytes of uploads read before their signature is checked, in flight in this API process, per
 * merchant and in total: the counter behind the rule of api/auth/unverified-uploads.ts.
 */
export interface UploadBudgetLimits {
  perMerchant: number;
  total: number;
}

export class UploadBudget {
  #total = 0;
  readonly #byMerchant = new Map<string, number>();

  constructor(readonly limits: UploadBudgetLimits) {}

  static fromConfig(config: { UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: number; UNVERIFIED_UPLOAD_BYTES_TOTAL: number }): UploadBudget {
    return new UploadBudget({ perMerchant: config.UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT, total: config.UNVERIFIED_UPLOAD_BYTES_TOTAL });
  }

  /** Bytes in flight: the merchant's, or the process's. */
  inFlight(merchantId?: string): number {
    return merchantId === undefined ? this.#total : (this.#byMerchant.get(merchantId) ?? 0);
  }

  /** Reserves `bytes` for the merchant: a release (idempotent), or which budget is short. */
  reserve(merchantId: string, bytes: number): (() => void) | 'merchant' | 'total' {
    const mine = this.inFlight(merchantId);
    if (mine + bytes > this.limits.perMerchant) return 'merchant';
    if (this.#total + bytes > this.limits.total) return 'total';
    this.#byMerchant.set(merchantId, mine + bytes);
    this.#total += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#total -= bytes;
      const left = this.inFlight(merchantId) - bytes;
      if (left > 0) this.#byMerchant.set(merchantId, left);
      else this.#byMerchant.delete(merchantId);
    };
  }
}
