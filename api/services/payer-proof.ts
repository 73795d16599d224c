/**
 * The payer's proof of payment from the hosted page: a receipt (image or PDF, through the evidence
 * pipeline of api/services/files.ts: its size cap, its type sniffing, its storage) and/or the last
 * four digits of the card paid with. Proof is evidence beside the deal, never a move of it: the
 * deal's state stays its workflow's. The operator's and the merchant's views read it back.
 */
import type { AppDeps } from '../deps';
import { FailedPrecondition, InvalidArgument } from '../../domain/errors';
import { PAYER_PROOFS_PER_DEAL, payerProofAccepted, payerReference } from '../../domain/state/payer-page';
import type { CheckoutRow } from '../../db/queries/deals';
import { claimPayerProofSlot, payerProofsOf } from '../../db/queries/payer-proofs';
import { findDeal } from '../../db/queries/deals';
import { storeFile } from './files';

/** What a receipt may be: a photo or screenshot, or a bank's PDF. */
const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] as const;

export interface PayerProofInput {
  receipt?: { bytes: Buffer; fileName: string };
  /** Exactly four digits, or absent. */
  cardLast4?: string;
}

const CARD_LAST4 = /^[0-9]{4}$/;

/** The deal has all the proofs it takes. */
export class ProofLimitReached extends FailedPrecondition {
  constructor() {
    super(`this payment already has ${PAYER_PROOFS_PER_DEAL} proofs of payment; no more can be added`);
  }
}
/** Neither a receipt nor the card's digits. */
export class ProofMissing extends InvalidArgument {
  constructor() {
    super('send a receipt or the last 4 digits of the card');
  }
}
/** The card's digits are not four digits. */
export class CardDigitsInvalid extends InvalidArgument {
  constructor() {
    super('card_last4 must be exactly 4 digits', [{ field: 'card_last4', message: 'must be exactly 4 digits', code: 'invalid_string' }]);
  }
}
const limitReached = () => new ProofLimitReached();

/**
 * Refusals of a proof that need no storage: checked before anything is stored (and before "I
 * paid" is sent with it), so a refused proof changes nothing.
 */
function checkPayerProof(row: Pick<CheckoutRow, 'status' | 'proof_count'>, input: PayerProofInput): void {
  if (input.cardLast4 !== undefined && !CARD_LAST4.test(input.cardLast4)) throw new CardDigitsInvalid();
  if (!input.receipt && input.cardLast4 === undefined) throw new ProofMissing();
  if (!payerProofAccepted(row.status)) throw new FailedPrecondition(`deal is ${row.status}; proof of payment is no longer taken`);
  if (row.proof_count >= PAYER_PROOFS_PER_DEAL) throw limitReached();
}

/** Stores one submission: the receipt's file row and the deal's slot commit together, or neither (the bytes are then removed). */
export async function addPayerProof(deps: AppDeps, row: CheckoutRow, input: PayerProofInput): Promise<void> {
  checkPayerProof(row, input);
  const cardLast4 = input.cardLast4 ?? null;
  if (input.receipt) {
    await storeFile(deps, { kind: 'payer', dealId: row.id }, input.receipt.bytes, input.receipt.fileName, undefined, {
      types: RECEIPT_TYPES,
      alsoInTransaction: async (tx, file) => {
        if ((await claimPayerProofSlot(tx, { dealId: row.id, fileId: file.id, cardLast4 }, PAYER_PROOFS_PER_DEAL)) === undefined) throw limitReached();
      },
    });
    return;
  }
  await deps.sql.begin(async (tx) => {
    if ((await claimPayerProofSlot(tx, { dealId: row.id, fileId: null, cardLast4 }, PAYER_PROOFS_PER_DEAL)) === undefined) throw limitReached();
  });
}

export interface PayerProofView {
  reference: string;
  card_last4: string;
  receipts: Array<{ file_id: string; content_type: string; size: string; file_name: string; created_at: string }>;
  submitted_at: string;
}

/** What the payer sent, as the operator and the merchant see it (empty for a deal without a page). */
export async function payerProofView(deps: AppDeps, deal: { id: string; checkout_hash: string | null }): Promise<PayerProofView> {
  const proofs = deal.checkout_hash ? await payerProofsOf(deps.sql, deal.id) : [];
  const withCard = proofs.filter((p) => p.card_last4);
  return {
    reference: deal.checkout_hash ? payerReference(deal.checkout_hash) : '',
    card_last4: withCard[withCard.length - 1]?.card_last4 ?? '',
    receipts: proofs
      .filter((p) => p.file_id)
      .map((p) => ({
        file_id: p.file_id!,
        content_type: p.content_type ?? '',
        size: (p.size ?? 0n).toString(),
        file_name: p.file_name ?? '',
        created_at: p.created_at.toISOString(),
      })),
    submitted_at: proofs[proofs.length - 1]?.created_at.toISOString() ?? '',
  };
}

/** The same, by the deal's id (an appeal names its deal). */
export async function payerProofOfDeal(deps: AppDeps, dealId: string): Promise<PayerProofView> {
  const deal = await findDeal(deps.sql, dealId);
  return payerProofView(deps, { id: dealId, checkout_hash: deal?.checkout_hash ?? null });
}
