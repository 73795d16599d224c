// The workflow bundle entry: every workflow the worker runs is exported here.
export { payinWorkflow } from './payin';
export { payoutWorkflow } from './payout';
export { webhookDeliveryWorkflow, webhookStreamWorkflow } from './webhook-delivery';
export { withdrawalWorkflow } from './withdrawal';
export { appealWorkflow } from './appeal';
export { settlementWorkflow } from './settlement';
export { passWorkflow } from './pass';
