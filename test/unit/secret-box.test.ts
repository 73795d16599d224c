import test from 'ava';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../domain/crypto/secret-box';

test('sealed secrets open only with the same key and row binding', (t) => {
  const box = new SecretBox(randomBytes(32).toString('base64'));
  const sealed = box.seal('whsec_abc', 'key-1');
  t.false(sealed.includes('whsec_abc'));
  t.is(box.open(sealed, 'key-1'), 'whsec_abc');
  t.throws(() => box.open(sealed, 'key-2'));
  t.throws(() => new SecretBox(randomBytes(32).toString('base64')).open(sealed, 'key-1'));
  t.not(box.seal('whsec_abc', 'key-1'), sealed); // random IV
});
