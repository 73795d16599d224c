/**
 * The merchant's events feed: every event the gateway emitted for the merchant, oldest
 * first in outbox order, in the V2 webhook envelope — so a merchant whose endpoint was down can
 * reconcile what it missed by itself. Pages are `{ data, next_page_token }`; unlike a listing the
 * token is never empty: the last page's token marks where the merchant stands and stays valid,
 * so resuming from it later answers only what came after.
 */
import type { AppDeps } from '../deps';
import { v2Envelope } from '../../domain/events/webhook-envelope';
import { listMerchantEvents } from '../../db/queries/outbox';
import { cardDataRing, openEventPayload } from '../../db/queries/requisite-secrets';
import { clampPageSize, decodePageToken, encodePageToken } from './page-token';

/** The token's content: a feed position (digits). */
interface FeedCursor {
  p: string;
}
const isFeedCursor = (value: unknown): value is FeedCursor =>
  typeof value === 'object' && value !== null && typeof (value as FeedCursor).p === 'string' && /^\d{1,19}$/.test((value as FeedCursor).p);

export interface EventFeedQuery {
  types?: string[];
  page_size?: number;
  page_token?: string;
}

export async function listEvents(deps: AppDeps, merchantId: string, q: EventFeedQuery) {
  const scope = `events:${merchantId}`;
  const after = q.page_token ? BigInt(decodePageToken(deps, q.page_token, scope, isFeedCursor).p) : 0n;
  const size = clampPageSize(q.page_size);
  const { rows, horizon } = await listMerchantEvents(deps.sql, merchantId, { after, types: q.types, limit: size + 1 });
  const page = rows.slice(0, size);
  // The outbox keeps a PayOut's recipient sealed; the merchant's feed shows it in full.
  const ring = cardDataRing(deps.config);
  // More after this page: continue after its last event. Otherwise everything up to the
  // merchant's newest event has been read (events of other types included): stand there.
  const last = page[page.length - 1];
  const position = rows.length > size && last ? BigInt(last.position) : [after, BigInt(horizon), BigInt(last?.position ?? 0)].reduce((a, b) => (b > a ? b : a));
  return {
    data: page.map((row) => v2Envelope({ ...row, payload: openEventPayload(ring, row.payload) })),
    next_page_token: encodePageToken(deps, { p: position.toString() } satisfies FeedCursor, scope),
  };
}
