import test from 'ava';
import { readFileSync } from 'node:fs';
import { MERCHANT_ROUTE_ROLES, OPERATOR_ROUTE_ROLES } from '../../domain/roles';
import { approvalsRequired } from '../../domain/state/withdrawals';
import { hashPassword, verifyPassword } from '../../domain/crypto/passwords';
import { base32Decode, base32Encode, hotp } from '../../domain/crypto/totp';

/** The rows of a role table in a document, between its markers. */
function docTable(file: string, marker: string) {
  const doc = readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');
  const table = doc.slice(doc.indexOf(`<!-- ${marker}:start -->`), doc.indexOf(`<!-- ${marker}:end -->`));
  return Object.fromEntries([...table.matchAll(/^\| `(\w+)` \| ([a-z, ]+) \|$/gm)].map((m) => [m[1]!, m[2]!.split(', ').sort()] as const));
}
const sorted = (table: Readonly<Record<string, readonly string[]>>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, [...v].sort()]));

test('docs/console.md shows the operators’ column of the role table of domain/roles.ts, row for row', (t) => {
  t.deepEqual(docTable('console.md', 'role-table'), sorted(OPERATOR_ROUTE_ROLES));
});

test('docs/cabinet.md shows the merchant members’ column of the role table of domain/roles.ts, row for row', (t) => {
  t.deepEqual(docTable('cabinet.md', 'merchant-role-table'), sorted(MERCHANT_ROUTE_ROLES));
});

test('scrypt passwords: versioned, salted, verified; a malformed hash never matches', async (t) => {
  const a = await hashPassword('correct horse battery staple');
  const b = await hashPassword('correct horse battery staple');
  t.regex(a, /^scrypt\$1\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(a, b, 'a salt per password');
  t.true(await verifyPassword('correct horse battery staple', a));
  t.false(await verifyPassword('correct horse battery stapl', a));
  t.false(await verifyPassword('x', 'plain'));
  t.false(await verifyPassword('x', a.replace('$15$', '$40$')));
});

test('TOTP: RFC 6238 test vector (SHA-1) and base32 round trip', (t) => {
  const secret = Buffer.from('12345678901234567890');
  t.deepEqual(base32Decode(base32Encode(secret)), secret);
  // RFC 6238 appendix B, T = 59 s → 94287082 (8 digits); 6 digits: 287082.
  t.is(hotp(secret, 1), '287082');
  t.is(hotp(secret, Math.floor(1111111109 / 30)), '081804');
});

test('four-eyes: two approvals strictly above the amount', (t) => {
  t.is(approvalsRequired(1_000_000n, 1_000_000n), 1);
  t.is(approvalsRequired(1_000_001n, 1_000_000n), 2);
});
