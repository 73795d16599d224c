import test from 'ava';
import { parseJsonBody, parseNumber } from '../../api/body';
import { firstUnsafeText, textProblem } from '../../domain/text';
import { isPrivateAddress } from '../../domain/net-guard';

test('numbers are exact or refused: a fraction or exponent never becomes an integer', (t) => {
  t.is(parseNumber('150000'), 150000);
  t.is(parseNumber('9223372036854775807'), 9223372036854775807n);
  t.true(Number.isNaN(parseNumber('150000.00000000001') as number));
  t.true(Number.isNaN(parseNumber('1e3') as number));
  t.true(Number.isNaN(parseNumber('1.0') as number));
  t.true(Number.isNaN(parseNumber('1e400') as number));
  t.is(parseNumber('1.5'), 1.5);
});

test('control characters and lone surrogates are found anywhere in a body, keys included', (t) => {
  t.is(textProblem('ok\ttext\nhere'), undefined);
  t.is(textProblem('ok\ttext', true), 'a control character');
  t.is(textProblem('nul\u0000'), 'a control character');
  t.is(textProblem('c1\u0085'), 'a control character');
  t.is(textProblem('\ud83d\ude00 emoji'), undefined);
  t.is(textProblem('lone \ud800'), 'an invalid unicode sequence');
  t.is(textProblem('lone \udc00'), 'an invalid unicode sequence');
  t.deepEqual(firstUnsafeText({ a: [{ b: 'x\u0000' }] }), { field: 'a.0.b', problem: 'a control character' });
  t.deepEqual(firstUnsafeText({ 'k\u0000': 1 }), { field: '(body) (a key)', problem: 'a control character' });
  t.throws(() => parseJsonBody('{"a":"\\u0000"}'), { message: /a contains a control character/ });
  t.throws(() => parseJsonBody('['.repeat(100) + ']'.repeat(100)), { message: /nests deeper/ });
});

test('the SSRF guard covers NAT64, 6to4, Teredo, multicast, documentation and reserved ranges', (t) => {
  for (const ip of [
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:0:4136:e378::1',
    'ff02::1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    'fec0::1',
  ]) {
    t.true(isPrivateAddress(ip), ip);
  }
  for (const ip of ['8.8.8.8', '2606:4700:4700::1111']) t.false(isPrivateAddress(ip), ip);
});
