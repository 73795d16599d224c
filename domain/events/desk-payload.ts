/**
 * What the desk hook receives for one desk event (docs/console.md, "The desk's notifications"):
 *
 *   { "id": "desk_42", "type": "appeal.opened", "created_at": "…Z",
 *     "object": { "type": "appeal", "id": "<uuid>", "url": "<console>/console/appeals/<uuid>" },
 *     "merchant_id": "<uuid>" | null, "summary": { … }, "text": "New appeal: …" }
 *
 * `text` is one line for a chat (a Telegram or Slack bridge posts it as it is); `summary` has the
 * fields behind it (an appeal's deal_id, reason and respond_by; a withdrawal's amount in USDT
 * cents as digits, currency and address; an alert's alert_kind, message and deal_id or subject).
 */

export interface DeskEventSource {
  id: bigint;
  kind: string;
  object_type: string;
  object_id: string;
  merchant_id: string | null;
  summary: Record<string, unknown>;
  created_at: Date;
}

/** The console page of the event's object. */
const objectPath = (e: Pick<DeskEventSource, 'object_type' | 'object_id'>) =>
  e.object_type === 'appeal' ? `/appeals/${e.object_id}` : e.object_type === 'withdrawal' ? '/withdrawals' : '/alerts';

/** USDT cents as digits → "12 345.67". */
function usdt(cents: unknown): string {
  const digits = typeof cents === 'string' && /^\d+$/.test(cents) ? cents.padStart(3, '0') : '0';
  return `${digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')}.${digits.slice(-2)}`;
}

/** One line a person reads in a chat. */
export function deskEventText(e: DeskEventSource): string {
  const s = e.summary;
  const clip = (v: unknown, n = 200) => (typeof v === 'string' ? (v.length > n ? `${v.slice(0, n)}…` : v) : '');
  switch (e.kind) {
    case 'appeal.opened':
      return `New appeal on deal ${String(s.deal_id ?? '')}: ${clip(s.reason)}`;
    case 'appeal.reopened':
      return `Appeal reopened on deal ${String(s.deal_id ?? '')}`;
    case 'withdrawal.waiting':
      return `Withdrawal of ${usdt(s.amount)} USDT to ${String(s.address ?? '')} waits for approval`;
    case 'alert.raised':
      return `Alert ${String(s.alert_kind ?? '')}: ${clip(s.message)}`;
    default:
      return e.kind;
  }
}

export function deskEventPayload(e: DeskEventSource, consoleBaseUrl: string) {
  return {
    id: `desk_${e.id}`,
    type: e.kind,
    created_at: e.created_at.toISOString(),
    object: { type: e.object_type, id: e.object_id, url: `${consoleBaseUrl.replace(/\/+$/, '')}/console${objectPath(e)}` },
    merchant_id: e.merchant_id,
    summary: e.summary,
    text: deskEventText(e),
  };
}
