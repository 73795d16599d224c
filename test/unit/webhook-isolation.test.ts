import test from 'ava';
import { HostGate, targetHost } from '../../activities/webhook-isolation';

test('at most maxInFlight POSTs to one host; other hosts are not affected', (t) => {
  const gate = new HostGate({ maxInFlight: 2, breakerFailures: 0, cooldownMs: 1000 });
  const a = gate.admit('a:1');
  const b = gate.admit('a:1');
  const c = gate.admit('a:1');
  t.true(a.admitted && b.admitted);
  t.like(c, { admitted: false, reason: 'busy' });
  t.true(gate.admit('b:1').admitted);
  if (a.admitted) a.release(true);
  t.true(gate.admit('a:1').admitted);
});

test('the breaker parks a host after consecutive failures, lets one probe through after the cooldown, and closes on success', (t) => {
  let now = 0;
  const gate = new HostGate({ maxInFlight: 10, breakerFailures: 3, cooldownMs: 1000 }, () => now);
  for (let i = 0; i < 3; i += 1) {
    const admission = gate.admit('dead:80');
    if (admission.admitted) admission.release(false);
  }
  t.like(gate.admit('dead:80'), { admitted: false, reason: 'parked' });
  t.deepEqual(gate.parkedHosts(), ['dead:80']);
  t.true(gate.admit('dead:80', true).admitted, 'a manual retry goes anyway');
  now = 1500;
  const probe = gate.admit('dead:80');
  t.true(probe.admitted, 'one probe after the cooldown');
  t.like(gate.admit('dead:80'), { admitted: false, reason: 'parked' }, 'only one probe at a time');
  if (probe.admitted) probe.release(false);
  t.like(gate.admit('dead:80'), { admitted: false }, 'a failed probe parks it again');
  now = 3000;
  const second = gate.admit('dead:80');
  if (second.admitted) second.release(true);
  t.true(gate.admit('dead:80').admitted, 'a good probe closes the circuit');
  t.deepEqual(gate.parkedHosts(), []);
});

test('targetHost keeps the port: receivers on one machine are separate targets', (t) => {
  t.is(targetHost('http://127.0.0.1:8080/hooks'), '127.0.0.1:8080');
  t.is(targetHost('https://merchant.example/hooks'), 'merchant.example');
});
