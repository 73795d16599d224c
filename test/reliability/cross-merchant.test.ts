/**
 * The cross-merchant matrix, generated from the served OpenAPI document — the route
 * table itself — so a new route cannot be forgotten:
 *   - every merchant route that takes an id: merchant B using merchant A's object gets 404 and
 *     A's object is unchanged; a route whose id has no fixture here fails the test by name;
 *   - every operator route: a merchant HMAC pair and a cabinet JWT get 403, no credentials 401.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { cabinetToken, newMerchant, signed, unsigned, withBearer, type KeyPair } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { exemplar, fillPath, loadOperations } from '../helpers/openapi';
import { deposit, randomTronAddress, withdraw } from '../helpers/wallet';
import { filePart, SAMPLES, signedUpload } from '../helpers/multipart';
import { v1Raw } from '../v1/v1-client';

const sql = testSql();
test.after.always(() => sql.end());

/** An object of merchant A for each path parameter a merchant route takes, and how to read its state. */
interface Fixture {
  id: string;
  state: () => Promise<unknown>;
}

async function fixturesFor(a: { merchantId: string; keys: KeyPair }): Promise<Record<string, Fixture>> {
  const deal = await createPayin(a.keys);
  const delivery = await eventually(
    async () => (await sql<{ id: string }[]>`select id from webhook_deliveries where merchant_id = ${a.merchantId} limit 1`)[0],
    'a webhook delivery of A',
  );
  await deposit(a.merchantId, 500_000);
  const withdrawal = await withdraw(a.keys, { address: randomTronAddress(), amount: 200_000 }); // above the auto limit: PENDING_MANUAL
  if (withdrawal.status !== 200) throw new Error(`withdrawal fixture: ${withdrawal.status} ${withdrawal.text}`);
  const withdrawalId = withdrawal.body.withdrawal_id as string;
  const appealed = await createPayin(a.keys);
  const upload = await signedUpload(a.keys, filePart(SAMPLES.pdf, 'receipt.pdf', 'application/pdf'));
  if (upload.status !== 201) throw new Error(`file fixture: ${upload.status} ${upload.text}`);
  const fileId = upload.body.file.file_id as string;
  const appeal = await signed(a.keys, 'POST', '/api/v1/p2p/merchant/appeals', {
    deal_id: appealed.deal_id,
    reason: 'the payer paid but nothing happened',
    file_ids: [fileId],
  });
  if (appeal.status !== 200) throw new Error(`appeal fixture: ${appeal.status} ${appeal.text}`);
  const appealId = appeal.body.data.appeal_id as string;
  const balance = await signed(a.keys, 'GET', '/api/v1/p2p/merchant/balance');
  const payout = await signed(a.keys, 'POST', '/api/v1/p2p/merchant/deals/payout', {
    idempotency_key: `matrix-${a.merchantId}`,
    amount: 50_000,
    currency: 'RUB',
    wallet_id: balance.body.wallets[0].wallet_id,
    target_requisite: '4111111111111111',
    payment_method: 'card-rub',
  });
  if (payout.status !== 200) throw new Error(`payout fixture: ${payout.status} ${payout.text}`);
  const payoutId = payout.body.deal.deal_id as string;
  // A's people: a member (invited with A's cabinet JWT, accepted) and an invitation still open.
  const aCabinet = await cabinetToken(a.merchantId);
  const invited = await withBearer(aCabinet, 'POST', '/api/v1/p2p/cabinet/team/invitations', { email: `matrix-${randomUUID()}@example.test`, role: 'support' });
  if (invited.status !== 201) throw new Error(`invitation fixture: ${invited.status} ${invited.text}`);
  const accepted = await unsigned('POST', '/api/v1/p2p/cabinet/invitation/accept', {
    token: String(invited.body.invite_url).split('#token=')[1],
    password: `pw-${randomUUID()}`,
  });
  if (accepted.status !== 201) throw new Error(`member fixture: ${accepted.status} ${accepted.text}`);
  const memberId = accepted.body.member.member_id as string;
  const open = await withBearer(aCabinet, 'POST', '/api/v1/p2p/cabinet/team/invitations', { email: `matrix-${randomUUID()}@example.test`, role: 'finance' });
  if (open.status !== 201) throw new Error(`invitation fixture: ${open.status} ${open.text}`);
  const invitationId = open.body.invitation.invitation_id as string;
  return {
    member_id: {
      id: memberId,
      state: async () => (await sql`select role, disabled_at, removed_at, updated_at from accounts where id = ${memberId}`)[0],
    },
    invitation_id: {
      id: invitationId,
      state: async () => (await sql`select revoked_at, accepted_at from account_invitations where id = ${invitationId}`)[0],
    },
    payout_deal_id: {
      id: payoutId,
      state: async () => (await sql`select status, amount, updated_at from deals where id = ${payoutId}`)[0],
    },
    appeal_id: {
      id: appealId,
      state: async () => ({
        appeal: (await sql`select status, updated_at from appeals where id = ${appealId}`)[0],
        messages: (await sql`select count(*)::int as n from appeal_messages where appeal_id = ${appealId}`)[0],
      }),
    },
    file_id: {
      id: fileId,
      state: async () => (await sql`select sha256, size from evidence_files where id = ${fileId}`)[0],
    },
    withdrawal_id: {
      id: withdrawalId,
      state: async () => (await sql`select status, amount, updated_at from withdrawals where id = ${withdrawalId}`)[0],
    },
    deal_id: {
      id: deal.deal_id,
      state: async () => (await sql`select status, amount, amount_version, updated_at from deals where id = ${deal.deal_id}`)[0],
    },
    callback_id: {
      id: delivery.id,
      state: async () => (await sql`select status, manual_retries, last_manual_retry_at from webhook_deliveries where id = ${delivery.id}`)[0],
    },
  };
}

test("merchant B gets 404 for every route that takes merchant A's id, and A's objects do not change", async (t) => {
  const a = await newMerchant();
  const b = await newMerchant();
  const bCabinet = await cabinetToken(b.merchantId);
  const fixtures = await fixturesFor(a);
  const doc = await loadOperations();
  const merchantRoutes = doc.operations.filter((op) => op.pathParams.length > 0 && (op.schemes.includes('MerchantToken') || op.schemes.includes('CabinetJwt')));
  t.true(merchantRoutes.length >= 3, 'the document lists the merchant routes with ids');
  const missing = merchantRoutes.flatMap((op) => op.pathParams.filter((p) => !fixtures[p]).map((p) => `${op.method} ${op.path} {${p}}`));
  t.deepEqual(missing, [], 'every id a merchant route takes needs a fixture here');

  const before = Object.fromEntries(await Promise.all(Object.entries(fixtures).map(async ([k, f]) => [k, await f.state()])));
  for (const op of merchantRoutes) {
    const path = fillPath(op.path, Object.fromEntries(Object.entries(fixtures).map(([k, f]) => [k, f.id])));
    // A valid-looking body, so the request reaches the ownership check instead of stopping at validation.
    const body = op.method === 'GET' ? undefined : (exemplar(doc, op.body) ?? {});
    const res = op.schemes.includes('MerchantToken') ? await signed(b.keys, op.method, path, body) : await withBearer(bCabinet, op.method, path, body);
    t.is(res.status, 404, `${op.method} ${op.path} as merchant B: ${res.status} ${res.text.slice(0, 200)}`);
  }
  const after = Object.fromEntries(await Promise.all(Object.entries(fixtures).map(async ([k, f]) => [k, await f.state()])));
  t.deepEqual(after, before, "A's objects are unchanged");
});

/** V1 routes name every id `{id}`: which of A's objects each one reads. */
const V1_ID_FIXTURE: Array<[RegExp, string]> = [
  [/^\/v1\/payments\/incoming\//, 'deal_id'],
  [/^\/v1\/payments\/outgoing\//, 'payout_deal_id'],
  [/^\/v1\/merchant\/withdraw\//, 'withdrawal_id'],
  [/^\/v1\/disputs\//, 'appeal_id'],
];

test("a V1 merchant gets 404 for every V1 route that takes another merchant's id", async (t) => {
  const a = await newMerchant();
  const b = await newMerchant({ api_version: 'v1' });
  const fixtures = await fixturesFor(a);
  const v1Routes = (await loadOperations()).operations.filter((op) => op.path.startsWith('/v1/') && op.pathParams.length > 0);
  t.true(v1Routes.length >= 4, `${v1Routes.length} V1 routes with ids`);
  const before = Object.fromEntries(await Promise.all(Object.entries(fixtures).map(async ([k, f]) => [k, await f.state()])));
  for (const op of v1Routes) {
    const key = V1_ID_FIXTURE.find(([re]) => re.test(op.path))?.[1];
    t.truthy(key, `${op.method} ${op.path} needs a fixture here`);
    if (!key) continue;
    const res = await v1Raw(
      b,
      op.method,
      fillPath(op.path, { id: fixtures[key]!.id }),
      op.method === 'GET' ? '' : '{}',
      op.method === 'GET' ? undefined : 'application/json',
    );
    t.is(res.status, 404, `${op.method} ${op.path} as V1 merchant B: ${res.status} ${res.text.slice(0, 200)}`);
  }
  const after = Object.fromEntries(await Promise.all(Object.entries(fixtures).map(async ([k, f]) => [k, await f.state()])));
  t.deepEqual(after, before, "A's objects are unchanged");
});

test('every operator route refuses merchant HMAC pairs and cabinet JWTs (403) and missing credentials (401)', async (t) => {
  const m = await newMerchant();
  const cabinet = await cabinetToken(m.merchantId);
  const operatorRoutes = (await loadOperations()).operations.filter(
    (op) => op.schemes.length > 0 && op.schemes.every((s) => s === 'OperatorJwt' || s === 'OperatorSessionCookie'),
  );
  t.true(operatorRoutes.length >= 10, `${operatorRoutes.length} operator routes`);
  for (const op of operatorRoutes) {
    const path = fillPath(op.path);
    const body = op.method === 'GET' ? undefined : {};
    const asMerchant = await signed(m.keys, op.method, path, body);
    t.is(asMerchant.status, 403, `${op.method} ${op.path} with an HMAC pair`);
    const asCabinet = await withBearer(cabinet, op.method, path, body);
    t.is(asCabinet.status, 403, `${op.method} ${op.path} with a cabinet JWT`);
    const anonymous = await unsigned(op.method, path, body);
    t.is(anonymous.status, 401, `${op.method} ${op.path} without credentials`);
  }
});

test("the events feed shows a merchant only its own events, and another merchant's page token is refused", async (t) => {
  const a = await newMerchant();
  const b = await newMerchant();
  const aDeal = await createPayin(a.keys);
  const bDeal = await createPayin(b.keys);
  const FEED = '/api/v1/p2p/merchant/events';
  const feedOf = async (m: { keys: KeyPair }) =>
    eventually(async () => {
      const res = await signed(m.keys, 'GET', FEED);
      return res.status === 200 && res.body.data.length >= 2
        ? (res.body as { data: Array<{ event_id: string; deal: { deal_id: string } }>; next_page_token: string })
        : undefined;
    }, 'the feed');
  const aFeed = await feedOf(a);
  const bFeed = await feedOf(b);
  t.true(
    aFeed.data.every((e) => e.deal.deal_id === aDeal.deal_id),
    "A's feed holds only A's deal",
  );
  t.true(
    bFeed.data.every((e) => e.deal.deal_id === bDeal.deal_id),
    "B's feed holds only B's deal",
  );
  const ownedByB = await sql<{ id: string }[]>`select id from outbox_events where merchant_id = ${b.merchantId}`;
  t.deepEqual(bFeed.data.map((e) => e.event_id).sort(), ownedByB.map((r) => r.id).sort(), 'every event of B, none of A');
  // A's position is A's: B presenting it (signed correctly) is 400, and so is A's cabinet-free query for B.
  const stolen = await signed(b.keys, 'GET', `${FEED}?page_token=${encodeURIComponent(aFeed.next_page_token)}`);
  t.is(stolen.status, 400, stolen.text);
  t.regex(stolen.text, /invalid page_token/);
  const bCabinet = await withBearer(await cabinetToken(b.merchantId), 'GET', `${FEED}?merchant_id=${a.merchantId}`);
  t.is(bCabinet.status, 200);
  t.true(
    bCabinet.body.data.every((e: { deal: { deal_id: string } }) => e.deal.deal_id === bDeal.deal_id),
    'a merchant_id parameter changes nothing',
  );
});
