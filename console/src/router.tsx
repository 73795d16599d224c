/** A small history router under the app's base (/console, /cabinet): the path is the state; links push, back/forward pop. */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { BASE } from './door';

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
window.addEventListener('popstate', notify);

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const snapshot = () => window.location.pathname.slice(BASE.length) + window.location.search;

/** The current route below /console, e.g. "/appeals/<id>?status=OPEN". */
export function useRoute(): { path: string; search: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const [path = '', query = ''] = current.split('?');
  return { path: path.replace(/\/+$/, '') || '/', search: new URLSearchParams(query) };
}

export function navigate(to: string, replace = false) {
  const url = BASE + (to.startsWith('/') ? to : `/${to}`);
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  notify();
  window.scrollTo(0, 0);
}

/**
 * Replaces the query of the current page (a filter changed): no new history entry, no scroll, so
 * back still leaves the list with the filter it had and a reload shows the same.
 */
export function setSearch(params: URLSearchParams) {
  const query = params.toString();
  const url = window.location.pathname + (query ? `?${query}` : '');
  if (url === window.location.pathname + window.location.search) return;
  window.history.replaceState(null, '', url);
  for (const listener of listeners) listener();
}

export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  const current = useRoute().path;
  const active = to === '/' ? current === '/' : current.startsWith(to.split('?')[0]!);
  return <a href={BASE + to} aria-current={active ? 'page' : undefined} onClick={onClick} {...rest} />;
}
