import test from 'ava';
import { UploadBudget } from '../../api/auth/upload-budget';
import { loadConfig } from '../../config';

test('reservations: per merchant and in total, released once however often release is called', (t) => {
  const budget = new UploadBudget({ perMerchant: 100, total: 150 });
  const a1 = budget.reserve('a', 60);
  t.is(typeof a1, 'function');
  t.is(budget.reserve('a', 41), 'merchant');
  const b1 = budget.reserve('b', 90);
  t.is(typeof b1, 'function');
  t.is(budget.reserve('c', 1), 'total');
  t.is(budget.inFlight(), 150);
  t.is(budget.inFlight('a'), 60);
  (a1 as () => void)();
  (a1 as () => void)();
  t.is(budget.inFlight(), 90, 'a second release frees nothing more');
  t.is(budget.inFlight('a'), 0);
  t.is(typeof budget.reserve('a', 60), 'function', 'a fits again');
  (b1 as () => void)();
  t.is(budget.inFlight('b'), 0);
  t.is(budget.inFlight(), 60);
});

test('configuration: the merchant budget holds at least the largest upload, the total at least one merchant', (t) => {
  t.notThrows(() => loadConfig({}));
  t.throws(() => loadConfig({ UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: String(10 * 1024 * 1024) }), {
    message: /UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT must be at least the largest upload/,
  });
  t.throws(() => loadConfig({ UNVERIFIED_UPLOAD_BYTES_TOTAL: String(16 * 1024 * 1024) }), { message: /UNVERIFIED_UPLOAD_BYTES_TOTAL must be at least/ });
  t.notThrows(() => loadConfig({ EVIDENCE_MAX_BYTES: '1000000', UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: '1065536', UNVERIFIED_UPLOAD_BYTES_TOTAL: '1065536' }));
});
