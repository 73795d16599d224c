/** npm run token (scripts/token.ts): development JWTs the gateway accepts, refused in production. */
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { verifyJwt } from '../../api/auth/jwt';
import { DEV_JWT_SECRET } from '../../config';

const run = promisify(execFile);
const token = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/token.ts', ...args], { env: { PATH: process.env.PATH, ...env } });

test('cabinet and operator tokens verify as the gateway checks them', async (t) => {
  const merchantId = randomUUID();
  const cabinet = (await token(['cabinet', merchantId])).stdout.trim();
  t.deepEqual(await verifyJwt(cabinet, DEV_JWT_SECRET), { sub: 'dev-cabinet', role: 'merchant', merchant_id: merchantId });
  const operator = (await token(['operator', '1'])).stdout.trim();
  t.like(await verifyJwt(operator, DEV_JWT_SECRET), { role: 'admin' });
});

test('a bad merchant id and production are refused', async (t) => {
  const bad = await t.throwsAsync(token(['cabinet', 'not-a-uuid']));
  t.regex(String((bad as { stderr?: string }).stderr), /usage: npm run token/);
  const prod = await t.throwsAsync(token(['operator'], { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }));
  t.truthy(prod);
});
