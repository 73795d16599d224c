/**
 * The two task queues. Deal work (PayIn, PayOut, withdrawal, appeal, settlement and pass
 * workflows) polls TEMPORAL_TASK_QUEUE; webhook deliveries poll WEBHOOK_TASK_QUEUE, so a burst of
 * deliveries never delays a deal and a hanging receiver only holds the webhook worker's slots.
 * Each contract says which queue its workflow runs on; workers/main.ts polls both.
 */
import type { Config } from '../../config';

export type TaskQueueConfig = Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'WEBHOOK_TASK_QUEUE'>;

export const dealsTaskQueue = (config: TaskQueueConfig): string => config.TEMPORAL_TASK_QUEUE;
export const webhooksTaskQueue = (config: TaskQueueConfig): string => config.WEBHOOK_TASK_QUEUE;
