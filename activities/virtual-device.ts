/**
 * The sandbox's virtual bank device (docs/bank-notifications.md, "Virtual bank device"): for a
 * sandbox PayIn the sandbox trader would confirm, it sends the credit the requisite's bank would
 * push to a real trader's phone — in the bank's own words (domain/bank-notifications/virtual.ts),
 * signed with the device's key (derived from the worker's secret, never stored) — through the path
 * a real device's notification takes after the API's door: stored by its hash with the device's
 * next sequence number (storeNotification, the API's own), read by the bank's parser, then its
 * workflow (temporal/bank-notification.ts) matches it exactly to the deal and confirms it with the
 * device as the actor. So a sandbox merchant's deal is confirmed by a bank notification, with no
 * person acting.
 *
 * Why in the worker and not by an HTTP POST to the API's device route: the device's sequence must
 * be taken atomically by concurrent sandbox deals (one statement, in the store's transaction) — a
 * POST carries a number chosen before it is sent, which a concurrent one may overtake (409) — and
 * the worker has no reliable address of the API (CHECKOUT_BASE_URL is the payer's public one). The
 * request is still signed and checked against the paired public key, as the device route checks it.
 */
import { amountToPay, payinRefusal } from '../domain/state/payin';
import { deviceSignatureValid, signDeviceRequest, virtualDeviceKeys } from '../domain/crypto/device-signature';
import { parseBankNotification } from '../domain/bank-notifications/parse';
import { virtualBankOf, virtualCredit } from '../domain/bank-notifications/virtual';
import { findDeal } from '../db/queries/deals';
import { dismiss, storeNotification } from '../db/queries/bank-notifications';
import { cardDataRing } from '../db/queries/requisite-secrets';
import { sandboxCreditTarget, virtualDeviceFor } from '../db/queries/sandbox';
import { startBankNotificationRun } from '../temporal/bank-notification';
import type { BankNotificationOutcome } from '../workflows/contracts/bank-notification';
import type { ActivityDeps } from './deps';

/** The device route a real device signs its notifications for. */
const NOTIFICATIONS_TARGET = '/api/v1/p2p/device/notifications';

/**
 * What became of the credit: 'confirmed' (it matched the deal and the deal took its amount),
 * 'refused' (the deal no longer takes a confirmation: nothing sent), or 'not_matched' with why — the
 * caller then confirms by hand, as before the virtual device (an amount two live sandbox deals of
 * one requisite share, a parser that reads nothing), and the notification is dismissed.
 */
export type VirtualCreditResult = { result: 'confirmed' | 'refused' } | { result: 'not_matched'; reason: string };

/** Who closes a virtual credit the exact match could not use (the dismissal's resolved_by). */
const SANDBOX_TRADER = 'sandbox-trader';

export async function sendVirtualCredit(deps: ActivityDeps, dealId: string, receivedAt: string): Promise<VirtualCreditResult> {
  const temporal = deps.temporal;
  if (!temporal) throw new Error('the virtual bank device needs the worker’s Temporal client');
  const deal = await findDeal(deps.sql, dealId);
  if (!deal?.sandbox || deal.deal_type !== 'PAYIN') return { result: 'refused' };
  if (payinRefusal('confirm_payment', deal.status)) return { result: 'refused' };
  const target = await sandboxCreditTarget(deps.sql, dealId);
  const keys = virtualDeviceKeys(deps.config.SECRETS_ENCRYPTION_KEY, deal.tenant_id);
  const device = await virtualDeviceFor(deps.sql, deal.tenant_id, keys.publicKey);
  if (!target || !device || target.device_id !== device.id || device.status !== 'ACTIVE') return { result: 'not_matched', reason: 'no_virtual_device' };
  const bank = virtualBankOf(target);
  if (!bank) return { result: 'not_matched', reason: 'no_bank_template' };
  const credit = virtualCredit(bank, amountToPay(deal), target.tail);

  // The request as the device signs it; checked with the paired key as the device route checks it (a key that no longer pairs sends nothing).
  const body = JSON.stringify({ sender: credit.sender, text: credit.text, received_at: receivedAt });
  const timestamp = Math.floor(Date.now() / 1000);
  const request = { timestamp, method: 'POST', target: NOTIFICATIONS_TARGET, body };
  if (!deviceSignatureValid(device.public_key, signDeviceRequest(keys.secretKey, request), request)) {
    throw new Error('the virtual bank device’s key does not verify against its paired public key');
  }

  const stored = await storeNotification(
    deps.sql,
    cardDataRing(deps.config),
    { deviceId: device.id, traderId: device.trader_id },
    { sequence: 'next', sender: credit.sender, text: credit.text, receivedAt: new Date(receivedAt) },
    parseBankNotification({ sender: credit.sender, text: credit.text }),
  );
  if (stored === 'not_paired') return { result: 'not_matched', reason: 'no_virtual_device' };
  // A number is taken under the device's row lock: a used one means another writer numbered this device's messages (retried).
  if (stored === 'used_sequence') throw new Error('the virtual bank device’s next sequence number was used');
  let outcome: BankNotificationOutcome = {
    status: stored.row.status,
    reason: stored.row.reason,
    ...(stored.row.deal_id ? { dealId: stored.row.deal_id } : {}),
  };
  if (stored.row.status === 'RECEIVED' || stored.row.status === 'MATCHED') {
    outcome = await (await startBankNotificationRun(temporal, deps.config, stored.row.id)).result();
  }
  if (outcome.status === 'MATCHED' && outcome.dealId === dealId) return { result: 'confirmed' };
  // Not this deal's confirmation: a sandbox credit never waits in the operators' queue.
  await dismiss(
    deps.sql,
    stored.row.id,
    SANDBOX_TRADER,
    `sandbox: the virtual device's credit was not matched (${outcome.reason || outcome.status}); the sandbox trader confirmed by hand`,
  );
  deps.log.info({ dealId, notificationId: stored.row.id, outcome }, 'virtual bank device: credit not matched, the sandbox trader confirms by hand');
  return { result: 'not_matched', reason: outcome.reason || outcome.status.toLowerCase() };
}
