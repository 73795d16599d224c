/**
 * Sandbox merchants: what the built-in sandbox trader does with a deal, read from the
 * last two digits of its amount in minor units (docs/sandbox.md has the table). Pure: the matcher
 * (db/queries/matching.ts), the sandbox trader's workflow and the docs read the same table. Only
 * a sandbox merchant's deals ever reach it: a live merchant's amounts mean nothing.
 */

export type SandboxPayinScenario =
  /** …00: the payer pays (notifies, as the checkout page's "I paid"), the trader's virtual bank device's credit confirms it after a few seconds (COMPLETED). */
  | 'complete'
  /** …05: the trader rejects the payment (CANCELLED). */
  | 'reject'
  /** …33: nobody pays (EXPIRED at the payment timeout). */
  | 'expire'
  /** …14: the trader received another amount: the amount changes (deal.amount_changed), then the credit of the new amount confirms it (COMPLETED). */
  | 'change_amount'
  /** …51: no requisite is available: the create is refused with the spec's no-trader error. */
  | 'no_requisite'
  /** Any other ending: the trader does nothing (the deal waits, as a live one with a silent trader). */
  | 'none';

export type SandboxPayoutScenario =
  /** …00: the trader takes it, sends the fiat and completes it (COMPLETED). */
  | 'complete'
  /** …05: the trader takes it and rejects it (FAILED, the hold returned). */
  | 'reject'
  /** …33: no trader takes it (UNASSIGNED, EXPIRED at the assignment SLA). */
  | 'unassigned'
  | 'none';

export type SandboxWithdrawalScenario = 'complete' | 'fail';

/** The last two digits of an amount in minor units (0–99). */
const amountEnding = (amount: bigint): number => Number(((amount % 100n) + 100n) % 100n);

/**
 * What the last two digits of a sandbox deal's amount make the sandbox trader do (docs/sandbox.md
 * has the same table for merchants); an ending not listed: nothing ('none').
 */
const SANDBOX_PAYIN_ENDINGS: Readonly<Record<number, Exclude<SandboxPayinScenario, 'none'>>> = {
  0: 'complete',
  5: 'reject',
  33: 'expire',
  14: 'change_amount',
  51: 'no_requisite',
};
const SANDBOX_PAYOUT_ENDINGS: Readonly<Record<number, Exclude<SandboxPayoutScenario, 'none'>>> = {
  0: 'complete',
  5: 'reject',
  33: 'unassigned',
};

export const sandboxPayinScenario = (amount: bigint): SandboxPayinScenario => SANDBOX_PAYIN_ENDINGS[amountEnding(amount)] ?? 'none';
export const sandboxPayoutScenario = (amount: bigint): SandboxPayoutScenario => SANDBOX_PAYOUT_ENDINGS[amountEnding(amount)] ?? 'none';

/** Withdrawals: …05 fails on the simulated chain (refunded), anything else completes. */
export const sandboxWithdrawalScenario = (amount: bigint): SandboxWithdrawalScenario => (amountEnding(amount) === 5 ? 'fail' : 'complete');

/** Whether the sandbox trader takes a deal at all (…51 PayIns and …33 PayOuts find no requisite). */
export function sandboxTraderTakes(dealType: 'PAYIN' | 'PAYOUT', amount: bigint): boolean {
  return dealType === 'PAYIN' ? sandboxPayinScenario(amount) !== 'no_requisite' : sandboxPayoutScenario(amount) !== 'unassigned';
}

/** The amount the sandbox trader reports for a …14 PayIn: 90 % of the deal's, rounded down (at least 1). */
export const sandboxReceivedAmount = (amount: bigint): bigint => {
  const received = (amount * 9n) / 10n;
  return received > 0n ? received : 1n;
};

/**
 * Appeals: the evidence text decides what the sandbox arbiter does. It first takes the appeal into
 * review (appeal.in_review) and writes a short message (appeal.message), then resolves it
 * (winning_evidence → SATISFIED, losing_evidence → REJECTED; appeal.resolved) or closes it
 * (closing_evidence; appeal.closed — an appeal whose deal is terminal: a held, APPEALED deal waits
 * for a resolution and its close is refused, as for a human arbiter).
 */
const SANDBOX_WINNING_EVIDENCE = 'winning_evidence';
const SANDBOX_LOSING_EVIDENCE = 'losing_evidence';
const SANDBOX_CLOSING_EVIDENCE = 'closing_evidence';
/** A merchant's message with this text on a CLOSED sandbox appeal: the sandbox arbiter reopens it first (appeal.reopened). */
export const SANDBOX_REOPEN_REQUEST = 'reopen_please';
export type SandboxAppealOutcome = 'SATISFIED' | 'REJECTED' | 'CLOSED';
export function sandboxAppealOutcome(text: string): SandboxAppealOutcome | undefined {
  if (text.includes(SANDBOX_WINNING_EVIDENCE)) return 'SATISFIED';
  // Before losing_evidence, which it contains.
  if (text.includes(SANDBOX_CLOSING_EVIDENCE)) return 'CLOSED';
  if (text.includes(SANDBOX_LOSING_EVIDENCE)) return 'REJECTED';
  return undefined;
}
/** The sandbox arbiter's message in the appeal's thread before it decides (appeal.message). */
export const sandboxArbiterMessage = (outcome: SandboxAppealOutcome): string =>
  `Sandbox arbiter: the evidence was reviewed; the appeal will be ${outcome === 'CLOSED' ? 'closed' : `resolved ${outcome}`}.`;

/** The table as docs/sandbox.md and the OpenAPI description show it. */
const SANDBOX_TABLE = [
  [
    'PayIn',
    '…00',
    'the payer reports the payment (deal.payment_notified), then the trader’s virtual bank device sends the bank’s credit, which confirms the deal, after a few seconds',
    'COMPLETED',
  ],
  ['PayIn', '…05', 'the trader rejects the payment', 'CANCELLED'],
  ['PayIn', '…33', 'nobody pays', 'EXPIRED at the payment timeout'],
  [
    'PayIn',
    '…14',
    'the payer reports the payment, the trader received 90 % of the amount: the amount changes (deal.amount_changed), then the virtual bank device’s credit of the new amount confirms it',
    'COMPLETED',
  ],
  ['PayIn', '…51', 'no requisite is available', 'create refused: 400 FAILED_PRECONDITION (no trader is available …)'],
  ['PayOut', '…00', 'the trader takes it and completes it', 'COMPLETED'],
  ['PayOut', '…05', 'the trader takes it and rejects it', 'FAILED (hold returned)'],
  ['PayOut', '…33', 'no trader takes it', 'EXPIRED at the assignment SLA'],
] as const;

export const sandboxTableMarkdown = (): string =>
  ['| deal | amount ends in | what the sandbox trader does | result |', '|---|---|---|---|', ...SANDBOX_TABLE.map((r) => `| ${r.join(' | ')} |`)].join('\n');
