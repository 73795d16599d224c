// The payer's page without a reload: it polls the checkout view (backing off while nothing changes,
// paused while the tab is hidden, stopped in states that wait for people and in final ones), and
// when the deal moved it fetches the same server-rendered page and swaps the screen in; it adds copy
// buttons, the cancel dialog, the countdowns, the offline banner and the return to the shop. Every
// form still works without it (POST, then a redirect back to the page).
(() => {
  // biome-ignore lint/suspicious/noRedundantUseStrict: the page loads this file as a classic script (not a module), where the directive is what makes it strict
  'use strict';
  const body = document.body;
  let screen = document.getElementById('screen');
  if (!screen?.dataset.hash) return;
  const hash = screen.dataset.hash;
  const lang = body.dataset.lang || 'en';
  const api = `/api/v1/p2p/checkout/${hash}`;
  const pageUrl = `/pay/${hash}`;
  const live = document.getElementById('live');
  const offlineBanner = document.getElementById('offline');

  // Poll every 3 s while something may happen soon, 1.3× longer after each unchanged answer up to 10 s,
  // doubling up to 30 s after failures; back to 3 s on any change and when the tab is shown again.
  const BASE = 3000;
  const MAX_IDLE = 10000;
  const MAX_FAILING = 30000;
  const GROWTH = 1.3;
  let delay = BASE;
  let pollTimer = 0;
  let polling = false;
  let stopped = false;
  let clocks = [];

  function say(text) {
    if (!live || !text) return;
    live.textContent = '';
    setTimeout(() => {
      live.textContent = text;
    }, 60);
  }

  function setOffline(offline) {
    if (!offlineBanner || offlineBanner.hidden === !offline) return;
    offlineBanner.hidden = !offline;
    if (offline) say(offlineBanner.textContent);
  }

  const keyOf = (v) => [v.status, v.amount_version, v.payer_proof.receipts, v.payer_proof.card_last4, v.payer_proof.can_add].join('|');

  function schedule(ms) {
    clearTimeout(pollTimer);
    if (stopped || document.hidden) return;
    pollTimer = setTimeout(poll, ms);
  }

  async function poll() {
    if (stopped || polling) return;
    polling = true;
    try {
      const res = await fetch(api, { cache: 'no-store', headers: { Accept: 'application/json' } });
      setOffline(false);
      if (res.ok) {
        const view = await res.json();
        if (keyOf(view) !== screen.dataset.key) {
          delay = BASE;
          await refresh();
        } else {
          delay = Math.min(MAX_IDLE, Math.round(delay * GROWTH));
        }
      } else {
        delay = Math.min(MAX_FAILING, delay * 2);
      }
    } catch (error) {
      setOffline(!navigator.onLine || error instanceof TypeError);
      delay = Math.min(MAX_FAILING, delay * 2);
    } finally {
      polling = false;
    }
    if (screen.dataset.poll === 'stop') {
      stopped = true;
      return;
    }
    schedule(delay);
  }

  async function refresh(url) {
    const res = await fetch(url || `${pageUrl}?lang=${encodeURIComponent(lang)}`, { cache: 'no-store', headers: { Accept: 'text/html' } });
    if (!res.ok) throw new Error(`page ${res.status}`);
    swap(await res.text());
  }

  function swap(html) {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const next = doc.getElementById('screen');
    if (!next) return;
    const before = screen.dataset.screen;
    // The same screen swapped in again (a poll and a form's answer both bring it) must not drop the
    // focus to the body: what had it gets it back in the new copy.
    const focused = screen.contains(document.activeElement) && document.activeElement.id ? document.activeElement.id : '';
    const adopted = document.adoptNode(next);
    screen.replaceWith(adopted);
    screen = adopted;
    document.title = doc.title;
    enhance();
    const heading = document.getElementById('screen-title');
    if (before !== screen.dataset.screen) {
      say(heading ? heading.textContent : document.title);
      // After the task that closed a dialog (its close returns focus to what opened it, now gone).
      // Looked up when it runs: another swap may have replaced this heading meanwhile.
      if (heading && (screen.dataset.final === 'true' || screen.dataset.poll === 'stop')) setTimeout(() => document.getElementById('screen-title')?.focus(), 0);
    } else if (focused) {
      const again = document.getElementById(focused);
      if (again) again.focus();
    }
    if (screen.dataset.poll === 'stop') stopped = true;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise((resolve, reject) => {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'sr-only';
      document.body.appendChild(area);
      area.select();
      const ok = document.execCommand('copy');
      area.remove();
      if (ok) resolve();
      else reject(new Error('copy'));
    });
  }

  function enhanceCopy(button) {
    button.hidden = false;
    button.addEventListener('click', () => {
      copyText(button.dataset.copy).then(
        () => {
          button.classList.add('done');
          say(button.dataset.copied);
          setTimeout(() => button.classList.remove('done'), 2000);
        },
        () => say(body.dataset.msgCopyFailed),
      );
    });
  }

  function showError(text) {
    let notice = document.getElementById('notice');
    if (!notice) {
      notice = document.createElement('p');
      notice.id = 'notice';
      notice.className = 'notice';
      notice.setAttribute('role', 'alert');
      const card = screen.querySelector('.main-card');
      card.insertBefore(notice, card.firstChild);
    }
    notice.textContent = text;
  }

  function enhanceForm(form) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = form.querySelector('input[type="file"]');
      if (file?.files?.[0] && file.files[0].size > Number(file.dataset.maxBytes)) {
        showError(body.dataset.msgTooLarge);
        return;
      }
      const buttons = form.querySelectorAll('button[type="submit"]');
      buttons.forEach((b) => {
        b.disabled = true;
      });
      const dialog = form.closest('dialog');
      try {
        const res = await fetch(form.action, { method: 'POST', body: new FormData(form), headers: { Accept: 'text/html' } });
        if (!res.ok) throw new Error(`action ${res.status}`);
        if (dialog?.open) dialog.close();
        swap(await res.text());
        history.replaceState(null, '', pageUrl);
        const notice = document.getElementById('notice');
        if (notice) say(notice.textContent);
        if (!stopped) {
          delay = BASE;
          schedule(delay);
        }
      } catch {
        if (dialog?.open) dialog.close();
        buttons.forEach((b) => {
          b.disabled = false;
        });
        showError(body.dataset.msgError);
        setOffline(!navigator.onLine);
      }
    });
  }

  function enhanceCancel() {
    const link = document.getElementById('cancel');
    const dialog = document.getElementById('cancel-dialog');
    if (!link || !dialog || typeof dialog.showModal !== 'function') return;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      dialog.showModal();
      const keep = document.getElementById('cancel-keep');
      if (keep) keep.focus();
    });
    for (const b of dialog.querySelectorAll('[data-close]')) b.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      if (link.isConnected) link.focus();
    });
  }

  const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

  function every(ms, fn) {
    fn();
    const id = setInterval(fn, ms);
    clocks.push(id);
    return id;
  }

  function enhanceCountdown() {
    const box = document.getElementById('countdown');
    if (!box) return;
    const deadline = Date.parse(box.dataset.deadline);
    const timer = box.querySelector('.timer');
    let over = false;
    const id = every(1000, () => {
      const left = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
      if (timer) timer.textContent = clock(left);
      if (left === 0 && !over) {
        over = true;
        clearInterval(id);
        box.classList.add('over');
        box.textContent = box.dataset.over;
        delay = BASE;
        schedule(1000);
      }
    });
  }

  function enhanceReturn() {
    const box = document.getElementById('return-countdown');
    const link = document.getElementById('return-link');
    if (!box || !link || screen.dataset.autoReturn !== 'true') return;
    let left = Number(box.dataset.seconds) || 10;
    const timer = box.querySelector('.timer');
    box.hidden = false;
    const id = setInterval(() => {
      left -= 1;
      if (timer) timer.textContent = clock(Math.max(0, left));
      if (left <= 0) {
        clearInterval(id);
        window.location.assign(link.href);
      }
    }, 1000);
    clocks.push(id);
    const stay = document.getElementById('return-stay');
    if (stay) {
      stay.addEventListener('click', () => {
        clearInterval(id);
        box.hidden = true;
        link.focus();
      });
    }
  }

  function enhance() {
    for (const id of clocks) clearInterval(id);
    clocks = [];
    screen.querySelectorAll('button.copy[data-copy]').forEach(enhanceCopy);
    screen.querySelectorAll('form[data-enhance]').forEach(enhanceForm);
    enhanceCancel();
    enhanceCountdown();
    enhanceReturn();
  }

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      clearTimeout(pollTimer);
    } else if (!stopped) {
      delay = BASE;
      poll();
    }
  });
  window.addEventListener('online', () => {
    setOffline(false);
    if (!stopped) {
      delay = BASE;
      poll();
    }
  });
  window.addEventListener('offline', () => setOffline(true));

  enhance();
  if (screen.dataset.final === 'true') {
    const heading = document.getElementById('screen-title');
    if (heading) heading.focus();
  }
  if (screen.dataset.poll === 'stop') stopped = true;
  else schedule(delay);
})();
