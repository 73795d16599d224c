import test from 'ava';
import { SignJWT, UnsecuredJWT } from 'jose';
import { signJwt, verifyJwt } from '../../api/auth/jwt';
import { Unauthenticated } from '../../domain/errors';

const SECRET = 'unit-test-secret-0123456789';

test('a valid operator token verifies', async (t) => {
  const token = await signJwt({ sub: 'op-1', role: 'admin' }, SECRET);
  t.deepEqual(await verifyJwt(token, SECRET), { sub: 'op-1', role: 'admin', merchant_id: undefined });
});

test('expired, wrongly signed, alg none and exp-less tokens are refused', async (t) => {
  const key = new TextEncoder().encode(SECRET);
  const expired = await new SignJWT({ role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('x')
    .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
    .sign(key);
  const wrongKey = await signJwt({ sub: 'x', role: 'admin' }, 'another-secret-entirely');
  const none = new UnsecuredJWT({ role: 'admin' }).setSubject('x').setExpirationTime('1h').encode();
  const noExp = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').sign(key);
  const hs512 = await new SignJWT({ role: 'admin' })
    .setProtectedHeader({ alg: 'HS512' })
    .setSubject('x')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET.repeat(3)));
  for (const [name, token] of Object.entries({ expired, wrongKey, none, noExp, hs512, garbage: 'a.b.c' })) {
    const error = await t.throwsAsync(verifyJwt(token, SECRET), undefined, name);
    t.true(error instanceof Unauthenticated, name);
  }
});

test('a token without a known role is refused', async (t) => {
  const token = await new SignJWT({ role: 'root' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('x')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  await t.throwsAsync(verifyJwt(token, SECRET), { instanceOf: Unauthenticated });
});
