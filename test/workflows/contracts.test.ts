/**
 * Each workflow's contract names the workflow the bundle registers, with the signature the
 * workflow has (checked by the compiler below), and the task queue it runs on; each message name
 * of the wire has one definition.
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import * as workflows from '../../workflows';
import { loadConfig } from '../../config';
import { appealTaskQueue, appealWorkflowType, type AppealWorkflow } from '../../workflows/contracts/appeal';
import { awaitCreationUpdate, statusQuery } from '../../workflows/contracts/deal-like';
import { chainWatchTaskQueue, chainWatchWorkflowId, chainWatchWorkflowType, type ChainWatchWorkflow } from '../../workflows/contracts/chain-watch';
import { passTaskQueue, passWorkflowType, type PassWorkflow } from '../../workflows/contracts/pass';
import { payinTaskQueue, payinWorkflowType, type PayinWorkflow } from '../../workflows/contracts/payin';
import { payoutTaskQueue, payoutWorkflowType, type PayoutWorkflow } from '../../workflows/contracts/payout';
import { sandboxTraderTaskQueue, sandboxTraderWorkflowType, type SandboxTraderWorkflow } from '../../workflows/contracts/sandbox-trader';
import { settlementTaskQueue, settlementWorkflowType, type SettlementWorkflow } from '../../workflows/contracts/settlement';
import { webhookManualRetryTaskQueue, webhookManualRetryWorkflowType, type WebhookManualRetryWorkflow } from '../../workflows/contracts/webhook-manual-retry';
import { webhookEndpointTaskQueue, webhookEndpointWorkflowType, type WebhookEndpointWorkflow } from '../../workflows/contracts/webhook-endpoint';
import { withdrawalTaskQueue, withdrawalWorkflowType, type WithdrawalWorkflow } from '../../workflows/contracts/withdrawal';
import { deskNotificationTaskQueue, deskNotificationWorkflowType, type DeskNotificationWorkflow } from '../../workflows/contracts/desk-notification';
import { bankNotificationTaskQueue, bankNotificationWorkflowType, type BankNotificationWorkflow } from '../../workflows/contracts/bank-notification';

// The compiler's half: every registered workflow has its contract's signature.
const registered: {
  payinWorkflow: PayinWorkflow;
  payoutWorkflow: PayoutWorkflow;
  withdrawalWorkflow: WithdrawalWorkflow;
  appealWorkflow: AppealWorkflow;
  settlementWorkflow: SettlementWorkflow;
  passWorkflow: PassWorkflow;
  webhookEndpointWorkflow: WebhookEndpointWorkflow;
  webhookManualRetryWorkflow: WebhookManualRetryWorkflow;
  chainWatchWorkflow: ChainWatchWorkflow;
  sandboxTraderWorkflow: SandboxTraderWorkflow;
  deskNotificationWorkflow: DeskNotificationWorkflow;
  bankNotificationWorkflow: BankNotificationWorkflow;
} = workflows;

const config = loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: 'deals-q', WEBHOOK_TASK_QUEUE: 'webhooks-q' });

test('every contract names a registered workflow and its task queue; the type names are the shipped ones', (t) => {
  const contracts = [
    [payinWorkflowType, payinTaskQueue, 'deals-q'],
    [payoutWorkflowType, payoutTaskQueue, 'deals-q'],
    [withdrawalWorkflowType, withdrawalTaskQueue, 'deals-q'],
    [appealWorkflowType, appealTaskQueue, 'deals-q'],
    [settlementWorkflowType, settlementTaskQueue, 'deals-q'],
    [passWorkflowType, passTaskQueue, 'deals-q'],
    [webhookEndpointWorkflowType, webhookEndpointTaskQueue, 'webhooks-q'],
    [webhookManualRetryWorkflowType, webhookManualRetryTaskQueue, 'webhooks-q'],
    [chainWatchWorkflowType, chainWatchTaskQueue, 'deals-q'],
    [sandboxTraderWorkflowType, sandboxTraderTaskQueue, 'deals-q'],
    [deskNotificationWorkflowType, deskNotificationTaskQueue, 'webhooks-q'],
    [bankNotificationWorkflowType, bankNotificationTaskQueue, 'deals-q'],
  ] as const;
  for (const [type, queue, expected] of contracts) {
    t.is(typeof (registered as Record<string, unknown>)[type], 'function', type);
    t.is(queue(config), expected, type);
  }
  t.deepEqual(Object.keys(workflows).sort(), contracts.map(([type]) => type).sort(), 'the bundle registers exactly the contracts’ workflows');
  // Running executions and their histories carry these names.
  t.deepEqual(
    contracts.map(([type]) => type),
    [
      'payinWorkflow',
      'payoutWorkflow',
      'withdrawalWorkflow',
      'appealWorkflow',
      'settlementWorkflow',
      'passWorkflow',
      'webhookEndpointWorkflow',
      'webhookManualRetryWorkflow',
      'chainWatchWorkflow',
      'sandboxTraderWorkflow',
      'deskNotificationWorkflow',
      'bankNotificationWorkflow',
    ],
  );
  t.is(chainWatchWorkflowId(config), 'chain-watch:deals-q', 'one watcher per deployment (its deals queue)');
});

const CONTRACTS = new URL('../../workflows/contracts/', import.meta.url);

/** Every signal, update and query the contracts define: [wire name, file]. */
function wireNames(): [string, string][] {
  return readdirSync(CONTRACTS)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(new URL(file, CONTRACTS), 'utf8').matchAll(/\bdefine(?:Update|Query|Signal)\b[^;]*?\(\s*'([^']+)'\s*\)/g)].map((m): [string, string] => [
        m[1]!,
        file,
      ]),
    );
}

test('each wire name (signal, update, query) has one definition; the deal-like questions are asked by one name on every deal-like workflow', (t) => {
  const names = wireNames();
  t.true(names.length >= 20, `${names.length} message definitions found`);
  const repeated = names.filter(([name], i) => names.findIndex(([other]) => other === name) !== i);
  t.deepEqual(repeated, [], 'defined more than once');
  // PayIn, PayOut and withdrawal are asked for their creation and their snapshot alike (deal-like.ts).
  t.is(awaitCreationUpdate.name, 'awaitCreation');
  t.is(statusQuery.name, 'status');
  t.deepEqual(
    names.filter(([name]) => /creation$|^(payout|withdrawal|payin)status$/i.test(name)),
    [['awaitCreation', 'deal-like.ts']],
  );
});
