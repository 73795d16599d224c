import test from 'ava';
import { newMerchant, signed, unsigned } from '../helpers/api';
import { startApp } from '../helpers/app';
import { incomingBody, v1, v1Client } from './v1-client';

test('every V1 answer carries Deprecation, Sunset (HTTP-date of V1_SUNSET_AT) and Link successor-version, errors included', async (t) => {
  const m = await newMerchant({ api_version: 'v1' });
  const answers = [
    await v1Client(m).banks(),
    await v1Client(m).createIncoming(incomingBody({ currency: 1 })), // 400
    await unsigned('POST', '/v1/banks/list', {}), // 401
    await unsigned('GET', '/v1/no-such-route'), // 404
    await unsigned('DELETE', '/v1/banks/list'), // 405
    await v1(m, 'POST', '/v1/banks/list', 'x=1', [], { headers: { 'Content-Type': 'text/plain' } }), // 415 (signed: an anonymous body is 401 unread)
  ];
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 400, 401, 404, 405, 415],
  );
  for (const a of answers) {
    t.is(a.headers.get('deprecation'), 'true');
    t.is(a.headers.get('sunset'), 'Tue, 12 Jan 2027 00:00:00 GMT');
    t.regex(a.headers.get('link')!, /^<\/docs>; rel="successor-version"/);
    t.truthy(a.headers.get('x-trace-id'));
    t.is(typeof a.body.isSuccess, 'boolean', 'V1 envelope');
  }
  const v2 = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.is(v2.headers.get('sunset'), null, 'V2 answers are not deprecated');
});

test('from V1_SUNSET_AT on every /v1/ request is 410 Gone (V1 envelope, headers); V2 is untouched', async (t) => {
  const sunset = new Date(Date.now() - 1000);
  const app = await startApp({ V1_SUNSET_AT: sunset });
  t.teardown(() => app.close());
  const m = await newMerchant({ api_version: 'v1' });
  const options = { base: app.url };
  const body = incomingBody();
  const answers = [
    await v1(m, 'POST', '/v1/payments/incoming', body, [body.payInId, body.salt], options),
    await v1(m, 'POST', '/v1/banks/list', {}, [], options),
    await unsigned('GET', `${app.url}/v1/payments/incoming/00000000-0000-4000-8000-000000000000`),
    await unsigned('POST', `${app.url}/v1/whatever`, {}),
  ];
  for (const a of answers) {
    t.is(a.status, 410, a.text);
    t.like(a.body, { isSuccess: false, isFailure: true, value: null, status: 410 });
    t.is(a.body.failures[0].code, 'UNIMPLEMENTED');
    t.regex(a.body.failures[0].message, /retired/);
    t.is(a.headers.get('sunset'), sunset.toUTCString());
    t.is(a.headers.get('deprecation'), 'true');
  }
  const [deals] = await app.sql`select count(*)::int as n from deals where merchant_id = ${m.merchantId}`;
  t.is(deals!.n, 0, 'nothing was created after the sunset');
  const v2 = await signed(m.keys, 'GET', `${app.url}/api/v1/p2p/merchant/balance`);
  t.is(v2.status, 200, 'V2 still serves the V1 merchant after the sunset');
});
