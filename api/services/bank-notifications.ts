/**
 * Bank notifications forwarded by paired devices (docs/bank-notifications.md). A notification is
 * stored once, by its hash (a resend answers the stored one), in the transaction that spends its
 * sequence number (a replay of an older message is 409), with its text and the payer's name sealed.
 * The bank's parser reads it there; a credit starts its workflow (workflows/bank-notification.ts),
 * which matches it exactly to one live PayIn and confirms the deal through the deal's workflow.
 * What matches nothing waits in the operators' queue with the deals it could be for; an operator
 * attaches it to a deal (the trader's confirmation with its amount, as the operator) or dismisses it.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, NotFound } from '../../domain/errors';
import { parseBankNotification } from '../../domain/bank-notifications/parse';
import { PAYIN_TERMINAL, payinRefusal } from '../../domain/state/payin';
import { insertAudit } from '../../db/queries/audit';
import {
  attachToDeal,
  candidateDeals,
  detachFromDeal,
  dismiss,
  findNotification,
  listNotifications,
  notificationNames,
  notificationOfDeal,
  openNotification,
  staleReceived,
  storeNotification,
  type NotificationRow,
  type NotificationStatus,
  type QueueRow,
} from '../../db/queries/bank-notifications';
import { cardDataRing } from '../../db/queries/requisite-secrets';
import { startBankNotificationRun } from '../../temporal/bank-notification';
import { confirmReceivedUpdate, payinWorkflowId, type PayinWorkflow } from '../../workflows/contracts/payin';
import { closedRejects, updateDeal } from './deal-workflows';
import { usedSequence } from './bank-devices';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

/** Starts the notification's workflow; a run already started (the API's, the sweep's) is the same run. */
async function startNotificationWorkflow(deps: Pick<AppDeps, 'temporal' | 'config'>, notificationId: string): Promise<void> {
  await startBankNotificationRun(deps.temporal, deps.config, notificationId);
}

export interface IncomingNotification {
  sequence: number;
  sender: string;
  text: string;
  received_at: string;
}

/**
 * A device's notification: stored (or answered again when its hash is known), parsed, and — a
 * credit — handed to its workflow. Its sequence number must be one the device never used (a
 * captured request sent again is its stored twin, answered as such; a new message under a used
 * number is 409). The device's row lock orders its messages: of two with one number one is stored.
 */
export async function receiveNotification(deps: AppDeps, device: { deviceId: string; traderId: string }, body: IncomingNotification) {
  const sequence = BigInt(body.sequence);
  const parsed = parseBankNotification({ sender: body.sender, text: body.text });
  const stored = await storeNotification(
    deps.sql,
    cardDataRing(deps.config),
    device,
    { sequence, sender: body.sender, text: body.text, receivedAt: new Date(body.received_at) },
    parsed,
  );
  if (stored === 'not_paired') throw new Conflict('this device is not paired any more');
  if (stored === 'used_sequence') throw usedSequence(sequence);
  const { row, replayed } = stored;
  if (!replayed) {
    deps.metrics?.bankNotificationsParsed.inc({
      bank: parsed.parser || 'unknown',
      version: String(parsed.version),
      result: parsed.credit ? 'credit' : 'nothing',
    });
  }
  if (row.status === 'RECEIVED') await startNotificationWorkflow(deps, row.id);
  return { notification_id: row.id, status: row.status, replayed };
}

/** The sweep: a stored credit whose workflow never started (the API died between) gets it started. */
export async function restartStaleNotifications(deps: Pick<AppDeps, 'temporal' | 'config' | 'sql'>, olderThanSeconds = 30): Promise<number> {
  const stale = await staleReceived(deps.sql, olderThanSeconds);
  for (const n of stale) await startNotificationWorkflow(deps, n.id);
  return stale.length;
}

// ---- Reading them ----

const QUEUE: readonly NotificationStatus[] = ['UNMATCHED', 'UNPARSED'];
const ALL: readonly NotificationStatus[] = ['RECEIVED', 'MATCHED', 'UNMATCHED', 'UNPARSED', 'IGNORED', 'ATTACHED', 'DISMISSED'];

async function present(deps: AppDeps, row: QueueRow | (NotificationRow & { trader_name: string; device_name: string }), withCandidates: boolean) {
  const opened = openNotification(cardDataRing(deps.config), row);
  const candidates = withCandidates && row.currency ? (await candidateDeals(deps.sql, row)).slice(0, 10) : undefined;
  return {
    notification_id: row.id,
    status: row.status,
    reason: row.reason,
    trader_id: row.trader_id,
    trader_name: row.trader_name,
    device_id: row.device_id,
    device_name: row.device_name,
    sender: row.sender,
    text: opened.text,
    received_at: row.received_at.toISOString(),
    parser: row.parser,
    parser_version: row.parser_version,
    amount: row.amount === null ? '' : row.amount.toString(),
    currency: row.currency ?? '',
    payer_name: opened.payer_name,
    card_tail: row.card_tail,
    deal_id: row.deal_id ?? '',
    resolved_by: row.resolved_by,
    resolution_note: row.resolution_note,
    created_at: row.created_at.toISOString(),
    ...(candidates
      ? {
          candidates: candidates.map((d) => ({
            deal_id: d.id,
            merchant_name: d.merchant_name,
            status: d.status,
            amount_to_pay: d.amount_to_pay.toString(),
            currency: d.currency,
            exact_amount: d.amount_to_pay === row.amount,
            created_at: d.created_at.toISOString(),
            payment_timeout_at: d.payment_timeout_at.toISOString(),
            settlement_path: PAYIN_TERMINAL.includes(d.status as never) && d.status !== 'COMPLETED',
          })),
        }
      : {}),
  };
}

export interface NotificationQuery {
  status?: 'queue' | NotificationStatus | undefined;
  trader_id?: string | undefined;
  page_size?: number | undefined;
  page_token?: string | undefined;
}

/** A page of notifications, newest first: the operators' queue (with candidates), or a trader's own (scope). */
export async function listBankNotifications(deps: AppDeps, query: NotificationQuery, scope: { traderId?: string } = {}) {
  const statuses = query.status === undefined || query.status === 'queue' ? QUEUE : query.status === 'RECEIVED' ? ['RECEIVED' as const] : [query.status];
  const traderId = scope.traderId ?? query.trader_id;
  const tokenScope = `bank-notifications:${scope.traderId ?? 'operators'}`;
  const size = clampPageSize(query.page_size, 50, 200);
  const rows = await listNotifications(deps.sql, {
    statuses: scope.traderId && query.status === undefined ? ALL : statuses,
    traderId,
    after: cursorOf(deps, tokenScope, query.page_token),
    limit: size + 1,
  });
  const page = keysetPage(deps, tokenScope, rows, size);
  const withCandidates = scope.traderId === undefined;
  return { data: await Promise.all(page.rows.map((r) => present(deps, r, withCandidates && QUEUE.includes(r.status)))), next_page_token: page.next_page_token };
}

async function named(deps: AppDeps, row: NotificationRow) {
  return { ...row, ...(await notificationNames(deps.sql, row)) };
}

export async function getBankNotification(deps: AppDeps, notificationId: string) {
  const row = await findNotification(deps.sql, notificationId);
  if (!row) throw new NotFound('bank notification not found');
  return { notification: await present(deps, await named(deps, row), true) };
}

/** The notification that confirmed a deal, for the deal's timeline in the console (null: none did). */
export async function dealBankNotification(deps: Pick<AppDeps, 'sql'>, dealId: string) {
  const row = await notificationOfDeal(deps.sql, dealId);
  if (!row || (row.status !== 'MATCHED' && row.status !== 'ATTACHED')) return null;
  const names = await notificationNames(deps.sql, row);
  return {
    notification_id: row.id,
    status: row.status,
    device_id: row.device_id,
    device_name: names.device_name,
    trader_name: names.trader_name,
    received_at: row.received_at.toISOString(),
    parser: row.parser,
    amount: row.amount?.toString() ?? '',
    currency: row.currency ?? '',
  };
}

// ---- The operators' moves ----

/**
 * Attaches a queued credit to a deal: the notification is claimed first (one statement: of two
 * operators, or of two deals, one wins; a deal another notification confirmed already is 409),
 * then the deal's workflow gets the trader's confirmation with the credit's amount — a partial or
 * overpaid one stays PAYMENT_VERIFIED for the operator, as the state table says. A deal that
 * refuses (it ended) gives the notification back to the queue and answers 409: late money for an
 * EXPIRED deal is settled through an appeal of the deal.
 */
export async function attachNotification(deps: AppDeps, notificationId: string, dealId: string, note: string, actor: AuditActor) {
  const row = await findNotification(deps.sql, notificationId);
  if (!row) throw new NotFound('bank notification not found');
  if (!QUEUE.includes(row.status)) throw new Conflict(`bank notification is ${row.status}: only UNMATCHED and UNPARSED ones wait for an operator`);
  if (row.amount === null) throw new Conflict('nothing was read from this notification (no amount): dismiss it, or have the trader confirm the deal');
  const deal = (await candidateDeals(deps.sql, row)).find((d) => d.id === dealId);
  if (!deal) throw new NotFound("deal not found among this notification's candidates (the PayIns of the device's requisites in its currency)");
  const refused = payinRefusal('confirm_payment', deal.status);
  if (refused) {
    throw new Conflict(
      PAYIN_TERMINAL.includes(deal.status as never) && deal.status !== 'COMPLETED'
        ? `deal is ${deal.status}: money that arrived after the deal ended is settled through an appeal of the deal (settlement), not by attaching it`
        : refused.message,
    );
  }
  const claimed = await deps.sql.begin(async (tx) => {
    const c = await attachToDeal(tx, notificationId, { dealId, requisiteId: deal.requisite_id, by: actor.id, note });
    if (c === 'deal_taken') throw new Conflict('another bank notification confirmed this deal already: this one may be a second payment (look at both)');
    if (c)
      await insertAudit(tx, actor, {
        action: 'bank_notification.attach',
        objectType: 'bank_notification',
        objectId: notificationId,
        after: { deal_id: dealId, note },
      });
    return c;
  });
  if (!claimed) throw new Conflict('bank notification was decided by someone else meanwhile');
  try {
    await updateDeal<PayinWorkflow>(
      deps,
      payinWorkflowId(dealId),
      dealId,
      (h: WorkflowHandle<PayinWorkflow>) => h.executeUpdate(confirmReceivedUpdate, { args: [row.amount!.toString(), actor] }),
      closedRejects,
    );
  } catch (error) {
    await detachFromDeal(deps.sql, notificationId, row);
    throw error instanceof Error && 'kind' in error && (error as { kind: string }).kind === 'FAILED_PRECONDITION' ? new Conflict(error.message) : error;
  }
  return getBankNotification(deps, notificationId);
}

/** Closes a queued notification with the operator's reason (a test message, a transfer between own accounts, a duplicate). */
export async function dismissNotification(deps: AppDeps, notificationId: string, note: string, actor: AuditActor) {
  await deps.sql.begin(async (tx) => {
    if (!(await dismiss(tx, notificationId, actor.id, note))) {
      const row = await findNotification(tx, notificationId);
      if (!row) throw new NotFound('bank notification not found');
      throw new Conflict(`bank notification is ${row.status}: only UNMATCHED and UNPARSED ones wait for an operator`);
    }
    await insertAudit(tx, actor, { action: 'bank_notification.dismiss', objectType: 'bank_notification', objectId: notificationId, after: { note } });
  });
  return getBankNotification(deps, notificationId);
}
