/** The hosted payment page: server-rendered HTML, a little script for "I paid", "Cancel" and the countdown. */
import type { CheckoutView } from '../services/checkout-view';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function formatMinor(amount: string, exponent = 2): string {
  const negative = amount.startsWith('-');
  const digits = (negative ? amount.slice(1) : amount).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? '.' + digits.slice(-exponent) : ''}`;
}

export function checkoutPage(hash: string, view: CheckoutView): string {
  const e = escapeHtml;
  const requisite =
    view.requisite_type === 'BANK_TRANSFER'
      ? ['IBAN', view.iban]
      : view.requisite_type === 'BANK_CARD'
        ? ['Card number', view.card_number]
        : ['Phone number', view.phone_number];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay ${e(view.brand_name)}</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; color: #1d2433; }
  main { max-width: 440px; margin: 40px auto; background: #fff; border-radius: 12px; padding: 28px; box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .amount { font-size: 32px; font-weight: 700; margin: 16px 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 8px 16px; margin: 16px 0; }
  dt { color: #6b7385; } dd { margin: 0; font-weight: 600; word-break: break-all; }
  .status { display: inline-block; padding: 4px 10px; border-radius: 999px; background: #e8edff; font-size: 13px; font-weight: 600; }
  .countdown { color: #6b7385; margin: 8px 0 16px; }
  button { font: inherit; padding: 12px 18px; border-radius: 8px; border: 0; cursor: pointer; margin-right: 8px; }
  #paid { background: #2156f3; color: #fff; } #cancel { background: #eceef2; }
  button[disabled] { opacity: .5; cursor: default; }
  #message { margin-top: 16px; min-height: 1.4em; }
  .final a { display: inline-block; margin-top: 12px; }
</style>
</head>
<body>
<main data-hash="${e(hash)}" data-timeout="${e(view.payment_timeout_at)}">
  <h1>${e(view.brand_name)}</h1>
  ${view.description ? `<p>${e(view.description)}</p>` : ''}
  <div class="amount"><span id="amount">${e(formatMinor(view.amount_to_pay))}</span> ${e(view.currency)}</div>
  <span class="status" id="status">${e(view.status)}</span>
  <p class="countdown" id="countdown"></p>
  <section id="details">
    <p>Transfer exactly this amount with <strong>${e(view.payment_method_name)}</strong> to:</p>
    <dl>
      <dt>${requisite[0]}</dt><dd id="requisite">${e(requisite[1] ?? '')}</dd>
      <dt>Holder</dt><dd id="holder">${e(view.holder_name)}</dd>
      <dt>Bank</dt><dd id="bank">${e(view.bank_name)}</dd>
    </dl>
    <button id="paid" type="button">I paid</button>
    <button id="cancel" type="button">Cancel</button>
  </section>
  <section class="final" id="final" hidden></section>
  <p id="message" role="status"></p>
</main>
<script src="/pay/assets/checkout.js"></script>
</body>
</html>`;
}

/** Served as a file so the page needs no inline script. */
export const checkoutScript = `(() => {
  const main = document.querySelector('main');
  const hash = main.dataset.hash;
  const api = '/api/v1/p2p/checkout/' + hash;
  const terminal = ['COMPLETED', 'EXPIRED', 'CANCELLED', 'SPAM_REJECTED'];
  const $ = (id) => document.getElementById(id);
  let timeoutAt = Date.parse(main.dataset.timeout);

  function render(view) {
    $('status').textContent = view.status;
    timeoutAt = Date.parse(view.payment_timeout_at);
    const done = terminal.includes(view.status);
    $('paid').disabled = view.status !== 'ESCROW_LOCKED';
    $('cancel').disabled = !['ESCROW_LOCKED', 'PAYMENT_NOTIFIED'].includes(view.status);
    if (view.status === 'PAYMENT_NOTIFIED') $('message').textContent = 'Thank you. We are waiting for the receipt to be confirmed.';
    if (done) {
      $('details').hidden = true;
      const ok = view.status === 'COMPLETED';
      const link = ok ? view.success_redirect_url : view.fail_redirect_url;
      const final = $('final');
      final.hidden = false;
      final.innerHTML = '';
      const title = document.createElement('h2');
      title.textContent = ok ? 'Payment received' : view.status === 'EXPIRED' ? 'Payment time is over' : 'Payment cancelled';
      final.appendChild(title);
      if (link) {
        const a = document.createElement('a');
        a.href = link;
        a.textContent = 'Back to ' + document.querySelector('h1').textContent;
        final.appendChild(a);
      }
      $('countdown').textContent = '';
      $('message').textContent = '';
    }
    return done;
  }

  async function refresh() {
    const res = await fetch(api);
    if (res.ok) return render(await res.json());
    return false;
  }

  async function act(path, label) {
    $('message').textContent = label + '…';
    const res = await fetch(api + path, { method: 'POST' });
    if (!res.ok) {
      let text = 'Something went wrong';
      try { text = JSON.parse((await res.json()).detail).message; } catch (e) {}
      $('message').textContent = text;
    }
    await refresh();
  }

  $('paid').addEventListener('click', () => act('/notify-payment', 'Sending'));
  $('cancel').addEventListener('click', () => act('/cancel', 'Cancelling'));

  function tick() {
    const left = Math.max(0, Math.floor((timeoutAt - Date.now()) / 1000));
    if (!$('details').hidden) {
      $('countdown').textContent = 'Time left: ' + Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    }
  }
  tick();
  setInterval(tick, 1000);
  refresh();
  const poll = setInterval(async () => { if (await refresh()) clearInterval(poll); }, 3000);
})();`;

export function notFoundPage(): string {
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Payment not found</title></head><body><main><h1>Payment not found</h1><p>Check the link you were given.</p></main></body></html>';
}
