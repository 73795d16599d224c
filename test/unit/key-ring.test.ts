import test from 'ava';
import { randomBytes } from 'node:crypto';
import { KeyRing } from '../../domain/crypto/key-ring';
import { digitsTail, maskNumber, openRequisiteNumbers, sealRequisiteNumbers } from '../../db/queries/requisite-secrets';

const key = (id: string) => ({ id, key: randomBytes(32) });

test('a sealed value names its key: after a rotation the old key still opens it, and a ring without that key refuses', (t) => {
  const [old, next] = [key('2026-01'), key('2026-06')];
  const sealed = new KeyRing([old]).seal('2200123456789012', 'requisite:r1:card_number');
  t.regex(sealed, /^k1:2026-01:/);
  t.false(sealed.includes('2200123456789012'));
  const rotated = new KeyRing([next, old]);
  t.is(rotated.open(sealed, 'requisite:r1:card_number'), '2200123456789012');
  t.regex(rotated.seal('x', 'a'), /^k1:2026-06:/, 'the first key seals');
  t.throws(() => new KeyRing([next]).open(sealed, 'requisite:r1:card_number'), { message: /key 2026-01 is not configured/ });
});

test('a sealed value is bound to its row and column: elsewhere it does not open; a changed byte does not either', (t) => {
  const ring = new KeyRing([key('k')]);
  const sealed = ring.seal('+79001234567', 'requisite:r1:phone_number');
  t.throws(() => ring.open(sealed, 'requisite:r2:phone_number'));
  t.throws(() => ring.open(sealed, 'requisite:r1:card_number'));
  const parts = sealed.split(':');
  const flipped = Buffer.from(parts[4]!, 'base64');
  flipped[0] = flipped[0]! ^ 1;
  t.throws(() => ring.open([...parts.slice(0, 4), flipped.toString('base64')].join(':'), 'requisite:r1:phone_number'));
  t.throws(() => new KeyRing([{ id: 'bad:id', key: randomBytes(32) }]), { message: /key id/ });
});

test("a requisite's numbers: sealed with their tails and mask beside them, opened back; the sandbox's are public fixtures", (t) => {
  const ring = new KeyRing([key('k')]);
  const sealed = sealRequisiteNumbers(ring, 'r1', { card_number: '2200 1234 5678 9012', phone_number: '', iban: '' });
  t.is(sealed.card_tail, '9012');
  t.is(sealed.phone_tail, null);
  t.is(sealed.phone_sealed, null);
  t.is(sealed.number_masked, '•••• 9012');
  t.deepEqual(openRequisiteNumbers(ring, { id: 'r1', ...sealed }), { card_number: '2200 1234 5678 9012', phone_number: '', iban: '' });
  t.is(
    openRequisiteNumbers(ring, { id: 'r9', requisite_type: 'BANK_CARD', card_sealed: null, phone_sealed: null, iban_sealed: null, sandbox: true }).card_number,
    '4000000000000002',
  );
  t.is(digitsTail('+7 90'), null);
  t.is(digitsTail('+7 900'), '7900');
  t.is(maskNumber('TR33 0006 1005 1978 6457 8413 26'), '•••• 1326');
  t.is(maskNumber(''), '');
});
