/**
 * Card, phone and IBAN numbers at rest: a requisite's and a PayOut recipient's are sealed here
 * (KeyRing, key ids so keys rotate) and opened here, nowhere else. Beside each sealed value the
 * row keeps what search and display need without it: the last four digits (card_tail,
 * phone_tail, target_tail) and a masked form ("•••• 1234").
 */
import { createHmac } from 'node:crypto';
import type { Config } from '../../config';
import { KeyRing } from '../../domain/crypto/key-ring';

/** The sandbox trader's requisite numbers: public fixtures, the same for every tenant, never stored. */
const SANDBOX_NUMBERS = { card_number: '4000000000000002', phone_number: '+70000000000', iban: 'XX00SANDBOX0000000000000000' } as const;

const rings = new WeakMap<object, KeyRing>();

/**
 * The key ring of card data: CARD_DATA_KEYS, or (unset) one key derived from
 * SECRETS_ENCRYPTION_KEY under the id `secrets` — a key of its own, never the secret box's.
 * One ring per loaded configuration.
 */
export function cardDataRing(config: Pick<Config, 'CARD_DATA_KEYS' | 'SECRETS_ENCRYPTION_KEY'>): KeyRing {
  let ring = rings.get(config);
  if (!ring) {
    ring = new KeyRing(
      config.CARD_DATA_KEYS ?? [
        { id: 'secrets', key: createHmac('sha256', Buffer.from(config.SECRETS_ENCRYPTION_KEY, 'base64')).update('card-data-v1').digest() },
      ],
    );
    rings.set(config, ring);
  }
  return ring;
}

/** The last four digits of a number, or null when it has fewer (the search's tail). */
export function digitsTail(value: string): string | null {
  const digits = value.replace(/[^0-9]/g, '');
  return digits.length >= 4 ? digits.slice(-4) : null;
}

/** "•••• 1234": the last four letters or digits of a number, the rest hidden; '' for none. */
export function maskNumber(value: string): string {
  const plain = value.replace(/[^0-9A-Za-z]/g, '');
  if (plain === '') return '';
  return `•••• ${plain.slice(-4)}`;
}

const seal = (ring: KeyRing, value: string, aad: string) => (value === '' ? null : ring.seal(value, aad));
const open = (ring: KeyRing, sealed: string | null, aad: string) => (sealed === null ? '' : ring.open(sealed, aad));

export interface RequisiteNumbers {
  card_number: string;
  phone_number: string;
  iban: string;
}

/** A requisite's numbers as stored: sealed, with the tails and the masked form beside them. */
export interface SealedRequisiteNumbers {
  card_sealed: string | null;
  phone_sealed: string | null;
  iban_sealed: string | null;
  card_tail: string | null;
  phone_tail: string | null;
  number_masked: string;
}

const requisiteAad = (requisiteId: string, column: keyof RequisiteNumbers) => `requisite:${requisiteId}:${column}`;

const displayColumns = (n: RequisiteNumbers) => ({
  card_tail: digitsTail(n.card_number),
  phone_tail: digitsTail(n.phone_number),
  number_masked: maskNumber(n.card_number || n.phone_number || n.iban),
});

export function sealRequisiteNumbers(ring: KeyRing, requisiteId: string, n: RequisiteNumbers): SealedRequisiteNumbers {
  return {
    card_sealed: seal(ring, n.card_number, requisiteAad(requisiteId, 'card_number')),
    phone_sealed: seal(ring, n.phone_number, requisiteAad(requisiteId, 'phone_number')),
    iban_sealed: seal(ring, n.iban, requisiteAad(requisiteId, 'iban')),
    ...displayColumns(n),
  };
}

const sandboxNumbers = (type: string): RequisiteNumbers => ({
  card_number: type === 'BANK_CARD' ? SANDBOX_NUMBERS.card_number : '',
  phone_number: type === 'SBP' || type === 'SIM' ? SANDBOX_NUMBERS.phone_number : '',
  iban: type === 'BANK_TRANSFER' ? SANDBOX_NUMBERS.iban : '',
});

/** The sandbox trader's requisite of a type as stored: nothing sealed (its numbers are public fixtures), tails and mask for search. */
export function sandboxRequisiteColumns(type: string): SealedRequisiteNumbers {
  return { card_sealed: null, phone_sealed: null, iban_sealed: null, ...displayColumns(sandboxNumbers(type)) };
}

/** A requisite's numbers in full, for the people who must see them (the payer's page, the operator, the trader). */
export function openRequisiteNumbers(
  ring: KeyRing,
  row: {
    id: string;
    requisite_type?: string | null;
    card_sealed: string | null;
    phone_sealed: string | null;
    iban_sealed: string | null;
    sandbox?: boolean | null;
  },
): RequisiteNumbers {
  if (row.sandbox) return sandboxNumbers(row.requisite_type ?? '');
  return {
    card_number: open(ring, row.card_sealed, requisiteAad(row.id, 'card_number')),
    phone_number: open(ring, row.phone_sealed, requisiteAad(row.id, 'phone_number')),
    iban: open(ring, row.iban_sealed, requisiteAad(row.id, 'iban')),
  };
}

/** A PayOut's recipient as stored: the number and the details sealed, the tail and the masked number beside them. */
export interface SealedPayoutTarget {
  target_sealed: string | null;
  target_tail: string | null;
  target_masked: string;
  requisite_details_sealed: string | null;
}

export function sealPayoutTarget(ring: KeyRing, dealId: string, targetRequisite: string, details: Record<string, string>): SealedPayoutTarget {
  return {
    target_sealed: seal(ring, targetRequisite, `deal:${dealId}:target_requisite`),
    target_tail: digitsTail(targetRequisite),
    target_masked: maskNumber(targetRequisite),
    requisite_details_sealed: Object.keys(details).length === 0 ? null : ring.seal(JSON.stringify(details), `deal:${dealId}:requisite_details`),
  };
}

/** The columns of a deal that hold its recipient sealed. */
export interface PayoutTargetColumns {
  id: string;
  target_sealed: string | null;
  requisite_details_sealed?: string | null;
}

/** A PayOut's recipient number in full (the merchant's own deal shows it unmasked); '' on a PayIn. */
function openPayoutTarget(ring: KeyRing, row: PayoutTargetColumns): string {
  return open(ring, row.target_sealed, `deal:${row.id}:target_requisite`);
}

/** A PayOut's requisite_details in full (echoed on its create); {} when it had none. */
export function openRequisiteDetails(ring: KeyRing, row: PayoutTargetColumns): Record<string, string> {
  if (!row.requisite_details_sealed) return {};
  return JSON.parse(ring.open(row.requisite_details_sealed, `deal:${row.id}:requisite_details`)) as Record<string, string>;
}

/** A deal row with its recipient opened into `target_requisite`, as the merchant's views of the deal read it. */
export function withTarget<T extends PayoutTargetColumns>(ring: KeyRing, row: T): T & { target_requisite: string } {
  return { ...row, target_requisite: openPayoutTarget(ring, row) };
}

/**
 * A deal row as its outbox events store it: a PayOut's target_requisite is the row's own sealed
 * value, so the outbox holds no recipient in clear; openEventPayload gives it back to the readers.
 */
export function withSealedTarget<T extends PayoutTargetColumns>(row: T): T & { target_requisite: string } {
  return { ...row, target_requisite: row.target_sealed ?? '' };
}

/** An outbox event's payload as the merchant (webhook, events feed) and the operator read it: the recipient opened. */
export function openEventPayload<T>(ring: KeyRing, payload: T): T {
  const deal = (payload as { deal?: { deal_id?: unknown; target_requisite?: unknown } } | null)?.deal;
  if (!deal || typeof deal.deal_id !== 'string' || typeof deal.target_requisite !== 'string' || !deal.target_requisite.startsWith('k1:')) return payload;
  const target_requisite = openPayoutTarget(ring, { id: deal.deal_id, target_sealed: deal.target_requisite });
  return { ...payload, deal: { ...deal, target_requisite } };
}
