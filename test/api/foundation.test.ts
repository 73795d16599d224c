import test from 'ava';
import { asOperator, unsigned, API_METRICS_URL, API_URL } from '../helpers/api';
import { txHashOf } from '../helpers/wallet';

test('health checks Postgres, Temporal and the workers polling', async (t) => {
  const res = await unsigned('GET', '/health');
  t.is(res.status, 200);
  t.deepEqual(res.body, { status: 'ok', postgres: 'ok', temporal: 'ok', workers: 'ok' });
});

test('every response carries X-Trace-Id, errors included, and an incoming one is echoed', async (t) => {
  const ok = await unsigned('GET', '/health');
  t.regex(ok.headers.get('x-trace-id') ?? '', /^[0-9a-f]{32}$/);
  const missing = await unsigned('GET', '/nope');
  t.is(missing.status, 404);
  t.is(missing.headers.get('content-type'), 'application/problem+json');
  t.truthy(missing.headers.get('x-trace-id'));
  const echoed = await unsigned('GET', '/health', undefined, { 'X-Trace-Id': 'trace-abc-12345' });
  t.is(echoed.headers.get('x-trace-id'), 'trace-abc-12345');
});

test('the OpenAPI document lists the routes and /docs renders it', async (t) => {
  const doc = await unsigned('GET', '/openapi.json');
  t.is(doc.status, 200);
  t.is(doc.body.openapi, '3.1.0');
  for (const path of ['/api/v1/p2p/my-merchant', '/api/v1/p2p/admin/merchants', '/api/v1/p2p/merchant/api-keys/rotate', '/health']) {
    t.truthy(doc.body.paths[path], path);
  }
  t.truthy(doc.body.components.schemas.Problem);
  const html = await fetch(`${API_URL}/docs`);
  t.is(html.status, 200);
  t.regex(await html.text(), /swagger-ui/);
  const js = await fetch(`${API_URL}/docs/assets/swagger-ui-bundle.js`);
  t.is(js.status, 200);
});

test('a wrong method gets 405 problem+json, not 500', async (t) => {
  const res = await unsigned('DELETE', '/health');
  t.is(res.status, 405);
  t.is(res.body.status, 405);
});

test('malformed JSON, wrong types and out-of-range integers get 400 with errors[]', async (t) => {
  const malformed = await asOperator('POST', '/api/v1/p2p/admin/merchants', '{"name": ');
  t.is(malformed.status, 400);
  t.is(malformed.body.title, 'INVALID_ARGUMENT');
  t.is(malformed.body.errors[0].code, 'invalid_json');

  const wrongType = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name: 42, email: 'x@example.test' });
  t.is(wrongType.status, 400);
  t.is(wrongType.body.errors[0].field, 'name');

  const merchant = await asOperator('POST', '/api/v1/p2p/admin/merchants', { name: 'Range', email: 'range@example.test' });
  const huge = await asOperator(
    'POST',
    '/api/v1/p2p/admin/deposits',
    `{"merchant_id":"${merchant.body.merchant.id}","amount":99999999999999999999999,"tx_hash":"${txHashOf()}"}`,
  );
  t.is(huge.status, 400);
  t.is(huge.body.errors[0].field, 'amount');
  t.regex(huge.body.errors[0].message, /int64/);

  const fraction = await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: merchant.body.merchant.id, amount: 1.5, tx_hash: txHashOf() });
  t.is(fraction.status, 400);

  const missing = await asOperator('POST', '/api/v1/p2p/admin/deposits');
  t.is(missing.status, 400);
});

test('metrics are exposed for Prometheus on the metrics port only; the API port answers 404 for /metrics', async (t) => {
  const res = await fetch(API_METRICS_URL);
  t.is(res.status, 200);
  t.regex(await res.text(), /http_request_duration_seconds/);
  t.not(new URL(API_METRICS_URL).port, new URL(API_URL).port, 'a port of its own');
  for (const path of ['/metrics', '/metrics/', '/METRICS', '/metrics?x=1']) {
    const publicPort = await fetch(`${API_URL}${path}`);
    t.is(publicPort.status, 404, `${path} on the API's port`);
    t.is(publicPort.headers.get('content-type'), 'application/problem+json');
    t.notRegex(await publicPort.text(), /http_request_duration_seconds|process_cpu/);
  }
  // The metrics port serves nothing else.
  t.is((await fetch(API_METRICS_URL.replace(/\/metrics$/, '/health'))).status, 404);
});
