import type { Db } from '../sql';
import { eventIdFor } from '../../domain/ids';

export interface OutboxEvent {
  merchantId: string;
  dealId: string;
  type: string;
  /** Makes the event id unique per occurrence (e.g. the amount version); retries reuse it. */
  discriminator: string | number;
  payload: Record<string, unknown>;
}

/** Writes an event in the caller's transaction; a retried step writes nothing new. */
export async function writeOutboxEvent(tx: Db, event: OutboxEvent): Promise<void> {
  await tx`
    insert into outbox_events (id, merchant_id, deal_id, event_type, payload)
    values (${eventIdFor(event.dealId, event.type, event.discriminator)}, ${event.merchantId}, ${event.dealId},
      ${event.type}, ${tx.json(event.payload as never)})
    on conflict (id) do nothing`;
}
