/** The console's amounts (console/src/amounts.ts): major units typed → minor-unit digits, exactly, and back. */
import test from 'ava';
import { AmountError, formatMinor, parseMajor } from '../../console/src/amounts';

test('typed major units become exact minor-unit digits', (t) => {
  t.is(parseMajor('1500', 2), '150000');
  t.is(parseMajor('1 500,5', 2), '150050');
  t.is(parseMajor('1\u202F500.50', 2), '150050');
  t.is(parseMajor('0.07', 2), '7');
  t.is(parseMajor('90071992547409.93', 2), '9007199254740993', 'above 2^53, exact');
  t.is(parseMajor('12', 0), '12');
  t.is(parseMajor('1.5', 3), '1500');
});

test('what is not an amount is refused with why', (t) => {
  t.throws(() => parseMajor('1.234', 2), { instanceOf: AmountError, message: /at most 2 decimals/ });
  t.throws(() => parseMajor('1.5', 0), { message: /takes no decimals/ });
  t.throws(() => parseMajor('1,000.50', 2), { message: /not an amount/ });
  t.throws(() => parseMajor('-5', 2), { message: /not an amount/ });
  t.throws(() => parseMajor('1e3', 2), { message: /not an amount/ });
  t.throws(() => parseMajor('  ', 2), { message: /is empty/ });
});

test('minor units shown in major ones, grouped', (t) => {
  t.is(formatMinor('150050', 2), '1 500.50');
  t.is(formatMinor('7', 2), '0.07');
  t.is(formatMinor('9007199254740993', 2), '90 071 992 547 409.93');
  t.is(formatMinor('1500', 0), '1 500');
  t.is(formatMinor('-150050', 2), '-1 500.50');
  for (const digits of ['1', '10', '99999', '123456789012345678']) t.is(parseMajor(formatMinor(digits, 2), 2), digits);
});
