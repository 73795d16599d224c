/**
 * The sandbox's virtual bank device (domain/bank-notifications/virtual.ts): each bank's credit
 * layout, taken from its fixture corpus (test/fixtures/bank-notifications/<bank>.json), parses back
 * through the gateway's own parser to exactly the amount written, in the bank's currency and with
 * the requisite's tail, for every amount of 1..10^10 minor units; the bank a requisite gets; the
 * device's key, derived from the secret and the tenant.
 */
import test from 'ava';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { parseBankNotification } from '../../domain/bank-notifications/parse';
import { type VirtualBank, virtualBankOf, virtualCredit } from '../../domain/bank-notifications/virtual';
import { deviceSignatureValid, signDeviceRequest, virtualDeviceKeyPair, virtualDeviceKeys } from '../../domain/crypto/device-signature';

const BANKS: VirtualBank[] = ['sberbank', 'tbank', 'kaspi', 'kapitalbank', 'ziraat', 'sbp'];

/** The template with its digits as letters: the layout it copies, whatever the amount. */
const shape = (text: string) => text.replace(/\d[\d\s.,\u00a0]*/g, '#').replace(/\s+/g, ' ');

for (const bank of BANKS) {
  test(`${bank}: template(amount) parses back to that amount, currency and tail for amounts of 1..10^10 minor units`, (t) => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10_000_000_000n }), fc.integer({ min: 0, max: 9999 }), (amount, tailNumber) => {
        const tail = String(tailNumber).padStart(4, '0');
        const credit = virtualCredit(bank, amount, tail);
        const parsed = parseBankNotification(credit);
        return parsed.parser === bank && parsed.credit?.amount === amount && parsed.credit.currency === credit.currency && parsed.credit.cardTail === tail;
      }),
      { numRuns: 500 },
    );
    t.pass();
  });

  test(`${bank}: the template is one of the bank's own credit layouts in its fixture corpus`, (t) => {
    const corpus = JSON.parse(readFileSync(new URL(`../fixtures/bank-notifications/${bank}.json`, import.meta.url), 'utf8')) as {
      sender: string;
      text: string;
      expect: unknown;
    }[];
    const credit = virtualCredit(bank, 150_000n, '1234');
    const layouts = corpus.filter((f) => f.expect !== null).map((f) => shape(f.text));
    t.true(layouts.includes(shape(credit.text)), `${credit.text} is not a layout of ${bank}.json`);
  });
}

test('the bank of a requisite: SBP for an SBP one, its own bank when a parser knows it, else its currency’s', (t) => {
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'SBP', currency: 'RUB' }), 'sbp');
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'BANK_CARD', currency: 'RUB' }), 'tbank');
  t.is(virtualBankOf({ bank_name: 'sberbank', requisite_type: 'BANK_CARD', currency: 'RUB' }), 'sberbank');
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'BANK_CARD', currency: 'KZT' }), 'kaspi');
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'BANK_CARD', currency: 'UZS' }), 'kapitalbank');
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'BANK_TRANSFER', currency: 'TRY' }), 'ziraat');
  t.is(virtualBankOf({ bank_name: 'kaspi', requisite_type: 'BANK_CARD', currency: 'RUB' }), 'tbank');
  t.is(virtualBankOf({ bank_name: 'sandbox', requisite_type: 'BANK_CARD', currency: 'EUR' }), undefined);
});

test('the virtual device’s key: the same for one secret and tenant, another for another tenant or secret; it signs as a device', (t) => {
  const secret = new Uint8Array(32).fill(7);
  const a = virtualDeviceKeyPair(secret, 'tenant-a');
  t.deepEqual(virtualDeviceKeyPair(secret, 'tenant-a').publicKey, a.publicKey);
  t.notDeepEqual(virtualDeviceKeyPair(secret, 'tenant-b').publicKey, a.publicKey);
  t.notDeepEqual(virtualDeviceKeyPair(new Uint8Array(32).fill(8), 'tenant-a').publicKey, a.publicKey);
  t.deepEqual(virtualDeviceKeys(Buffer.from(secret).toString('base64'), 'tenant-a').publicKey, a.publicKey);
  const request = { timestamp: 1_800_000_000, method: 'POST', target: '/api/v1/p2p/device/notifications', body: '{}' };
  t.true(deviceSignatureValid(a.publicKey, signDeviceRequest(a.secretKey, request), request));
});
