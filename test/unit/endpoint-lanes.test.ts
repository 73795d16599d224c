/**
 * EndpointLanes (workflows/endpoint-lanes.ts), the endpoint stream's bookkeeping, on its own:
 * lanes and repeated signals, batches of first attempts, what a group's outcomes leave, a head's
 * schedule (retry delays, parked and busy waits), idleness, and what continue-as-new carries.
 */
import test from 'ava';
import type { AttemptOutcome } from '../../workflows/contracts/webhook-attempts';
import type { EndpointEvent } from '../../workflows/contracts/webhook-endpoint';
import { EndpointLanes, GROUP, LANES_PER_BATCH, SEEN_KEPT } from '../../workflows/endpoint-lanes';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const event = (lane: string, n: number, maxAttempts = 5): EndpointEvent => ({
  lane,
  callbackId: `${lane}-cb${n}`,
  eventId: `${lane}-ev${n}`,
  eventType: 'deal.created',
  maxAttempts,
});
const ok: AttemptOutcome = { ok: true, permanent: false, status: 'SUCCESS', httpStatus: 200 };
const failed: AttemptOutcome = { ok: false, permanent: false, status: 'RETRY', httpStatus: 500 };
const lastFailed: AttemptOutcome = { ok: false, permanent: false, status: 'ERROR', httpStatus: 500 };
const refused: AttemptOutcome = { ok: false, permanent: true, status: 'ERROR', httpStatus: 410 };
const parked = (retryInMs: number, waitReason: AttemptOutcome['waitReason'] = 'parked'): AttemptOutcome => ({
  ok: false,
  permanent: false,
  status: 'RETRY',
  httpStatus: 0,
  retryInMs,
  waitReason,
});

test('events go to their lanes in order; a callback already taken is dropped, also when carried over from the last run', (t) => {
  const lanes = new EndpointLanes({ delaysMs: [100], seen: ['a-cb0'] });
  lanes.take([event('a', 0), event('a', 1), event('b', 1), event('a', 2), event('a', 1)]);
  t.deepEqual(lanes.startable(), ['a', 'b'], 'lanes in the order they were opened');
  t.deepEqual(lanes.head('a').event.callbackId, 'a-cb1', 'a-cb0 was taken by the last run');
  t.deepEqual(
    lanes.carry().lanes.map((l) => [l.lane, l.events.map((e) => e.callbackId)]),
    [
      ['a', ['a-cb1', 'a-cb2']],
      ['b', ['b-cb1']],
    ],
  );
});

test('a running lane is not startable; a lane let go empty is closed; draining starts none', (t) => {
  const lanes = new EndpointLanes({ delaysMs: [100] });
  lanes.take([event('a', 1), event('b', 1)]);
  lanes.start('a');
  t.deepEqual(lanes.startable(), ['b']);
  t.true(lanes.anyRunning());
  t.true(lanes.hasNext('a'));
  lanes.endHead('a');
  t.false(lanes.hasNext('a'), 'no event left');
  lanes.stop('a');
  t.deepEqual(lanes.startable(), ['b'], 'the dry lane is gone');
  t.is(lanes.delivered, 1);
  lanes.draining = true;
  t.deepEqual(lanes.startable(), []);
  t.false(lanes.hasNext('b'), 'a draining stream takes no next event');
});

test('first attempts: a group is a lane’s first GROUP events; everything asked goes in batches of LANES_PER_BATCH, in flight until settled', async (t) => {
  const lanes = new EndpointLanes({ delaysMs: [100] });
  const keys = Array.from({ length: LANES_PER_BATCH + 3 }, (_, i) => `lane${i}`);
  lanes.take(keys.flatMap((k) => Array.from({ length: GROUP + 2 }, (_, n) => event(k, n))));
  const answers = keys.map((k) => lanes.askFirstAttempts(k));
  t.true(lanes.hasAsked());
  const batches = lanes.takeBatches();
  t.false(lanes.hasAsked());
  t.deepEqual(
    batches.map((b) => b.groups.length),
    [LANES_PER_BATCH, 3],
  );
  t.true(batches[0]!.groups.every((g) => g.length === GROUP));
  t.deepEqual(
    batches[0]!.groups[0]!.map((e) => e.callbackId),
    Array.from({ length: GROUP }, (_, n) => `lane0-cb${n}`),
  );
  t.true(lanes.anyRunning(), 'batches in flight');
  t.false(lanes.quiet());
  batches[0]!.settle(batches[0]!.groups.map((g) => g.map(() => ok)));
  batches[1]!.settle(undefined);
  t.false(lanes.anyRunning(), 'settled');
  t.true(lanes.quiet());
  t.is((await answers[0])!.length, GROUP);
  t.is(await answers[LANES_PER_BATCH], undefined, 'a batch that failed as a whole answers nothing');
});

test('a batch that answers fewer groups than it sent answers the rest with no outcomes', async (t) => {
  const lanes = new EndpointLanes({ delaysMs: [100] });
  lanes.take([event('a', 1), event('b', 1)]);
  const [a, b] = [lanes.askFirstAttempts('a'), lanes.askFirstAttempts('b')];
  lanes.takeBatches()[0]!.settle([[ok]]);
  t.deepEqual(await a, [ok]);
  t.deepEqual(await b, []);
  t.deepEqual(lanes.recordFirstAttempts('b', []), { head: 'alone' }, 'no outcomes: the head goes alone from its first attempt');
  t.false(lanes.inSchedule('b'));
});

test('a group’s outcomes: ended events leave the lane; a failed one stops the group and follows the schedule from attempt 2', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [300, 900], now: c.now });
  lanes.take([event('a', 1), event('a', 2), event('a', 3), event('a', 4), event('a', 5)]);
  t.deepEqual(lanes.recordFirstAttempts('a', [ok, refused, lastFailed, failed]), { head: 'alone' });
  t.is(lanes.delivered, 3, 'delivered, failed for good, and an only attempt that failed (ERROR) have ended');
  t.true(lanes.inSchedule('a'));
  const head = lanes.head('a');
  t.is(head.event.callbackId, 'a-cb4');
  t.deepEqual(head.retry, { attempt: 2, parked: 0, dueAt: c.now() + 300 });
  t.deepEqual(lanes.recordFirstAttempts('a', [ok]), { head: 'ended' }, 'every outcome ended');
});

test('a group stopped by a parked endpoint: the head waits on that outcome, from its first attempt', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [300], now: c.now });
  lanes.take([event('a', 1), event('a', 2)]);
  const outcome = parked(1000);
  t.deepEqual(lanes.recordFirstAttempts('a', [outcome]), { head: 'alone', first: outcome });
  t.false(lanes.inSchedule('a'));
  const { retry, total } = lanes.head('a');
  t.deepEqual(retry, { attempt: 1, parked: 0, dueAt: c.now() });
  t.is(lanes.afterAttempt(retry, total, outcome), 'again');
  t.deepEqual(retry, { attempt: 1, parked: 1, dueAt: c.now() + 1000 }, 'the same attempt after the endpoint’s wait');
});

test('a head’s schedule: WEBHOOK_RETRY_DELAYS, the last repeated, up to max attempts; then it ends', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100, 500], now: c.now });
  lanes.take([event('a', 1, 4)]);
  const { retry, total } = lanes.head('a');
  t.is(total, 4);
  const dues: number[] = [];
  for (let n = 1; n < total; n++) {
    t.is(lanes.afterAttempt(retry, total, failed), 'again');
    dues.push(retry.dueAt - c.now());
  }
  t.deepEqual(dues, [100, 500, 500]);
  t.is(retry.attempt, 4);
  t.is(lanes.afterAttempt(retry, total, lastFailed), 'ended', 'the last attempt failed');
  lanes.endHead('a');
  t.is(lanes.delivered, 1);
  t.false(lanes.hasNext('a'));
});

test('a head’s schedule: success or a permanent failure ends it at once; max_retries 0 still makes one attempt', (t) => {
  const lanes = new EndpointLanes({ delaysMs: [100] });
  lanes.take([event('a', 1), event('b', 1), event('c', 1, 0)]);
  const a = lanes.head('a');
  t.is(lanes.afterAttempt(a.retry, a.total, ok), 'ended');
  const b = lanes.head('b');
  t.is(lanes.afterAttempt(b.retry, b.total, refused), 'ended');
  const c = lanes.head('c');
  t.is(c.total, 1);
  t.is(lanes.afterAttempt(c.retry, c.total, failed), 'ended');
});

test('a head’s schedule: the endpoint’s own waits double while they last and reset after an attempt; a host-busy wait stays flat', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  lanes.take([event('a', 1)]);
  const { retry, total } = lanes.head('a');
  const waits: number[] = [];
  for (const outcome of [parked(1000), parked(1000, 'busy'), parked(1000, 'host-busy'), parked(1000)]) {
    t.is(lanes.afterAttempt(retry, total, outcome), 'again');
    waits.push(retry.dueAt - c.now());
  }
  t.deepEqual(waits, [1000, 2000, 1000, 4000]);
  t.is(retry.attempt, 1, 'no attempt was made');
  lanes.afterAttempt(retry, total, failed);
  t.is(retry.parked, 0, 'a made attempt resets the streak');
  t.is(retry.attempt, 2);
});

test('idle: no lane and nothing running; measured from the last busy moment (an event, a lane let go)', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  t.true(lanes.idle());
  t.is(lanes.idleLeft(5000), 5000);
  c.advance(2000);
  lanes.take([event('a', 1)]);
  t.false(lanes.idle());
  t.is(lanes.idleLeft(5000), 5000, 'an event makes it busy');
  lanes.start('a');
  c.advance(7000);
  t.is(lanes.idleLeft(5000), -2000);
  lanes.endHead('a');
  lanes.stop('a');
  t.true(lanes.idle());
  t.false(lanes.hasLanes());
  t.is(lanes.idleLeft(5000), 5000, 'the lane let go now');
  c.advance(1000);
  lanes.take([event('a', 1)]);
  t.is(lanes.idleLeft(5000), 5000, 'a repeated event still counts as busy');
  t.true(lanes.idle(), 'but opens no lane');
});

test('continue-as-new carries the lanes with events, a head mid-schedule with its progress, and the last SEEN_KEPT callbacks', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({
    delaysMs: [100],
    now: c.now,
    carried: [{ lane: 'old', events: [event('old', 1)], retry: { attempt: 3, parked: 2, dueAt: 5 } }],
  });
  t.true(lanes.inSchedule('old'));
  lanes.take(Array.from({ length: SEEN_KEPT + 10 }, (_, n) => event('x', n)));
  lanes.take([event('a', 1)]);
  const a = lanes.head('a');
  lanes.afterAttempt(a.retry, a.total, failed);
  lanes.take([event('done', 1)]);
  lanes.endHead('done');
  const { lanes: carried, seen } = lanes.carry();
  t.deepEqual(
    carried.map((l) => l.lane),
    ['old', 'x', 'a'],
    'the empty lane is not carried',
  );
  t.deepEqual(carried[0]!.retry, { attempt: 3, parked: 2, dueAt: 5 });
  t.deepEqual(carried[2]!.retry, { attempt: 2, parked: 0, dueAt: c.now() + 100 });
  t.false('retry' in carried[1]!, 'a lane whose head has not started its schedule carries none');
  t.is(seen.length, SEEN_KEPT);
  t.deepEqual(seen.slice(-2), ['a-cb1', 'done-cb1'], 'the latest kept');
  const next = new EndpointLanes({ delaysMs: [100], carried, seen });
  next.take([event('a', 1), event('done', 1)]);
  t.deepEqual(
    next.carry().lanes.map((l) => [l.lane, l.events.length]),
    [
      ['old', 1],
      ['x', SEEN_KEPT + 10],
      ['a', 1],
    ],
    'the next run drops the repeats',
  );
});
