/**
 * Where keyboard focus goes when the page changes under it: to the new page's heading after a
 * navigation, back to the control that opened a dialog when it closes, and to the heading when
 * that control is gone (a move that is no longer offered once it ran).
 */

/** Focuses the page's main heading (or the main region while none is shown yet). */
function focusHeading(): boolean {
  const target = document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('main');
  if (!target) return false;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  return target.tagName === 'H1';
}

/**
 * After a navigation: the heading once it is rendered (a page may show "Loading…" first). Gives up
 * after `timeoutMs`, leaving focus on the main region; stops when another navigation starts.
 */
export function focusHeadingWhenShown(timeoutMs = 10_000): () => void {
  let stopped = false;
  const started = performance.now();
  const tick = () => {
    if (stopped) return;
    if (document.querySelector('main h1')) {
      focusHeading();
      return;
    }
    if (performance.now() - started > timeoutMs) {
      focusHeading();
      return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return () => {
    stopped = true;
  };
}

const shown = (el: Element | null): el is HTMLElement => el instanceof HTMLElement && el.isConnected && el.getClientRects().length > 0;

/**
 * Back to `el` if it is still on the page, else to the heading. A control disabled while the
 * action it started runs gets the focus when it is enabled again (or the heading if it goes away).
 */
export function returnFocus(el: Element | null, waitMs = 30_000) {
  const started = performance.now();
  const tick = () => {
    if (!shown(el)) return void focusHeading();
    if (!el.matches(':disabled')) return el.focus();
    // Something else took the focus meanwhile (the operator moved on): leave it there.
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    if (performance.now() - started > waitMs) return void focusHeading();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

/** When focus was lost (its element removed by a re-render), to the heading. */
export function recoverFocus() {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) focusHeading();
  });
}
