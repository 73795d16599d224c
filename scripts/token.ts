/**
 * npm run token -- operator | cabinet <merchant_id> [hours]: a JWT for trying the API against a
 * development stack (`npm start`), signed with JWT_SECRET as the gateway checks it.
 *
 * - `operator`: the operator role (`admin`), for `/api/v1/p2p/admin/…`, key issue, kill-switch.
 * - `cabinet <merchant_id>`: a merchant cabinet session (`role: merchant`), for the cabinet-only
 *   `PATCH /api/v1/p2p/my-merchant` (webhook_url, limits, ip_whitelist …) and every route that
 *   takes "HMAC or cabinet JWT".
 *
 * In production the cabinet login of the operator's back office issues these tokens; this script
 * refuses to run with NODE_ENV=production (the gateway refuses a development JWT_SECRET there).
 */
import { signJwt } from '../api/auth/jwt';
import { loadConfig } from '../config';
import { UUID_RE } from '../domain/ids';

const [kind, merchantId, hoursText] = process.argv.slice(2);
const usage = 'usage: npm run token -- operator [hours] | cabinet <merchant_id> [hours]';
const config = loadConfig();
if (config.NODE_ENV === 'production') {
  console.error('npm run token is for development stacks: production tokens come from the cabinet login');
  process.exit(2);
}
const hours = Number((kind === 'operator' ? merchantId : hoursText) ?? 12);
if (!Number.isFinite(hours) || hours <= 0 || hours > 24 * 30) {
  console.error(`${usage}\n  hours: 0 < hours ≤ 720`);
  process.exit(2);
}
if (kind === 'operator') {
  console.log(await signJwt({ sub: 'dev-operator', role: 'admin' }, config.JWT_SECRET, Math.round(hours * 3600)));
} else if (kind === 'cabinet' && merchantId && UUID_RE.test(merchantId)) {
  console.log(await signJwt({ sub: 'dev-cabinet', role: 'merchant', merchant_id: merchantId }, config.JWT_SECRET, Math.round(hours * 3600)));
} else {
  console.error(usage);
  process.exit(2);
}
