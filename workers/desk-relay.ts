/**
 * The desk hook's relay: each new desk event (db/queries/desk-events.ts, written by triggers with
 * the work it announces) is handed to its own delivery run, `desk-hook:<id>`
 * (workflows/desk-notification.ts), started with REJECT_DUPLICATE, then stamped dispatched. A
 * crash between the start and the stamp starts nothing twice (the next pass meets the id's run);
 * relays in several processes skip each other's rows (FOR UPDATE SKIP LOCKED). Without
 * DESK_HOOK_URL the events are stamped and nothing is sent, so a hook configured later receives
 * new work, not a backlog. Woken by LISTEN/NOTIFY; polls as a fallback.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Sql } from '../db/sql';
import { lockUndispatchedDeskEvents, markDeskEventsDispatched } from '../db/queries/desk-events';
import { attemptTimeoutMs } from '../workflows/contracts/webhook-attempts';
import {
  deskNotificationTaskQueue,
  deskNotificationWorkflowId,
  deskNotificationWorkflowType,
  type DeskNotificationWorkflow,
} from '../workflows/contracts/desk-notification';

const BATCH = 50;

type DeskRelayDeps = { sql: Sql; client: Client; config: Config };

/** One pass: the events not yet handed on, each to its delivery run; how many were handed on. */
async function relayDeskEvents(deps: DeskRelayDeps): Promise<number> {
  return deps.sql.begin(async (tx) => {
    const events = await lockUndispatchedDeskEvents(tx, BATCH);
    if (deps.config.DESK_HOOK_URL) {
      await Promise.all(
        events.map(async (e) => {
          try {
            await deps.client.workflow.start<DeskNotificationWorkflow>(deskNotificationWorkflowType, {
              workflowId: deskNotificationWorkflowId(e.id),
              taskQueue: deskNotificationTaskQueue(deps.config),
              args: [{ eventId: e.id.toString(), maxAttempts: deps.config.DESK_HOOK_MAX_ATTEMPTS, attemptTimeoutMs: attemptTimeoutMs(deps.config) }],
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
            });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        }),
      );
    }
    await markDeskEventsDispatched(
      tx,
      events.map((e) => e.id),
    );
    return events.length;
  }) as Promise<number>;
}

export async function startDeskRelay(deps: DeskRelayDeps & { log: Logger }) {
  let stopped = false;
  let wake: () => void = () => {};
  const listener = await deps.sql.listen('desk_events', () => wake());
  const loop = (async () => {
    while (!stopped) {
      let relayed = 0;
      try {
        relayed = await relayDeskEvents(deps);
      } catch (error) {
        deps.log.error({ err: error }, 'desk relay pass failed; retrying');
      }
      if (relayed < BATCH && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deps.config.OUTBOX_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
      await listener.unlisten();
    },
  };
}
