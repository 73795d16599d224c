import test from 'ava';
import { endpointKey, targetHost, targetOf, WebhookGate, type Admission } from '../../activities/webhook-isolation';
import { endpointWait, MAX_ENDPOINT_WAIT_MS } from '../../workflows/contracts/webhook-attempts';

const options = { maxInFlightPerEndpoint: 2, maxInFlightPerHost: 5, breakerFailures: 0, cooldownMs: 1000 };
/** Merchants A and B on one shared host (a webhook relay), each with its own path. */
const A = targetOf('merchant-a', 'https://relay.example/hooks/a');
const B = targetOf('merchant-b', 'https://relay.example/hooks/b');
const admitted = (a: Admission) => a.admitted;
const fail = (a: Admission) => a.admitted && a.release(false);

test('the endpoint is the merchant and its URL; the host cap is per merchant and keeps the port', (t) => {
  t.not(A.host, B.host, 'two merchants on one relay never share a cap');
  t.is(A.host, targetOf('merchant-a', 'https://relay.example/hooks/a2').host);
  t.not(A.endpoint, B.endpoint);
  t.not(endpointKey('m1', 'https://h/x'), endpointKey('m2', 'https://h/x'), 'two merchants on one URL are two endpoints');
  t.not(endpointKey('m1', 'https://h/x'), endpointKey('m1', 'https://h/y'));
  t.is(targetHost('http://127.0.0.1:8080/hooks'), '127.0.0.1:8080');
  t.is(targetHost('https://merchant.example/hooks'), 'merchant.example');
});

test('at most maxInFlightPerEndpoint POSTs to one endpoint; another endpoint on the same host is not affected', (t) => {
  const gate = new WebhookGate(options);
  const a1 = gate.admit(A);
  const a2 = gate.admit(A);
  t.true(admitted(a1) && admitted(a2));
  t.like(gate.admit(A), { admitted: false, reason: 'busy' });
  t.true(admitted(gate.admit(B)), "B is admitted while A's endpoint is full");
  if (a1.admitted) a1.release(true);
  t.true(admitted(gate.admit(A)));
});

test("the looser cap holds over one merchant's endpoints on a host, refuses as host-busy, never touches another merchant", (t) => {
  const gate = new WebhookGate(options);
  t.true(admitted(gate.admit(A)) && admitted(gate.admit(A)));
  t.like(gate.admit(A), { reason: 'busy' }, 'A stops at its own cap (2), below the host cap (5)');
  t.is(gate.inFlightToHost(A.host), 2);
  // Merchant A gives deals their own callback URLs on the same host.
  const ownUrl = (path: string) => targetOf('merchant-a', `https://relay.example/hooks/${path}`);
  const others = ['c', 'd', 'e'].map((p) => gate.admit(ownUrl(p)));
  t.true(others.every(admitted));
  t.is(gate.inFlightToHost(A.host), 5);
  t.like(gate.admit(ownUrl('f')), { admitted: false, reason: 'host-busy' }, "five of A's endpoints saturated: A's share of the host is full");
  t.true(admitted(gate.admit(B)), 'merchant B on the same relay is not affected');
  t.true(admitted(gate.admit(targetOf('merchant-a', 'https://elsewhere.example/a'))), 'nor is another host of A');
  const [c] = others;
  if (c!.admitted) c!.release(true);
  t.true(admitted(gate.admit(ownUrl('f'))));
  t.true(admitted(gate.admit(ownUrl('g'), true)), 'a manual retry goes anyway');
});

test("the breaker parks one endpoint after consecutive failures; B on the same host is never parked by A's failures", (t) => {
  let now = 0;
  const gate = new WebhookGate({ ...options, maxInFlightPerEndpoint: 10, maxInFlightPerHost: 20, breakerFailures: 3 }, () => now);
  for (let i = 0; i < 3; i += 1) fail(gate.admit(A));
  t.like(gate.admit(A), { admitted: false, reason: 'parked' });
  t.deepEqual(gate.parkedEndpoints(), [A.endpoint]);
  const b = gate.admit(B);
  t.true(b.admitted, 'B goes while A is parked');
  if (b.admitted) b.release(true);
  t.true(admitted(gate.admit(A, true)), 'a manual retry goes anyway');
  now = 1500;
  const probe = gate.admit(A);
  t.true(probe.admitted, 'one probe after the cooldown');
  t.like(gate.admit(A), { admitted: false, reason: 'parked' }, 'only one probe at a time');
  if (probe.admitted) probe.release(false);
  t.like(gate.admit(A), { admitted: false, reason: 'parked' }, 'a failed probe parks it again');
  now = 3000;
  const second = gate.admit(A);
  if (second.admitted) second.release(true);
  t.true(admitted(gate.admit(A)), 'a good probe closes the circuit');
  t.deepEqual(gate.parkedEndpoints(), []);
});

test("B's failures and successes do not count towards A's breaker, even interleaved", (t) => {
  const gate = new WebhookGate({ ...options, maxInFlightPerEndpoint: 10, maxInFlightPerHost: 20, breakerFailures: 3 });
  for (let i = 0; i < 2; i += 1) {
    fail(gate.admit(A));
    fail(gate.admit(B));
  }
  const ok = gate.admit(B);
  if (ok.admitted) ok.release(true);
  t.deepEqual(gate.parkedEndpoints(), []);
  fail(gate.admit(A));
  t.deepEqual(gate.parkedEndpoints(), [A.endpoint], "A's third failure in a row parks A only");
  t.true(admitted(gate.admit(B)));
});

test("waits of the endpoint's own escalate; a wait caused by other endpoints of the host never does", (t) => {
  let streak = 0;
  const waits: number[] = [];
  for (const waitReason of ['parked', 'parked', 'host-busy', 'host-busy', 'busy', undefined] as const) {
    const next = endpointWait({ retryInMs: 1000, waitReason }, streak);
    waits.push(next.waitMs);
    streak = next.streak;
  }
  t.deepEqual(
    waits,
    [1000, 2000, 1000, 1000, 4000, 8000],
    'host-busy stays flat and leaves the streak as it was; results of older workers (no reason) escalate as before',
  );
  t.is(endpointWait({ retryInMs: 5000, waitReason: 'parked' }, 30).waitMs, MAX_ENDPOINT_WAIT_MS, 'at most an hour');
  t.is(endpointWait({ retryInMs: 5000, waitReason: 'host-busy' }, 30).waitMs, 5000);
});

test('an endpoint back to its initial state is forgotten', (t) => {
  const gate = new WebhookGate({ ...options, breakerFailures: 3 });
  const many = Array.from({ length: 100 }, (_, i) => targetOf('m', `https://relay.example/deal-${i}`));
  for (const target of many) {
    const a = gate.admit(target);
    if (a.admitted) a.release(true);
  }
  t.is(gate.inFlightToHost(A.host), 0);
  t.is((gate as unknown as { endpoints: Map<string, unknown> }).endpoints.size, 0);
});
