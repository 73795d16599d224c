/**
 * The cabinet's deals and developers routes (api/routes/cabinet/ops.ts): search by client_id and
 * deal id, a deal's timeline with each attempt's answer, the CSV export, a test event delivered
 * to a real receiver through the outbox and the delivery stream, a failed delivery retried, the
 * endpoint's state, support refused every write, another merchant's objects 404.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { API_URL } from '../helpers/api';
import { asMember, CABINET, invitedMember, merchantWithOwner, MY_MERCHANT } from '../helpers/cabinet-session';
import { createPayin } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';

test('a test event reaches the receiver through the delivery path and shows in the delivery log; the endpoint reads OK', async (t) => {
  const receiver = await startReceiver((_, res) => res.writeHead(200).end('thanks'));
  t.teardown(() => receiver.close());
  const { owner } = await merchantWithOwner({ webhook_url: 'http://127.0.0.1:9/none' });
  const patched = await asMember(owner.session, 'PATCH', MY_MERCHANT, { webhook_url: receiver.url });
  t.is(patched.status, 200, patched.text);
  const sent = await asMember(owner.session, 'POST', `${CABINET}/webhook/test-event`, {});
  t.is(sent.status, 201, sent.text);
  t.like(sent.body, { event_type: 'webhook.test', url: receiver.url });
  const got = await eventually(async () => receiver.received.find((r) => r.body.includes(sent.body.event_id)), 'the test event received', 60_000);
  const body = JSON.parse(got.body);
  t.like(body, { type: 'webhook.test', event_id: sent.body.event_id, test: { requested_by: owner.email } });
  t.truthy(got.headers['x-signature'], 'signed like every webhook');
  const logged = await eventually(async () => {
    const log = await asMember(owner.session, 'GET', `${CABINET}/deliveries`);
    const row = log.body.data?.find((d: { event_id: string }) => d.event_id === sent.body.event_id);
    return row?.status === 'SUCCESS' ? row : undefined;
  }, 'the delivery logged SUCCESS');
  t.like(logged, { event_type: 'webhook.test', http_status: 200, response_body: 'thanks', url: receiver.url });
  const endpoint = await asMember(owner.session, 'GET', `${CABINET}/webhook/endpoint`);
  t.like(endpoint.body, { state: 'OK', url: receiver.url, consecutive_failures: 0 });
});

test('deals: search by client_id and id, the timeline with the answer, a failed delivery retried to SUCCESS, the CSV; support reads and is refused writes; a foreign deal is 404', async (t) => {
  let failing = true;
  const receiver = await startReceiver((_, res) => (failing ? res.writeHead(500).end('down for maintenance') : res.writeHead(200).end('ok now')));
  t.teardown(() => receiver.close());
  const { owner, keys } = await merchantWithOwner({ webhook_url: receiver.url, webhook_max_retries: 1 });
  const clientId = `payer-${randomUUID().slice(0, 8)}`;
  const deal = await createPayin(keys, { client_id: clientId });
  await createPayin(keys, { client_id: 'someone-else' });

  const byClient = await asMember(owner.session, 'GET', `${CABINET}/deals?client_id=${clientId}`);
  t.is(byClient.status, 200, byClient.text);
  t.deepEqual(
    byClient.body.data.map((d: { deal_id: string }) => d.deal_id),
    [deal.deal_id],
  );
  const byId = await asMember(owner.session, 'GET', `${CABINET}/deals?deal_id=${deal.deal_id}`);
  t.is(byId.body.data.length, 1);

  // Every attempt fails (one attempt allowed): the delivery ends ERROR with the receiver's answer in the timeline.
  const timeline = await eventually(async () => {
    const res = await asMember(owner.session, 'GET', `${CABINET}/deals/${deal.deal_id}`);
    const failed = res.body.webhook_attempts?.find((a: { delivery_status: string; attempt: number }) => a.delivery_status === 'ERROR' && a.attempt > 0);
    return failed ? res.body : undefined;
  }, 'a delivery in ERROR');
  t.is(timeline.deal.deal_id, deal.deal_id);
  t.true(timeline.events.some((e: { event_type: string }) => e.event_type === 'deal.created'));
  const failed = timeline.webhook_attempts.find((a: { delivery_status: string }) => a.delivery_status === 'ERROR');
  t.like(failed, { http_status: 500, response_body: 'down for maintenance' });

  const support = await invitedMember(owner, 'support');
  t.is((await asMember(support.session, 'GET', `${CABINET}/deals/${deal.deal_id}`)).status, 200, 'support reads');
  const refusedRetry = await asMember(support.session, 'POST', `${CABINET}/deliveries/${failed.callback_id}/retry`, {});
  t.is(refusedRetry.status, 403, refusedRetry.text);
  t.is((await asMember(support.session, 'POST', `${CABINET}/webhook/test-event`, {})).status, 403);

  failing = false;
  const retried = await asMember(owner.session, 'POST', `${CABINET}/deliveries/${failed.callback_id}/retry`, {});
  t.is(retried.status, 200, retried.text);
  t.is(retried.body.status, 'RETRY');
  await eventually(async () => {
    const res = await asMember(owner.session, 'GET', `${CABINET}/deliveries/${failed.callback_id}`);
    return res.body.status === 'SUCCESS' ? res.body : undefined;
  }, 'the retried delivery SUCCESS');
  const again = await asMember(owner.session, 'POST', `${CABINET}/deliveries/${failed.callback_id}/retry`, {});
  t.is(again.status, 400, 'a delivered one is not retried');

  const csv = await fetch(`${API_URL}${CABINET}/deals/export?client_id=${clientId}`, { headers: { Cookie: owner.session.cookie } });
  t.is(csv.status, 200);
  const text = await csv.text();
  t.true(text.includes(deal.deal_id));
  t.false(text.includes('someone-else'), 'the export honours the search');

  // Another merchant: its owner reads none of this one's objects.
  const other = await merchantWithOwner();
  t.is((await asMember(other.owner.session, 'GET', `${CABINET}/deals/${deal.deal_id}`)).status, 404);
  t.is((await asMember(other.owner.session, 'GET', `${CABINET}/deliveries/${failed.callback_id}`)).status, 404);
  t.is((await asMember(other.owner.session, 'POST', `${CABINET}/deliveries/${failed.callback_id}/retry`, {})).status, 404);
  t.deepEqual((await asMember(other.owner.session, 'GET', `${CABINET}/deals?deal_id=${deal.deal_id}`)).body.data, []);
});

test('the endpoint: FAILING after a failed attempt, with the answer as the reason', async (t) => {
  const receiver = await startReceiver((_, res) => res.writeHead(503).end('no'));
  t.teardown(() => receiver.close());
  const { owner } = await merchantWithOwner({ webhook_url: receiver.url, webhook_max_retries: 1 });
  await asMember(owner.session, 'POST', `${CABINET}/webhook/test-event`, {});
  const endpoint = await eventually(async () => {
    const res = await asMember(owner.session, 'GET', `${CABINET}/webhook/endpoint`);
    return res.body.state === 'FAILING' || res.body.state === 'PAUSED' ? res.body : undefined;
  }, 'the endpoint failing');
  t.regex(endpoint.reason, /HTTP 503/);
  t.true(endpoint.consecutive_failures >= 1);
});
