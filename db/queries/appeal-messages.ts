/**
 * A message in an appeal's thread, written in one transaction with its `appeal.message` event (an
 * arbiter's message) and its audit row (an operator's or the sandbox arbiter's): the one writer the
 * merchant's and the operator's message routes (api/services/appeals.ts postMessage), the
 * sandbox arbiter's activity (activities/sandbox.ts) and the trader's answer step
 * (activities/appeals.ts answerAppealAsTrader) share.
 */
import type { Db } from '../sql';
import type { AuditActor } from '../../domain/audit';
import { appealView } from '../../domain/state/appeals';
import { dealEventPayload } from '../../domain/records/deal-info';
import { insertMessage, type AppealRow, type MessageRow, type SenderRole } from './appeals';
import { insertAudit } from './audit';
import { findDeal } from './deals';
import { writeOutboxEvent } from './outbox';

export const presentMessage = (m: MessageRow) => ({
  message_id: m.id,
  appeal_id: m.appeal_id,
  sender_role: m.sender_role,
  body: m.body,
  file_ids: m.file_ids,
  created_at: m.created_at.toISOString(),
});

export interface AppealMessageInput {
  id: string;
  senderRole: SenderRole;
  senderId: string;
  body: string;
  fileIds: string[];
}

/**
 * Writes the message; an ADMIN message also reaches the merchant as `appeal.message`. The same id a
 * second time (a retried step) answers the stored message and writes nothing.
 */
export async function writeAppealMessage(tx: Db, checkoutBaseUrl: string, appeal: AppealRow, m: AppealMessageInput, actor?: AuditActor): Promise<MessageRow> {
  const [existing] = await tx<MessageRow[]>`select * from appeal_messages where id = ${m.id}`;
  if (existing) return existing;
  const message = await insertMessage(tx, { id: m.id, appealId: appeal.id, senderRole: m.senderRole, senderId: m.senderId, body: m.body, fileIds: m.fileIds });
  if (m.senderRole === 'ADMIN') {
    const deal = (await findDeal(tx, appeal.deal_id))!;
    await writeOutboxEvent(tx, {
      merchantId: appeal.merchant_id,
      dealId: appeal.deal_id,
      type: 'appeal.message',
      discriminator: message.id,
      payload: { appeal: appealView(appeal), message: presentMessage(message), ...dealEventPayload(deal, checkoutBaseUrl) },
    });
  }
  if (actor) await insertAudit(tx, actor, { action: 'appeal.message', objectType: 'appeal', objectId: appeal.id, after: presentMessage(message) });
  return message;
}
