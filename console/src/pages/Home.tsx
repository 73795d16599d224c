import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link } from '../router';
import { age, ErrorText, Loading, when } from '../ui';
import { POLL_MS } from '../notifications';

export function Home() {
  const queues = useQuery({ queryKey: ['queues'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/queues')), refetchInterval: POLL_MS });
  if (queues.isPending) return <Loading what="the queues" />;
  if (queues.error) return <ErrorText error={queues.error} />;
  const q = queues.data;
  // The counts are the live world's; a sandbox merchant's waiting items are named apart.
  const sandbox = (n: number) => (n > 0 ? `and ${n} of sandbox merchants (play money)` : '');
  const cards = [
    {
      id: 'overdue',
      title: 'Appeals past their deadline',
      queue: q.appeals_overdue,
      to: '/appeals?queue=overdue',
      // For this queue the age is how long ago the earliest missed deadline passed.
      line:
        q.appeals_overdue.count > 0
          ? `most overdue by ${age(q.appeals_overdue.oldest_age_seconds)} (its deadline was ${when(q.appeals_overdue.oldest_at)})`
          : 'none overdue',
      extra: `an appeal is answered within ${age(q.appeals_overdue.sla_seconds)}`,
    },
    {
      id: 'appeals',
      title: 'Appeals waiting for an arbiter',
      queue: q.appeals_waiting,
      to: '/appeals?queue=oldest',
      extra: sandbox(q.appeals_waiting.sandbox_count),
    },
    {
      id: 'withdrawals',
      title: 'Withdrawals waiting for approval',
      queue: q.withdrawals_waiting,
      to: '/withdrawals',
      extra: [`${q.withdrawals_waiting.awaiting_second_approval} awaiting a second approval`, sandbox(q.withdrawals_waiting.sandbox_count)]
        .filter(Boolean)
        .join('; '),
    },
    { id: 'alerts', title: 'Open alerts', queue: q.open_alerts, to: '/alerts', extra: sandbox(q.open_alerts.sandbox_count) },
    { id: 'stuck', title: 'Deals stuck past the SLA', queue: q.stuck_deals, to: '/deals', extra: `SLA ${age(q.stuck_deals.sla_seconds)}` },
  ];
  return (
    <>
      <h1>Queues</h1>
      <ul className="cards">
        {cards.map((card) => (
          <li key={card.id} className="card" data-queue={card.id}>
            <h2>
              <Link to={card.to}>{card.title}</Link>
            </h2>
            <p className="count">{card.queue.count}</p>
            <p>
              {'line' in card && card.line
                ? card.line
                : card.queue.count > 0
                  ? `oldest ${age(card.queue.oldest_age_seconds)} (${when(card.queue.oldest_at)})`
                  : 'none waiting'}
            </p>
            {card.extra && <p>{card.extra}</p>}
          </li>
        ))}
      </ul>
      {q.appeals_assigned_to_me > 0 && (
        <p data-testid="mine">
          <Link to="/appeals?queue=mine">
            {q.appeals_assigned_to_me} appeal{q.appeals_assigned_to_me === 1 ? '' : 's'} assigned to you
          </Link>{' '}
          wait for an answer.
        </p>
      )}
      <p className="muted">
        As of {when(q.generated_at)}; refreshed every {POLL_MS / 1000} s.
      </p>
    </>
  );
}
