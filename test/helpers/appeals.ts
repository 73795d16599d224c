/** Appeal test helpers: merchant and arbiter calls, expiring deals on an isolated stack, methods in spare currencies. */
import { loadConfig } from '../../config';
import { randomUUID } from 'node:crypto';
import { createSql } from '../../db/sql';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { createTemporalClient } from '../../temporal/client';
import { asOperator, signed, type KeyPair } from './api';
import { eventually } from './poll';

export const APPEALS = '/api/v1/p2p/merchant/appeals';
export const ADMIN_APPEALS = '/api/v1/p2p/admin/appeals';

export const openAppeal = (keys: KeyPair, body: Record<string, unknown>) => signed(keys, 'POST', APPEALS, body);
export const arbiter = (appealId: string, action: 'review' | 'close' | 'reopen' | 'resolve' | 'messages', body?: unknown) =>
  asOperator('POST', `${ADMIN_APPEALS}/${appealId}/${action}`, body);
export const settle = (appealId: string, body: Record<string, unknown>) =>
  asOperator('POST', `/api/v1/p2p/appeals/${appealId}/settlement`, { idempotency_key: randomUUID(), ...body });

/** A fresh ACTIVE payment method (BANK_CARD) in a currency of the seed, with no requisite yet. */
export async function methodIn(currency: string): Promise<{ slug: string; id: string }> {
  const slug = `iso-${currency.toLowerCase()}-${randomUUID().slice(0, 8)}`;
  const id = randomUUID();
  const sql = createSql(process.env.DATABASE_URL!, { max: 1 });
  try {
    await sql`insert into payment_methods (id, tenant_id, slug, name, currency_code, requisite_types)
      values (${id}, ${DEFAULT_TENANT_ID}, ${slug}, ${`Isolated ${slug}`}, ${currency}, ${['BANK_CARD', 'SBP']})`;
  } finally {
    await sql.end();
  }
  return { slug, id };
}

/** The merchant's view of a deal, polled until `status`. */
export async function dealReaches(keys: KeyPair, dealId: string, status: string, baseUrl = '', timeoutMs = 90_000) {
  return eventually(
    async () => {
      const got = await signed(keys, 'GET', `${baseUrl}/api/v1/p2p/merchant/deals/${dealId}`);
      return got.body?.deal?.status === status ? got.body.deal : undefined;
    },
    `deal ${dealId} to be ${status}`,
    timeoutMs,
  );
}

/** Temporal history of a workflow: the event types seen so far. */
export async function historyOf(workflowId: string): Promise<string[]> {
  const client = await createTemporalClient(loadConfig(process.env));
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]) ?? '');
  } finally {
    await client.connection.close();
  }
}
