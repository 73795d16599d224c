/**
 * New work, kept fresh by polling: a badge in the header with how many notifications (new
 * appeals, withdrawals waiting, alerts raised) arrived since this operator last looked, and their
 * list. "Seen up to" is kept in this browser per account. A new one also refreshes the queues and
 * lists it concerns, so no count waits for a reload.
 */
import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from './api';
import { Link } from './router';
import { useSession } from './session';
import { when } from './ui';
import { Text } from './text';

/** How often the console asks for new work (and the home its counts). */
export const POLL_MS = 15_000;

const pathOf = (n: Schemas['ConsoleNotification']) =>
  n.object_type === 'appeal' ? `/appeals/${n.object_id}` : n.object_type === 'withdrawal' ? '/withdrawals' : '/alerts';

/** The queries a notification makes stale: the home's counts and the lists of its kind. */
const STALE_BY_NEW_WORK = ['queues', 'appeals', 'withdrawals', 'alerts'];

export function Notifications() {
  const session = useSession().data!;
  const queryClient = useQueryClient();
  const storageKey = `gw-console-seen:${session.operator.operator_id}`;
  const [seen, setSeen] = useState(() => localStorage.getItem(storageKey) ?? '');
  const [open, setOpen] = useState(false);
  const list = useQuery({
    queryKey: ['notifications'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/notifications', { params: { query: { limit: 20 } } })),
    refetchInterval: POLL_MS,
    refetchIntervalInBackground: true,
  });
  const latest = list.data?.latest_id;
  // The first answer in this browser: what existed before is not new.
  useEffect(() => {
    if (latest !== undefined && seen === '') {
      setSeen(latest);
      localStorage.setItem(storageKey, latest);
    }
  }, [latest, seen, storageKey]);
  // New work arrived: the counts and lists it concerns are read again now.
  const lastLatest = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (latest === undefined) return;
    if (lastLatest.current !== undefined && lastLatest.current !== latest) {
      void queryClient.invalidateQueries({ predicate: (q) => STALE_BY_NEW_WORK.includes(String(q.queryKey[0])) });
    }
    lastLatest.current = latest;
  }, [latest, queryClient]);
  const items = list.data?.data ?? [];
  const fresh = seen === '' ? [] : items.filter((n) => BigInt(n.id) > BigInt(seen));
  const markSeen = () => {
    if (latest === undefined) return;
    setSeen(latest);
    localStorage.setItem(storageKey, latest);
  };
  return (
    <div className="notifications">
      <button type="button" aria-expanded={open} aria-controls="notification-list" onClick={() => setOpen((o) => !o)}>
        New work{' '}
        <span className={fresh.length > 0 ? 'count-badge' : 'count-badge none'} data-testid="notification-count" aria-live="polite">
          {fresh.length}
        </span>
      </button>
      {open && (
        <section id="notification-list" className="notification-list" aria-label="New work">
          {items.length === 0 ? (
            <p>Nothing new.</p>
          ) : (
            // A link followed (by mouse or keyboard: both click it) closes the list as it bubbles up.
            // biome-ignore lint/a11y/useKeyWithClickEvents: the list only hears its links' clicks, which the keyboard makes too
            <ul onClick={() => setOpen(false)}>
              {items.map((n) => (
                <li key={n.id} className={BigInt(n.id) > BigInt(seen || '0') ? 'unseen' : undefined} data-notification={n.kind}>
                  <Link to={pathOf(n)}>
                    <Text value={n.text} />
                  </Link>
                  <br />
                  <span className="muted">{when(n.created_at)}</span>
                </li>
              ))}
            </ul>
          )}
          <button type="button" onClick={markSeen} disabled={fresh.length === 0}>
            Mark all as seen
          </button>
        </section>
      )}
    </div>
  );
}
