/**
 * Keyset pages (newest first on (created_at, id)) under colliding timestamps, for every keyset
 * listing: rows with identical created_at and rows microseconds apart (several in one
 * millisecond), random page sizes, and rows inserted between pages or concurrently with a page's
 * read. Walking the pages through the services (page tokens included) must yield every row
 * exactly once, in order — and a row inserted mid-walk only when it sorts after the pages
 * already read (always, when it was committed before the next page was asked for).
 *
 * Timestamps are written as text (`::text::timestamptz`): a parameter the server types as
 * timestamptz goes through a JS Date in postgres.js, which keeps milliseconds only.
 */
import test from 'ava';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../api/deps';
import { listAppealPage } from '../../api/services/appeals';
import { listCallbacks } from '../../api/services/callbacks';
import { listMerchantDeals } from '../../api/services/deal-listing';
import { listMerchantPasses } from '../../api/services/passes';
import { listDeposits } from '../../api/services/wallet';
import { listMerchantWithdrawals, listOperatorWithdrawals } from '../../api/services/withdrawals';
import { loadConfig } from '../../config';
import { DEFAULT_TENANT_ID, insertMerchant } from '../../db/queries/merchants';
import { testSql } from '../helpers/app';
import { idPrefix } from '../../domain/ids';

const sql = testSql();
test.after.always(() => sql.end());
const deps = { config: loadConfig(process.env), sql, now: Date.now } as unknown as AppDeps;
const CARD_RUB = '20000000-0000-4000-8000-000000000001';

/** Microseconds since the epoch (exact in a double until the year 2255). */
const BASE_US = Date.parse('2026-04-01T10:00:00.000Z') * 1000;
const toText = (us: number) => `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z`;

interface Row {
  id: string;
  us: number;
  status: string;
  dealType: 'PAYIN' | 'PAYOUT';
}

/** The listing order: created_at desc, then id desc (uuid order is the order of its lower-case hex). */
const newerFirst = (a: Row, b: Row) => (a.us !== b.us ? b.us - a.us : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Offsets that collide: the same microsecond, a few µs apart, or within a few milliseconds. */
const offsetUs = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 3_000 }));

const row = (statuses: readonly string[]) =>
  fc.record({ offset: offsetUs, status: fc.constantFrom(...statuses), dealType: fc.constantFrom<'PAYIN' | 'PAYOUT'>('PAYIN', 'PAYOUT') });

const scenario = (statuses: readonly string[]) =>
  fc.record({
    rows: fc.array(row(statuses), { minLength: 1, maxLength: 40 }),
    pageSizes: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 6 }),
    /**
     * Rows inserted before the walk's page `beforePage` (1 = after the first page was read), or
     * while that page is being read (`concurrent`).
     */
    late: fc.array(fc.record({ beforePage: fc.integer({ min: 1, max: 8 }), concurrent: fc.boolean(), row: row(statuses) }), { maxLength: 12 }),
  });

type RowSpec = { offset: number; status: string; dealType: 'PAYIN' | 'PAYOUT' };
type Scenario = { rows: RowSpec[]; pageSizes: number[]; late: Array<{ beforePage: number; concurrent: boolean; row: RowSpec }> };

const materialise = (r: RowSpec): Row => ({
  id: randomUUID(),
  us: BASE_US + r.offset,
  status: r.status,
  dealType: r.dealType,
});

interface Listing {
  /** Statuses the rows may take (the first is the default). */
  statuses: readonly string[];
  /** Inserts rows for the merchant, created_at exactly as given. */
  insert: (merchantId: string, rows: Row[]) => Promise<void>;
  /** One page: the ids on it and the next token. */
  page: (merchantId: string, size: number, token: string | undefined) => Promise<{ ids: string[]; next: string }>;
  /** Which rows the listing selects (a filter). */
  selects?: (row: Row) => boolean;
}

const texts = (rows: Row[]) => ({
  ids: rows.map((r) => r.id),
  ts: rows.map((r) => toText(r.us)),
  statuses: rows.map((r) => r.status),
  types: rows.map((r) => r.dealType),
});

async function insertDeals(merchantId: string, rows: Row[]) {
  if (rows.length === 0) return;
  const t = texts(rows);
  await sql`
    insert into deals (id, tenant_id, merchant_id, deal_type, status, idempotency_key, amount, currency, payment_method_id,
      amount_usdt, exchange_rate_micro, created_at, updated_at)
    select id, ${DEFAULT_TENANT_ID}, ${merchantId}, deal_type, status, 'keyset-' || id, 1000, 'RUB', ${CARD_RUB}, 10, 92500000, ts::timestamptz, now()
    from unnest(${t.ids}::uuid[], ${t.ts}::text[], ${t.statuses}::text[], ${t.types}::text[]) as x(id, ts, status, deal_type)`;
}

const walletOf = async (merchantId: string) =>
  (await sql<{ id: string }[]>`select id from wallets where owner_type = 'merchant' and owner_id = ${merchantId} and currency = 'USDT'`)[0]!.id;

const LISTINGS: Record<string, Listing> = {
  deposits: {
    statuses: ['CONFIRMED', 'PENDING'],
    async insert(merchantId, rows) {
      const t = texts(rows);
      await sql`
        insert into deposits (id, merchant_id, wallet_id, amount, tx_hash, status, created_at)
        select id, ${merchantId}, ${await walletOf(merchantId)}, 100, 'keyset-' || id, status, ts::timestamptz
        from unnest(${t.ids}::uuid[], ${t.ts}::text[], ${t.statuses}::text[]) as x(id, ts, status)`;
    },
    async page(merchantId, size, token) {
      const p = await listDeposits(deps, merchantId, { page_size: size, page_token: token });
      return { ids: p.data.map((d) => d.deposit_id), next: p.next_page_token };
    },
  },
  withdrawals: {
    statuses: ['COMPLETED', 'CANCELLED'],
    async insert(merchantId, rows) {
      const t = texts(rows);
      await sql`
        insert into withdrawals (id, merchant_id, wallet_id, status, auto, address, amount, fee, net, dedup_key, dedup_generation, created_at, updated_at)
        select id, ${merchantId}, ${await walletOf(merchantId)}, status, true, 'T' || md5(id::text), 200, 100, 100, id::text, 0, ts::timestamptz, now()
        from unnest(${t.ids}::uuid[], ${t.ts}::text[], ${t.statuses}::text[]) as x(id, ts, status)`;
    },
    async page(merchantId, size, token) {
      const p = await listMerchantWithdrawals(deps, merchantId, { page_size: size, page_token: token });
      return { ids: p.data.map((d) => d.withdrawal_id), next: p.next_page_token };
    },
  },
  'operator withdrawals': {
    statuses: ['COMPLETED', 'CANCELLED'],
    insert: (merchantId, rows) => LISTINGS.withdrawals!.insert(merchantId, rows),
    async page(merchantId, size, token) {
      const p = await listOperatorWithdrawals(deps, { merchant_id: idPrefix(merchantId)!, status: ['CANCELLED'], page_size: size, page_token: token });
      return { ids: p.data.map((d) => d.withdrawal_id), next: p.next_page_token };
    },
    selects: (r) => r.status === 'CANCELLED',
  },
  passes: {
    statuses: ['ACTIVE', 'EXPIRED'],
    async insert(merchantId, rows) {
      const t = texts(rows);
      await sql`
        insert into passes (id, tenant_id, merchant_id, amount, status, expires_at, created_at, updated_at)
        select id, ${DEFAULT_TENANT_ID}, ${merchantId}, 1000, status, now() + interval '1 hour', ts::timestamptz, now()
        from unnest(${t.ids}::uuid[], ${t.ts}::text[], ${t.statuses}::text[]) as x(id, ts, status)`;
    },
    async page(merchantId, size, token) {
      const p = await listMerchantPasses(deps, merchantId, { status: ['ACTIVE'], page_size: size, page_token: token });
      return { ids: p.data.map((d) => d.pass_id), next: p.next_page_token };
    },
    selects: (r) => r.status === 'ACTIVE',
  },
  appeals: {
    statuses: ['CLOSED', 'RESOLVED_TRADER'],
    async insert(merchantId, rows) {
      const deals = rows.map((r) => ({ ...r, id: randomUUID(), status: 'COMPLETED' }));
      await insertDeals(merchantId, deals);
      const t = texts(rows);
      await sql`
        insert into appeals (id, tenant_id, merchant_id, deal_id, status, reason, deal_status_at_open, created_at, updated_at)
        select id, ${DEFAULT_TENANT_ID}, ${merchantId}, deal_id, status, 'keyset', 'COMPLETED', ts::timestamptz, now()
        from unnest(${t.ids}::uuid[], ${deals.map((d) => d.id)}::uuid[], ${t.ts}::text[], ${t.statuses}::text[]) as x(id, deal_id, ts, status)`;
    },
    async page(merchantId, size, token) {
      const p = await listAppealPage(deps, { merchantId, tokenScope: `appeals:${merchantId}` }, { page_size: size, page_token: token });
      return { ids: p.rows.map((a) => a.id), next: p.next_page_token };
    },
  },
  callbacks: {
    statuses: ['SUCCESS', 'ERROR'],
    async insert(merchantId, rows) {
      const events = rows.map(() => randomUUID());
      const t = texts(rows);
      await sql`
        insert into outbox_events (id, merchant_id, event_type, payload, dispatched_at)
        select id, ${merchantId}, 'deal.updated', '{}', now() from unnest(${events}::uuid[]) as x(id)`;
      await sql`
        insert into webhook_deliveries (id, merchant_id, event_id, event_type, url, status, created_at, updated_at)
        select id, ${merchantId}, event_id, 'deal.updated', 'http://127.0.0.1:9/keyset', status, ts::timestamptz, now()
        from unnest(${t.ids}::uuid[], ${events}::uuid[], ${t.ts}::text[], ${t.statuses}::text[]) as x(id, event_id, ts, status)`;
    },
    async page(merchantId, size, token) {
      const p = await listCallbacks(deps, merchantId, { page_size: size, page_token: token });
      return { ids: p.data.map((c) => c.callback_id), next: p.next_page_token };
    },
  },
};

const newMerchantId = () =>
  sql.begin((tx) =>
    insertMerchant(tx, {
      name: 'Keyset',
      email: `${randomUUID()}@example.test`,
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );

/**
 * Walks every page, inserting the late rows between pages or while a page is read, and checks:
 * the ids come strictly in the listing order (so none twice), every row present when the walk
 * started is there, a row inserted between pages is there exactly when it sorts after the last
 * row already shown, and a row inserted during a page's read is absent when it sorts before that
 * row (whether the read saw it otherwise depends on the commit order: either is right).
 */
async function walkAndCheck(listing: Listing, s: Scenario): Promise<string | undefined> {
  const merchantId = await newMerchantId();
  const initial = s.rows.map(materialise);
  await listing.insert(merchantId, initial);
  const late = s.late.map((l) => ({ ...l, row: materialise(l.row) }));
  const byId = new Map([...initial, ...late.map((l) => l.row)].map((r) => [r.id, r]));
  const selects = listing.selects ?? (() => true);
  const expected = new Set(initial.filter(selects).map((r) => r.id));
  const optional = new Set<string>();
  const seen: Row[] = [];
  let token: string | undefined;
  for (let page = 0; page < 500; page += 1) {
    let racing: Promise<void> = Promise.resolve();
    if (page > 0) {
      const position = seen[seen.length - 1]!;
      const before = late.filter((l) => l.beforePage === page && !l.concurrent).map((l) => l.row);
      await listing.insert(merchantId, before);
      for (const r of before) if (selects(r) && newerFirst(position, r) < 0) expected.add(r.id);
      const during = late.filter((l) => l.beforePage === page && l.concurrent).map((l) => l.row);
      for (const r of during) if (selects(r) && newerFirst(position, r) < 0) optional.add(r.id);
      racing = Promise.all(during.map((r) => listing.insert(merchantId, [r]))).then(() => undefined);
    }
    const size = s.pageSizes[page % s.pageSizes.length]!;
    const [{ ids, next }] = await Promise.all([listing.page(merchantId, size, token), racing]);
    if (ids.length > size) return `page ${page} has ${ids.length} rows for page_size ${size}`;
    if (next && ids.length < size) return `page ${page} is short (${ids.length} of ${size}) but has a next token`;
    for (const id of ids) {
      const r = byId.get(id);
      if (!r) return `page ${page}: unknown id ${id}`;
      const previous = seen[seen.length - 1];
      if (previous && newerFirst(previous, r) >= 0) {
        return `page ${page}: ${id} (${toText(r.us)}) does not come after ${previous.id} (${toText(previous.us)})`;
      }
      seen.push(r);
    }
    if (!next) break;
    token = next;
  }
  const seenIds = new Set(seen.map((r) => r.id));
  const missing = [...expected].filter((id) => !seenIds.has(id)).map((id) => `${id} (${toText(byId.get(id)!.us)})`);
  if (missing.length > 0) return `missing ${missing.length}: ${missing.join(', ')}; seen ${seen.length}`;
  const extra = seen.filter((r) => !expected.has(r.id) && !optional.has(r.id));
  if (extra.length > 0) return `unexpected ${extra.map((r) => r.id).join(', ')}`;
  return undefined;
}

const DEAL_STATUSES = ['COMPLETED', 'EXPIRED', 'MATCHED'] as const;

test('deal listing: every deal exactly once and in order, under colliding timestamps and concurrent inserts', async (t) => {
  const filters = fc.constantFrom<{ name: string; deal_type?: 'PAYIN' | 'PAYOUT'; statuses?: string[] }>(
    { name: 'all' },
    { name: 'PAYIN', deal_type: 'PAYIN' },
    { name: 'statuses (merged ranges)', statuses: ['COMPLETED', 'EXPIRED'] },
    { name: 'PAYOUT + status', deal_type: 'PAYOUT', statuses: ['MATCHED'] },
  );
  await fc.assert(
    fc.asyncProperty(scenario(DEAL_STATUSES), filters, async (s, filter) => {
      const listing: Listing = {
        statuses: DEAL_STATUSES,
        insert: insertDeals,
        async page(merchantId, size, token) {
          const p = await listMerchantDeals(deps, merchantId, { deal_type: filter.deal_type, statuses: filter.statuses, page_size: size, page_token: token });
          return { ids: p.data.map((d) => d.deal_id), next: p.next_page_token };
        },
        selects: (r) => (!filter.deal_type || r.dealType === filter.deal_type) && (!filter.statuses || filter.statuses.includes(r.status)),
      };
      const problem = await walkAndCheck(listing, s);
      if (problem) throw new Error(`${filter.name}: ${problem}`);
    }),
    { numRuns: Number(process.env.KEYSET_RUNS ?? 150), seed: Number(process.env.KEYSET_SEED ?? 17), includeErrorInReport: true },
  );
  t.pass();
});

for (const [name, listing] of Object.entries(LISTINGS)) {
  test(`${name} listing: every row exactly once and in order, under colliding timestamps and concurrent inserts`, async (t) => {
    await fc.assert(
      fc.asyncProperty(scenario(listing.statuses), async (s) => {
        const problem = await walkAndCheck(listing, s);
        if (problem) throw new Error(problem);
      }),
      { numRuns: Number(process.env.KEYSET_RUNS ?? 40), seed: Number(process.env.KEYSET_SEED ?? 17), includeErrorInReport: true },
    );
    t.pass();
  });
}
