/**
 * The task queues. Deal work (PayIn, PayOut, withdrawal, appeal, settlement and pass workflows)
 * polls TEMPORAL_TASK_QUEUE; webhook deliveries poll WEBHOOK_TASK_QUEUE, so a burst of deliveries
 * never delays a deal and a hanging receiver only holds the webhook worker's slots. The automatic
 * retries of the endpoint streams run as activities on a third queue, `<WEBHOOK_TASK_QUEUE>-retries`,
 * whose dispatch rate Temporal caps (WEBHOOK_RETRIES_PER_SECOND): failing endpoints cannot take
 * more of the engine than that budget, whatever their number. Each contract says which queue its
 * workflow runs on; workers/main.ts polls them.
 */
import type { Config } from '../../config';

export type TaskQueueConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'WEBHOOK_TASK_QUEUE'>;

export const dealsTaskQueue = (config: TaskQueueConfig): string => config.TEMPORAL_TASK_QUEUE;
export const webhooksTaskQueue = (config: TaskQueueConfig): string => config.WEBHOOK_TASK_QUEUE;
export const webhookRetriesTaskQueue = (config: TaskQueueConfig): string => `${config.WEBHOOK_TASK_QUEUE}-retries`;
