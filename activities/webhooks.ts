/**
 * Webhook delivery steps. The body and the signer are chosen per merchant API version from the
 * worker's webhook formats (domain/events/webhook-formats.ts): V2's envelope unless an
 * adapter registered another for that api_version (api/adapters.ts).
 */
import type { ActivityDeps } from './deps';
import { postWebhook, storableText } from './webhook-http';
import { targetOf, WebhookGate } from './webhook-isolation';
import { ApplicationFailure } from '@temporalio/activity';
import { findAttemptContext, giveUpDelivery, recordAttempt } from '../db/queries/webhooks';
import { cardDataRing, openEventPayload } from '../db/queries/requisite-secrets';
import type { AttemptInput, AttemptOutcome, GiveUpInput } from '../workflows/contracts/webhook-attempts';
import { FIRST_ATTEMPT_LANES_AT_ONCE } from '../workflows/contracts/webhook-endpoint';

export function createWebhookActivities({ sql, config, secretBox, webhookFormats, metrics }: ActivityDeps) {
  const gate = new WebhookGate({
    maxInFlightPerEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    maxInFlightPerHost: config.WEBHOOK_MAX_IN_FLIGHT_PER_HOST,
    breakerFailures: config.WEBHOOK_BREAKER_FAILURES,
    cooldownMs: config.WEBHOOK_BREAKER_COOLDOWN_MS,
  });
  return {
    deliverWebhook,

    /**
     * A delivery its workflow gave up (an attempt failed for good inside the activity: data that
     * cannot be rendered, not the receiver's answer): it ends ERROR, where the merchant sees it in
     * GET /callbacks and may retry it by hand. A delivery that already ended keeps its status.
     */
    async giveUpDelivery(input: GiveUpInput): Promise<void> {
      await giveUp(input.callbackId, input.reason);
    },

    /**
     * An endpoint stream's first attempts (workflows/webhook-endpoint.ts): one group per deal
     * lane, each group in order and stopping at its first failure, the groups side by side (at
     * most FIRST_ATTEMPT_LANES_AT_ONCE at a time). A delivery that fails for good here — data that cannot be
     * rendered, a missing record, never the receiver's answer — is given up (ERROR, retryable by
     * hand) and answered as an ERROR outcome, so one poisoned event holds up neither its lane's
     * later events nor the other lanes. Run as a local activity: idempotent by attempt key.
     */
    async deliverWebhookGroups(groups: AttemptInput[][]): Promise<AttemptOutcome[][]> {
      const results: AttemptOutcome[][] = groups.map(() => []);
      let next = 0;
      const runGroup = async () => {
        for (let g = next++; g < groups.length; g = next++) {
          for (const item of groups[g]!) {
            let outcome: AttemptOutcome;
            try {
              outcome = await deliverWebhook(item);
            } catch (error) {
              if (!(error instanceof ApplicationFailure && error.nonRetryable)) throw error;
              await giveUp(item.callbackId, error.message);
              outcome = { ok: false, permanent: true, status: 'ERROR', httpStatus: 0 };
            }
            results[g]!.push(outcome);
            if (!outcome.ok) break;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_LANES_AT_ONCE, groups.length) }, runGroup));
      return results;
    },
  };

  /** Ends a delivery ERROR with why (`given up: …`, stored as safe text). */
  async function giveUp(callbackId: string, reason: string): Promise<void> {
    await giveUpDelivery(sql, callbackId, storableText(`given up: ${reason}`, 500));
  }

  /**
   * One signed POST, recorded with its outcome under the next attempt number. Nothing is sent
   * once the delivery succeeded. A failed automatic attempt leaves RETRY (or ERROR when it was
   * the last); a failed manual one leaves the status as it was (ERROR stays ERROR, RETRY RETRY).
   */
  async function deliverWebhook(input: AttemptInput): Promise<AttemptOutcome> {
    // One read: the event, whether this attempt was recorded already, and the secret that signs it.
    const found = await findAttemptContext(sql, input.callbackId, input.attemptKey);
    // The outbox keeps a PayOut's recipient sealed; the merchant's webhook carries it in full.
    const event = found && { ...found, payload: openEventPayload(cardDataRing(config), found.payload) };
    // No record: nothing to attempt, now or later (the relay writes it before any signal).
    if (!event) throw ApplicationFailure.nonRetryable(`delivery ${input.callbackId} not found`, 'NOT_FOUND');
    if (event.status === 'SUCCESS') return { ok: true, permanent: false, status: 'SUCCESS', httpStatus: 0 };
    // ERROR is set only by the last automatic attempt (or a permanent failure): the automatic
    // attempts are over. A repeated relay signal after a stream closed changes nothing then.
    if (event.status === 'ERROR' && !input.manual) return { ok: false, permanent: true, status: 'ERROR', httpStatus: 0 };
    if (event.done) return { ok: false, permanent: false, status: 'RETRY', httpStatus: 0 }; // recorded by an earlier try of this activity

    // The envelope is a function of stored data: if it cannot be built, no retry will build it.
    // That fails for good (the workflow gives the event up: ERROR, retryable by hand once the data
    // is repaired) instead of blocking the deal's later events forever.
    const format = webhookFormats.of(event.api_version);
    let body: string;
    try {
      body = JSON.stringify(format.body(event));
    } catch (error) {
      throw ApplicationFailure.nonRetryable(
        `event ${event.event_id} cannot be rendered: ${error instanceof Error ? error.message : String(error)}`,
        'INVALID_EVENT',
      );
    }

    // A parked (circuit open) or busy endpoint, or a full host: nothing sent, nothing recorded, the
    // workflow waits retryInMs on a durable timer and tries this same attempt again. The endpoint
    // is the merchant and its URL: merchants sharing a host do not hold each other up. A manual
    // retry goes anyway.
    const admission = await gate.admitWaiting(targetOf(event.merchant_id, event.url), input.manual, Math.min(2_000, config.WEBHOOK_TIMEOUT_MS));
    if (!admission.admitted) {
      metrics?.webhookDeferred.inc({ reason: admission.reason });
      return { ok: false, permanent: false, status: 'RETRY', httpStatus: 0, retryInMs: admission.retryInMs, waitReason: admission.reason };
    }

    let result: Awaited<ReturnType<typeof postWebhook>>;
    let sentAt = 0;
    try {
      const secrets = event.signing_keys.map((k) => secretBox.open(k.secret_sealed, k.id));
      sentAt = Math.floor(Date.now() / 1000);
      result =
        secrets.length > 0
          ? await postWebhook(event.url, body, format.headers(secrets, sentAt, body, event), {
              timeoutMs: config.WEBHOOK_TIMEOUT_MS,
              allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
            })
          : { status: undefined, body: '', error: 'the merchant has no webhook secret', permanent: true, durationMs: 0 };
    } catch (error) {
      admission.release(undefined);
      throw error;
    }
    const ok = result.status !== undefined && result.status < 400;
    admission.release(result.permanent ? undefined : ok);
    const last = input.final || result.permanent;
    // The attempt row and the delivery's new state in one statement (db/queries/webhooks.ts).
    const record = (responseBody: string, error: string) =>
      recordAttempt(sql, {
        callbackId: input.callbackId,
        attemptKey: input.attemptKey,
        ok,
        manual: input.manual,
        afterError: input.afterError ?? false,
        last,
        httpStatus: result.status ?? null,
        durationMs: result.durationMs,
        responseBody,
        error,
        signedAt: sentAt,
      });
    // The answer is already storable text (storableText). Should the database still refuse it (a
    // data error, SQLSTATE class 22), the attempt is recorded without it. Any other failure to
    // record leaves as a retryable failure, like an infrastructure one: a failure to record an
    // attempt is never a reason to give the event up (the activity is retried; this attempt key
    // is not recorded, so the retry sends again — at least once).
    let row: { status: AttemptOutcome['status'] } | undefined;
    try {
      try {
        row = await record(result.body, result.error ?? '');
      } catch (error) {
        if (!isDataError(error)) throw error;
        const why = `the answer could not be stored (${(error as Error).message})`;
        row = await record('', storableText(result.error ? `${result.error}; ${why}` : why, 500));
      }
    } catch (error) {
      throw ApplicationFailure.retryable(
        `attempt ${input.attemptKey} of ${input.callbackId} not recorded: ${error instanceof Error ? error.message : String(error)}`,
        'ATTEMPT_NOT_RECORDED',
      );
    }
    if (!row) throw ApplicationFailure.retryable(`delivery ${input.callbackId} vanished while recording`, 'ATTEMPT_NOT_RECORDED');
    // Counted once the attempt is recorded: a retried activity finds its attempt key done above
    // and sends (and counts) nothing again; a crash right here loses a count, never doubles one.
    if (metrics) {
      metrics.webhookAttempts.inc({ outcome: ok ? 'success' : 'failure', circuit: admission.circuit });
      if (ok) metrics.webhookDeliveryLag.observe(Math.max(0, (Date.now() - new Date(event.created_at).getTime()) / 1000));
      else if (row.status === 'ERROR' && event.status !== 'ERROR') metrics.webhookDeliveriesFailed.inc({ circuit: admission.circuit });
      metrics.webhookEndpointsOpen.set(gate.parkedEndpoints().length);
    }
    return { ok, permanent: result.permanent, status: row.status, httpStatus: result.status ?? 0 };
  }
}

/** A Postgres data exception (SQLSTATE class 22: invalid text, value out of range, …). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22') && typeof (error as { severity?: unknown }).severity === 'string';
}
