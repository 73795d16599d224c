/**
 * The V2 event envelope: what a webhook POSTs and what the events feed lists —
 * `{ event_id, type, created_at, …payload }`, the payload's object under its own key (`deal`,
 * `appeal`, `withdrawal` …; `deal.amount_changed` adds `old_amount`, `amount`, `amount_version`).
 */
export interface StoredEvent {
  event_id: string;
  event_type: string;
  created_at: Date;
  payload: Record<string, unknown>;
}

export const v2Envelope = (e: StoredEvent): Record<string, unknown> => ({
  event_id: e.event_id,
  type: e.event_type,
  created_at: e.created_at.toISOString(),
  ...e.payload,
});
