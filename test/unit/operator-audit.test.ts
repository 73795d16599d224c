/**
 * Every operator route that changes something names the action its service or
 * workflow step audits in the effect's transaction (`by: 'service'`, api/route.ts); the request
 * pipeline writes none. A new operator route without it fails here.
 */
import test from 'ava';
import { allRoutes } from '../../api/app';

test('every operator route that changes something is audited in its service or step', (t) => {
  const changing = allRoutes.filter((r) => r.spec.auth === 'operator' && r.spec.method !== 'get');
  t.true(changing.length > 30);
  const unaudited = changing.filter((r) => r.spec.audit?.by !== 'service').map((r) => r.spec.operationId);
  t.deepEqual(unaudited, []);
  const reads = allRoutes.filter((r) => r.spec.method === 'get' && r.spec.audit).map((r) => r.spec.operationId);
  t.deepEqual(reads, [], 'reads are not audited');
});
