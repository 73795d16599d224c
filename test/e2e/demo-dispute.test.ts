/**
 * npm start's demo dispute (scripts/demo-dispute.ts): a newcomer signing in to the console finds an
 * appeal waiting, with an image and a text file as evidence; a restart while it is open makes no
 * second one.
 */
import test from 'ava';
import { ensureDemoDispute } from '../../scripts/demo-dispute';
import { API_URL, asOperator, newMerchant } from '../helpers/api';

test('the demo dispute is an OPEN appeal with a previewable image and a statement, made once while it stays open', async (t) => {
  const { keys } = await newMerchant();
  const first = await ensureDemoDispute(API_URL, keys);
  t.true(first.created);
  const appeal = await asOperator('GET', `/api/v1/p2p/admin/appeals/${first.appealId}`);
  t.is(appeal.status, 200, appeal.text);
  const body = appeal.body as { data: { status: string; file_ids: string[]; deal_id: string } };
  t.is(body.data.status, 'OPEN');
  t.is(body.data.file_ids.length, 2);
  const types = await Promise.all(
    body.data.file_ids.map(async (id) => (await asOperator('GET', `/api/v1/p2p/admin/files/${id}`)).headers.get('content-type')?.split(';')[0]),
  );
  t.deepEqual(types.sort(), ['image/png', 'text/plain']);

  const again = await ensureDemoDispute(API_URL, keys);
  t.deepEqual(again, { appealId: first.appealId, created: false });
});
