/**
 * EndpointLanes (workflows/endpoint-lanes.ts), the endpoint stream's bookkeeping, on its own:
 * lanes and repeated signals, batches of first attempts, what a group's outcomes leave, a head's
 * schedule (retry delays, the endpoint's pause), the retry clock (heads due together go together,
 * a paused endpoint gets one probe), idleness, and what continue-as-new carries.
 */
import test from 'ava';
import type { AttemptOutcome } from '../../workflows/contracts/webhook-attempts';
import { RETRIES_PER_BATCH, RETRY_SLACK_MAX_MS, type EndpointEvent } from '../../workflows/contracts/webhook-endpoint';
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
  t.deepEqual(head.retry, { attempt: 2, dueAt: c.now() + 300, slackMs: 30 });
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
  t.deepEqual(retry, { attempt: 1, dueAt: c.now() });
  t.is(lanes.afterAttempt(retry, total, outcome), 'again');
  t.deepEqual(retry, { attempt: 1, dueAt: c.now(), slackMs: 0 }, 'the same attempt, still due …');
  t.deepEqual(lanes.carry().pause, { until: c.now() + 1000, streak: 1 }, '… after the endpoint’s pause');
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

test('a head’s schedule: the endpoint’s own pauses double while they last and reset after an attempt; a host-busy wait stays flat', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  lanes.take([event('a', 1)]);
  const { retry, total } = lanes.head('a');
  const waits: number[] = [];
  for (const outcome of [parked(1000), parked(1000, 'busy'), parked(1000, 'host-busy'), parked(1000)]) {
    t.is(lanes.afterAttempt(retry, total, outcome), 'again');
    const wait = Math.max(retry.dueAt, lanes.carry().pause.until) - c.now();
    waits.push(wait);
    c.advance(wait); // the pause ran out before the next try
  }
  t.deepEqual(waits, [1000, 2000, 1000, 4000]);
  t.is(retry.attempt, 1, 'no attempt was made');
  lanes.afterAttempt(retry, total, failed);
  t.deepEqual(lanes.carry().pause, { until: 0, streak: 0 }, 'a made attempt ends the pause and its streak');
  t.is(retry.attempt, 2);
});

/** Lanes whose heads have each failed a first attempt (due after the first delay), waiting for their retry. */
function waitingHeads(lanes: EndpointLanes, keys: string[]) {
  const answers = new Map<string, unknown>();
  for (const key of keys) {
    lanes.take([event(key, 1)]);
    lanes.recordFirstAttempts(key, [failed]);
    const { event: head, retry } = lanes.head(key);
    void lanes
      .awaitRetry(key, { callbackId: head.callbackId, attemptKey: `auto:${retry.attempt}`, final: false, manual: false }, retry)
      .then((a) => answers.set(key, a));
  }
  return answers;
}

test('the retry clock: heads due about then share one wake-up (never early, at most a tenth of the pause late) and go in batches of RETRIES_PER_BATCH', async (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [10_000], now: c.now });
  t.is(lanes.nextRetryWake(), undefined, 'nobody waits: no wake-up');
  const first = Array.from({ length: RETRIES_PER_BATCH + 2 }, (_, n) => `a${n}`);
  const answers = waitingHeads(lanes, first);
  c.advance(600);
  waitingHeads(lanes, ['late']); // due 600 ms after the others
  t.is(lanes.nextRetryWake(), c.now() - 600 + 10_000 + 1_000, 'the first heads may wait a tenth of their 10 s pause');
  c.advance(10_000 - 600 - 1);
  t.deepEqual(lanes.takeDueRetries(), [], 'nothing goes before its pause');
  c.advance(1_000 + 1);
  const batches = lanes.takeDueRetries();
  t.deepEqual(
    batches.map((b) => b.attempts.map((a) => a.callbackId.split('-')[0])),
    [first.slice(0, RETRIES_PER_BATCH), [...first.slice(RETRIES_PER_BATCH), 'late']],
    'every head due by the wake-up goes, the late one too',
  );
  t.is(lanes.nextRetryWake(), undefined);
  batches[0]!.settle(batches[0]!.attempts.map(() => ok));
  batches[1]!.settle(new Error('the batch failed for good'));
  await Promise.resolve();
  t.deepEqual(answers.get('a0'), ok);
  t.true(answers.get(`a${RETRIES_PER_BATCH}`) instanceof Error, 'a batch that failed for good answers each of its heads with the failure');
  // A long pause is late by at most RETRY_SLACK_MAX_MS.
  const long = new EndpointLanes({ delaysMs: [3_600_000], now: c.now });
  waitingHeads(long, ['h']);
  t.is(long.nextRetryWake(), c.now() + 3_600_000 + RETRY_SLACK_MAX_MS);
});

test('the retry clock: a parked endpoint pauses the whole stream once, then one head probes; an attempt made lets the rest go', async (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  const keys = ['a', 'b', 'c'];
  const answers = waitingHeads(lanes, keys);
  c.advance(110);
  const [all] = lanes.takeDueRetries();
  t.is(all!.attempts.length, 3);
  all!.settle(keys.map(() => parked(30_000)));
  await Promise.resolve();
  for (const key of keys) {
    const { retry, total } = lanes.head(key);
    t.is(lanes.afterAttempt(retry, total, answers.get(key) as AttemptOutcome), 'again');
    t.true(retry.dueAt <= c.now(), 'every head stays due, behind the one pause');
    void lanes.awaitRetry(key, { callbackId: `${key}-cb1`, attemptKey: 'auto:2', final: false, manual: false }, retry).then((a) => answers.set(key, a));
  }
  t.deepEqual(lanes.carry().pause, { until: c.now() + 30_000, streak: 1 }, 'three parked answers make one pause');
  t.is(lanes.nextRetryWake(), c.now() + 30_000);
  c.advance(30_000);
  const probes = lanes.takeDueRetries();
  t.deepEqual(
    probes.map((b) => b.attempts.length),
    [1],
    'one probe',
  );
  t.is(lanes.nextRetryWake(), undefined, 'nothing else wakes while the probe is out');
  t.deepEqual(lanes.takeDueRetries(), []);
  // The probe parks again: the next pause doubles.
  probes[0]!.settle([parked(30_000)]);
  await Promise.resolve();
  const probed = probes[0]!.attempts[0]!.callbackId.split('-')[0]!;
  const head = lanes.head(probed);
  lanes.afterAttempt(head.retry, head.total, answers.get(probed) as AttemptOutcome);
  t.deepEqual(lanes.carry().pause, { until: c.now() + 60_000, streak: 2 });
  void lanes
    .awaitRetry(probed, { callbackId: `${probed}-cb1`, attemptKey: 'auto:2', final: false, manual: false }, head.retry)
    .then((a) => answers.set(probed, a));
  c.advance(60_000);
  const second = lanes.takeDueRetries();
  t.is(second.length, 1);
  // This probe is made (the endpoint answered 500): the pause ends, the other heads go at once.
  second[0]!.settle([failed]);
  await Promise.resolve();
  const again = second[0]!.attempts[0]!.callbackId.split('-')[0]!;
  const h = lanes.head(again);
  lanes.afterAttempt(h.retry, h.total, failed);
  t.deepEqual(lanes.carry().pause, { until: 0, streak: 0 });
  t.deepEqual(
    lanes.takeDueRetries().map((b) => b.attempts.length),
    [2],
    'the two other heads go together',
  );
});

test('the retry clock: a new deal’s first attempt that the endpoint takes ends the pause at once', (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  waitingHeads(lanes, ['a']);
  const { retry, total } = lanes.head('a');
  c.advance(100); // its retry came due and found the endpoint parked
  lanes.afterAttempt(retry, total, parked(60_000));
  t.is(lanes.nextRetryWake(), c.now() + 60_000);
  lanes.take([event('b', 1)]);
  lanes.recordFirstAttempts('b', [ok]);
  t.deepEqual(lanes.carry().pause, { until: 0, streak: 0 });
  t.is(lanes.nextRetryWake(), retry.dueAt, 'the waiting head goes at once, not when the pause would have ended');
  t.true(retry.dueAt <= c.now());
});

test('the retry clock: draining stops every waiting head with its progress; a head asking during the drain stops at once', async (t) => {
  const c = clock();
  const lanes = new EndpointLanes({ delaysMs: [100], now: c.now });
  const answers = waitingHeads(lanes, ['a', 'b']);
  lanes.draining = true;
  lanes.stopWaiting();
  await Promise.resolve();
  t.is(answers.get('a'), 'stopped');
  t.is(answers.get('b'), 'stopped');
  t.is(await lanes.awaitRetry('a', { callbackId: 'a-cb1', attemptKey: 'auto:2', final: false, manual: false }, lanes.head('a').retry), 'stopped');
  t.is(lanes.nextRetryWake(), undefined);
  t.deepEqual(lanes.carry().lanes.find((l) => l.lane === 'a')!.retry, { attempt: 2, dueAt: c.now() + 100, slackMs: 10 });
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
    carried: [{ lane: 'old', events: [event('old', 1)], retry: { attempt: 3, dueAt: 5 } }],
    pause: { until: 7, streak: 2 },
  });
  t.true(lanes.inSchedule('old'));
  lanes.take(Array.from({ length: SEEN_KEPT + 10 }, (_, n) => event('x', n)));
  lanes.take([event('a', 1)]);
  const a = lanes.head('a');
  lanes.afterAttempt(a.retry, a.total, failed);
  lanes.take([event('done', 1)]);
  lanes.endHead('done');
  const { lanes: carried, seen, pause } = lanes.carry();
  t.deepEqual(pause, { until: 0, streak: 0 }, 'the attempt made since ended the carried pause');
  t.deepEqual(
    carried.map((l) => l.lane),
    ['old', 'x', 'a'],
    'the empty lane is not carried',
  );
  t.deepEqual(carried[0]!.retry, { attempt: 3, dueAt: 5 });
  t.deepEqual(carried[2]!.retry, { attempt: 2, dueAt: c.now() + 100, slackMs: 10 });
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
