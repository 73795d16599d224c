// The workflow bundle entry: every workflow the worker runs, exported under its registered type
// name (each contract's *WorkflowType; test/workflows/contracts.test.ts checks that they agree).
export { payinWorkflow } from './payin';
export { payoutWorkflow } from './payout';
export { webhookEndpointWorkflow } from './webhook-endpoint';
export { webhookManualRetryWorkflow } from './webhook-manual-retry';
export { withdrawalWorkflow } from './withdrawal';
export { appealWorkflow } from './appeal';
export { settlementWorkflow } from './settlement';
export { passWorkflow } from './pass';
export { chainWatchWorkflow } from './chain-watch';
export { sandboxTraderWorkflow } from './sandbox-trader';
export { deskNotificationWorkflow } from './desk-notification';
export { bankNotificationWorkflow } from './bank-notification';
