/**
 * The one role table (domain/roles.ts) against the routes: the merchant's column names exactly the
 * routes the cabinet JWT may call (auth modes cabinet and cabinet_or_hmac), owner in every row
 * (the JWT is owner: it keeps every route), support only on reads and its own session; every row
 * names roles of its own party only.
 */
import test from 'ava';
import { allRoutes } from '../../api/app';
import { MERCHANT_ROLES, MERCHANT_ROUTE_ROLES, OPERATOR_ROLES, OPERATOR_ROUTE_ROLES, ROUTE_ROLES, TRADER_ROUTE_ROLES, mayCall } from '../../domain/roles';

const SELF = ['cabinetDeleteSession', 'cabinetEnrollTotp', 'cabinetChangeOwnPassword'];

test('the merchant column names every cabinet route and nothing else; owner everywhere, support only reads', (t) => {
  const cabinet = allRoutes.filter((r) => r.spec.auth === 'cabinet' || r.spec.auth === 'cabinet_or_hmac');
  t.true(cabinet.length >= 25, `${cabinet.length} cabinet routes`);
  t.deepEqual(cabinet.map((r) => r.spec.operationId).sort(), Object.keys(MERCHANT_ROUTE_ROLES).sort());
  for (const route of cabinet) {
    const roles = MERCHANT_ROUTE_ROLES[route.spec.operationId]!;
    t.true(roles.includes('owner'), `the cabinet JWT (owner) keeps ${route.spec.operationId}`);
    if (route.spec.method !== 'get' && !SELF.includes(route.spec.operationId)) t.false(roles.includes('support'), route.spec.operationId);
  }
  for (const roles of Object.values(MERCHANT_ROUTE_ROLES)) t.true(roles.every((r) => (MERCHANT_ROLES as readonly string[]).includes(r)));
  for (const roles of Object.values(OPERATOR_ROUTE_ROLES)) t.true(roles.every((r) => (OPERATOR_ROLES as readonly string[]).includes(r)));
});

test('a role means something only in its party: finance of a merchant is not finance of the operators', (t) => {
  t.true(mayCall('operator', 'adminApproveWithdrawal', 'finance'));
  t.false(mayCall('merchant', 'adminApproveWithdrawal', 'finance'), 'an operator route is in no merchant row');
  t.true(mayCall('merchant', 'createAppeal', 'finance'));
  t.false(mayCall('operator', 'createAppeal', 'finance'), 'a cabinet route is in no operator row');
  t.false(mayCall('merchant', 'updateMyMerchant', 'support'));
  t.false(mayCall('merchant', 'noSuchRoute', 'owner'), 'a route missing from the table is refused to everyone');
  t.false(mayCall('trader', 'adminApproveTrader', 'trader'), 'an operator route is in no trader row');
  t.false(mayCall('operator', 'traderGetSession', 'admin'), 'a trader route is in no operator row');
});

test('the trader column names every trader route and nothing else, each open to the role trader', (t) => {
  const trader = allRoutes.filter((r) => r.spec.auth === 'trader');
  t.true(trader.length >= 4, `${trader.length} trader routes`);
  t.deepEqual(trader.map((r) => r.spec.operationId).sort(), Object.keys(TRADER_ROUTE_ROLES).sort());
  for (const route of trader) t.true(route.spec.operationId.startsWith('trader'), route.spec.operationId);
  for (const roles of Object.values(ROUTE_ROLES.trader)) t.deepEqual([...roles], ['trader']);
});
